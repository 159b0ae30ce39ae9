package events

import (
	"context"
	"errors"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

func ev(topic structs.Topic, key, ns string, filterKeys ...string) structs.Event {
	return structs.Event{Topic: topic, Type: "T", Key: key, Namespace: ns, FilterKeys: filterKeys}
}

// indexes reads n batches and returns their indexes.
func indexes(t *testing.T, sub *Subscription, n int) []uint64 {
	t.Helper()
	var out []uint64
	for range n {
		b, err := sub.Next(context.Background())
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		out = append(out, b.Index)
	}
	return out
}

// pending reports whether Next would wait (nothing to read now).
func pending(t *testing.T, sub *Subscription) bool {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := sub.Next(ctx)
	return errors.Is(err, context.Canceled)
}

func equal(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestRingWrapsAroundKeepingTheLastBatches(t *testing.T) {
	b := New(3)
	for i := uint64(1); i <= 5; i++ {
		b.Publish(i*10, []structs.Event{ev(structs.TopicJob, "j", "default")})
	}
	sub, err := b.Subscribe(Request{})
	if err != nil {
		t.Fatal(err)
	}
	if got := indexes(t, sub, 3); !equal(got, []uint64{30, 40, 50}) {
		t.Fatalf("replayed %v, want the last three batches [30 40 50]", got)
	}
	if !pending(t, sub) {
		t.Fatal("a fourth batch was read from a ring of three")
	}
}

func TestSubscribeResumesFromIndex(t *testing.T) {
	b := New(4)
	for _, i := range []uint64{10, 12, 14} {
		b.Publish(i, []structs.Event{ev(structs.TopicJob, "j", "default")})
	}
	for _, tc := range []struct {
		index uint64
		want  []uint64
	}{{12, []uint64{12, 14}}, {13, []uint64{14}}, {1, []uint64{10, 12, 14}}, {0, []uint64{10, 12, 14}}} {
		sub, err := b.Subscribe(Request{Index: tc.index})
		if err != nil {
			t.Fatal(err)
		}
		if got := indexes(t, sub, len(tc.want)); !equal(got, tc.want) {
			t.Errorf("index=%d: got %v, want %v", tc.index, got, tc.want)
		}
		if !pending(t, sub) {
			t.Errorf("index=%d: more batches than %v", tc.index, tc.want)
		}
	}
	// Past the newest: only what comes next.
	sub, _ := b.Subscribe(Request{Index: 15})
	b.Publish(16, []structs.Event{ev(structs.TopicJob, "j", "default")})
	if got := indexes(t, sub, 1); !equal(got, []uint64{16}) {
		t.Fatalf("index=15: got %v, want [16]", got)
	}
	// Older than the ring after it wrapped: its oldest batch.
	for _, i := range []uint64{18, 20, 22} {
		b.Publish(i, []structs.Event{ev(structs.TopicJob, "j", "default")})
	}
	sub, _ = b.Subscribe(Request{Index: 10})
	if got := indexes(t, sub, 4); !equal(got, []uint64{16, 18, 20, 22}) {
		t.Fatalf("index=10 after wrap: got %v, want [16 18 20 22]", got)
	}
}

func TestFiltersByTopicKeyAndNamespace(t *testing.T) {
	batch := []structs.Event{
		ev(structs.TopicJob, "web", "default"),
		ev(structs.TopicAllocation, "a1", "default", "web", "d1"),
		ev(structs.TopicAllocation, "a2", "prod", "api", ""),
		ev(structs.TopicNode, "n1", ""),
		ev(structs.TopicEvaluation, "e1", "default", "web"),
	}
	keys := func(evs []structs.Event) (out []string) {
		for _, e := range evs {
			out = append(out, e.Key)
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		topics []string
		ns     string
		want   []string
	}{
		{"all topics in default", nil, "default", []string{"web", "a1", "n1", "e1"}},
		{"all namespaces", []string{"*"}, "*", []string{"web", "a1", "a2", "n1", "e1"}},
		{"one topic", []string{"Job:*"}, "*", []string{"web"}},
		{"topic without key", []string{"Allocation"}, "*", []string{"a1", "a2"}},
		{"by key", []string{"Allocation:a2"}, "*", []string{"a2"}},
		{"by filter key", []string{"Allocation:web", "Evaluation:web"}, "*", []string{"a1", "e1"}},
		{"deployment filter key", []string{"Allocation:d1"}, "*", []string{"a1"}},
		{"any topic by key", []string{"*:web"}, "*", []string{"web", "a1", "e1"}},
		{"namespace keeps nodes", []string{"*"}, "prod", []string{"a2", "n1"}},
	} {
		topics, err := ParseTopics(tc.topics)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		b := New(2)
		b.Publish(5, batch)
		sub, err := b.Subscribe(Request{Topics: topics, Namespace: tc.ns})
		if err != nil {
			t.Fatal(err)
		}
		got, err := sub.Next(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if g := keys(got.Events); len(g) != len(tc.want) || func() bool {
			for i := range g {
				if g[i] != tc.want[i] {
					return true
				}
			}
			return false
		}() {
			t.Errorf("%s: kept %v, want %v", tc.name, g, tc.want)
		}
	}
	if got := keys(batch); got[0] != "web" || len(got) != 5 {
		t.Fatalf("filtering changed the published batch: %v", got)
	}
}

func TestFilteredOutBatchesAreSkippedAndAllowIsAsked(t *testing.T) {
	b := New(4)
	b.Publish(1, []structs.Event{ev(structs.TopicNode, "n1", "")})
	b.Publish(2, []structs.Event{ev(structs.TopicJob, "secret", "default"), ev(structs.TopicJob, "web", "default")})
	sub, _ := b.Subscribe(Request{Topics: map[structs.Topic][]string{structs.TopicJob: {"*"}},
		Allow: func(e *structs.Event) bool { return e.Key != "secret" }})
	got, err := sub.Next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got.Index != 2 || len(got.Events) != 1 || got.Events[0].Key != "web" {
		t.Fatalf("got %+v, want index 2 with job web only", got)
	}
}

func TestParseTopicsRejectsBadSyntax(t *testing.T) {
	for _, bad := range []string{"Job:a:b", ":x", "Job:", ""} {
		if _, err := ParseTopics([]string{bad}); err == nil {
			t.Errorf("topic %q accepted", bad)
		}
	}
}

func TestSlowConsumerIsDroppedWithoutBlockingPublish(t *testing.T) {
	b := New(2)
	slow, _ := b.Subscribe(Request{})
	fast, _ := b.Subscribe(Request{})
	// Publish returns at once though slow reads nothing: five batches
	// into a ring of two on this goroutine.
	for i := uint64(1); i <= 5; i++ {
		b.Publish(i, []structs.Event{ev(structs.TopicJob, "j", "default")})
		if got := indexes(t, fast, 1); got[0] != i {
			t.Fatalf("fast subscriber read %v, want [%d]", got, i)
		}
	}
	if _, err := slow.Next(context.Background()); !errors.Is(err, ErrSlowConsumer) {
		t.Fatalf("slow subscriber: err = %v, want ErrSlowConsumer", err)
	}
	if _, err := slow.Next(context.Background()); !errors.Is(err, ErrSlowConsumer) {
		t.Fatalf("slow subscriber again: err = %v, want ErrSlowConsumer", err)
	}
	late, _ := b.Subscribe(Request{Index: 1})
	if got := indexes(t, late, 2); !equal(got, []uint64{4, 5}) {
		t.Fatalf("a new subscriber replays %v, want [4 5]", got)
	}
}

func TestNextWaitsForPublishAndEndsOnClose(t *testing.T) {
	b := New(2)
	sub, _ := b.Subscribe(Request{})
	got := make(chan uint64)
	go func() {
		e, err := sub.Next(context.Background())
		if err != nil {
			t.Error(err)
		}
		got <- e.Index
	}()
	b.Publish(7, []structs.Event{ev(structs.TopicJob, "j", "default")})
	if i := <-got; i != 7 {
		t.Fatalf("woke with index %d, want 7", i)
	}
	errc := make(chan error)
	go func() { _, err := sub.Next(context.Background()); errc <- err }()
	b.Close()
	if err := <-errc; !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v, want ErrClosed", err)
	}
	if _, err := b.Subscribe(Request{}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Subscribe after Close: %v", err)
	}
}
