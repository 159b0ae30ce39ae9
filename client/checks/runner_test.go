package checks

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nomadish/nomadish/structs"
)

// scripted answers its statuses in order, then the last one forever.
type scripted struct {
	statuses []string
	n        atomic.Int32
}

func (s *scripted) Check(context.Context) Result {
	i := int(s.n.Add(1)) - 1
	if i >= len(s.statuses) {
		i = len(s.statuses) - 1
	}
	return Result{Status: s.statuses[i], Output: s.statuses[i]}
}

type event struct {
	status  string
	restart bool
}

func TestRunnerResultsAndRestart(t *testing.T) {
	events := make(chan event, 100)
	r := NewRunner(func(_ context.Context, s Spec, status string, restart bool) { events <- event{status, restart} }, nil)
	c := &structs.ServiceCheck{Name: "alive", Type: "http", Interval: time.Millisecond, Timeout: time.Second,
		CheckRestart: &structs.CheckRestart{Limit: 2}}
	spec := Spec{ID: "id1", Check: c, Group: "g", Task: "t", Service: "web",
		Checker: &scripted{statuses: []string{pass, crit, crit}}, Restart: NewRestartWatch(c.CheckRestart, time.Time{})}
	r.Start(spec)
	r.Start(spec) // running: no second goroutine
	want := []event{{pass, false}, {crit, false}, {crit, true}}
	for i, w := range want {
		if got := <-events; got != w {
			t.Fatalf("result %d: %+v, want %+v", i, got, w)
		}
	}
	r.StopAll()
	if len(r.Running()) != 0 {
		t.Fatal("checks still running after StopAll")
	}
	res := r.Results()["id1"]
	if res == nil || res.Status != crit || res.Group != "g" || res.Task != "t" || res.Service != "web" ||
		res.Check != "alive" || res.Mode != "healthiness" {
		t.Fatalf("result %+v", res)
	}
	if st, _, ok := r.Status("id1"); !ok || st != crit {
		t.Fatalf("status %q %v", st, ok)
	}
}

func TestRunnerInitialStatus(t *testing.T) {
	r := NewRunner(nil, nil)
	block := make(chan struct{})
	r.Start(Spec{ID: "x", Check: &structs.ServiceCheck{Name: "c", InitialStatus: warn, OnUpdate: structs.OnUpdateIgnore},
		Checker: blocker(block)})
	res := r.Results()["x"]
	if res.Status != warn || res.Mode != "readiness" {
		t.Fatalf("before the first run: %+v", res)
	}
	r.StopAll() // cancels the blocked check
	close(block)
}

type blocker chan struct{}

func (b blocker) Check(ctx context.Context) Result {
	select {
	case <-b:
	case <-ctx.Done():
	}
	return Result{Status: crit}
}
