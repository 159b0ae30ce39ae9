package planapply_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/nomadish/nomadish/server/planapply"
	"github.com/nomadish/nomadish/server/planapply/planapplytest"
	"github.com/nomadish/nomadish/structs"
)

// BenchmarkSubmitApply measures one plan (one small allocation on one of
// 100 roomy nodes) through Submit, the queue, the fit check and the
// commit: the leader's hot path, metrics included.
func BenchmarkSubmitApply(b *testing.B) {
	store := planapplytest.NewStore()
	for i := range 100 {
		store.UpsertNode(planapplytest.Node(fmt.Sprintf("n%d", i), 1_000_000, 1_000_000))
	}
	a := planapply.New(planapply.Config{State: store, Commit: store})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { a.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p := structs.NewPlan(&structs.Evaluation{ID: fmt.Sprintf("e%d", i), Priority: 50}, &structs.Job{ID: "job", Namespace: "default"})
		p.AppendAlloc(planapplytest.Alloc(fmt.Sprintf("a%d", i), fmt.Sprintf("n%d", i%100), 1, 1))
		if _, err := a.Submit(context.Background(), p); err != nil {
			b.Fatal(err)
		}
	}
}
