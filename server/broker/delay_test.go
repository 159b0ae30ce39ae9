package broker_test

import (
	"context"
	"testing"
	"time"

	"github.com/nomadish/nomadish/internal/clock/clocktest"
	"github.com/nomadish/nomadish/server/broker"
	"github.com/nomadish/nomadish/structs"
)

func delayBroker(t *testing.T) (*broker.EvalBroker, *clocktest.FakeClock) {
	t.Helper()
	c := clocktest.NewFakeClock()
	b := broker.NewEvalBroker(broker.BrokerConfig{Clock: c})
	b.SetEnabled(true)
	t.Cleanup(func() { b.SetEnabled(false) })
	return b, c
}

func waitingEval(id, job string, until time.Time) *structs.Evaluation {
	return &structs.Evaluation{
		ID: id, Namespace: "default", JobID: job, Type: "service", Priority: 50,
		Status: structs.EvalStatusPending, WaitUntil: until,
	}
}

// tryDequeue returns the ready eval's ID, or "" when none is ready.
func tryDequeue(t *testing.T, b *broker.EvalBroker) (string, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	e, tok, err := b.Dequeue(ctx, []string{"service"})
	if err != nil {
		return "", ""
	}
	return e.ID, tok
}

func TestWaitUntilHeldUntilDue(t *testing.T) {
	b, c := delayBroker(t)
	b.Enqueue(waitingEval("later", "a", c.Now().Add(30*time.Second)))
	s := b.Stats()
	if s.TotalDelayed != 1 || s.ByScheduler["service"].Delayed != 1 || s.TotalReady != 0 {
		t.Fatalf("stats %+v", s)
	}
	c.Advance(29 * time.Second)
	if id, _ := tryDequeue(t, b); id != "" {
		t.Fatalf("dequeued %s before its WaitUntil", id)
	}
	c.Advance(time.Second)
	if s := b.Stats(); s.TotalDelayed != 0 || s.TotalReady != 1 {
		t.Fatalf("stats after WaitUntil %+v", s)
	}
	if id, _ := tryDequeue(t, b); id != "later" {
		t.Fatalf("dequeued %q, want later", id)
	}
}

func TestWaitUntilOrderAndPast(t *testing.T) {
	b, c := delayBroker(t)
	now := c.Now()
	b.Enqueue(waitingEval("t20", "a", now.Add(20*time.Second)))
	b.Enqueue(waitingEval("t10", "b", now.Add(10*time.Second)))
	b.Enqueue(waitingEval("t10", "b", now.Add(10*time.Second))) // duplicate: ignored
	b.Enqueue(waitingEval("past", "c", now.Add(-time.Second)))
	if s := b.Stats(); s.TotalDelayed != 2 || s.TotalReady != 1 {
		t.Fatalf("stats %+v", s)
	}
	if id, _ := tryDequeue(t, b); id != "past" {
		t.Fatalf("dequeued %q, want past", id)
	}
	c.Advance(10 * time.Second)
	if id, _ := tryDequeue(t, b); id != "t10" {
		t.Fatalf("dequeued %q, want t10", id)
	}
	if id, _ := tryDequeue(t, b); id != "" {
		t.Fatalf("dequeued %q early", id)
	}
	c.Advance(10 * time.Second)
	if id, _ := tryDequeue(t, b); id != "t20" {
		t.Fatalf("dequeued %q, want t20", id)
	}
	if n := c.Pending(); n != 3 { // the nack timers of the three deliveries
		t.Fatalf("%d timers pending, want 3", n)
	}
}

// A held eval does not hold up its job; once due it waits behind the job's
// outstanding eval like any other.
func TestWaitUntilDoesNotBlockJob(t *testing.T) {
	b, c := delayBroker(t)
	b.Enqueue(waitingEval("followup", "a", c.Now().Add(5*time.Second)))
	b.Enqueue(waitingEval("now", "a", time.Time{}))
	id, tok := tryDequeue(t, b)
	if id != "now" {
		t.Fatalf("dequeued %q, want now", id)
	}
	c.Advance(5 * time.Second)
	if s := b.Stats(); s.TotalBlocked != 1 || s.TotalDelayed != 0 {
		t.Fatalf("stats %+v", s)
	}
	if err := b.Ack(id, tok); err != nil {
		t.Fatal(err)
	}
	if id, _ := tryDequeue(t, b); id != "followup" {
		t.Fatalf("dequeued %q, want followup", id)
	}
}

func TestWaitUntilFlushedOnDisable(t *testing.T) {
	b, c := delayBroker(t)
	b.Enqueue(waitingEval("later", "a", c.Now().Add(time.Minute)))
	b.SetEnabled(false)
	if s := b.Stats(); s.TotalDelayed != 0 {
		t.Fatalf("stats after disable %+v", s)
	}
	if n := c.Pending(); n != 0 {
		t.Fatalf("%d timers pending after disable", n)
	}
	b.SetEnabled(true)
	c.Advance(2 * time.Minute)
	if id, _ := tryDequeue(t, b); id != "" {
		t.Fatalf("flushed eval %q came back", id)
	}
	// The new leader enqueues it again from the state store.
	b.Enqueue(waitingEval("later", "a", c.Now().Add(time.Minute)))
	c.Advance(time.Minute)
	if id, _ := tryDequeue(t, b); id != "later" {
		t.Fatalf("dequeued %q, want later", id)
	}
}

// An earlier eval arriving re-arms the one timer.
func TestWaitUntilEarlierRearms(t *testing.T) {
	b, c := delayBroker(t)
	now := c.Now()
	b.Enqueue(waitingEval("late", "a", now.Add(time.Hour)))
	b.Enqueue(waitingEval("early", "b", now.Add(time.Second)))
	if n := c.Pending(); n != 1 {
		t.Fatalf("%d wait timers, want 1", n)
	}
	c.Advance(time.Second)
	id, tok := tryDequeue(t, b)
	if id != "early" {
		t.Fatalf("dequeued %q, want early", id)
	}
	if err := b.Ack(id, tok); err != nil {
		t.Fatal(err)
	}
	c.Advance(time.Hour)
	if id, _ := tryDequeue(t, b); id != "late" {
		t.Fatalf("dequeued %q, want late", id)
	}
}
