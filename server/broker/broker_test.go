package broker

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/nomadish/nomadish/structs"
)

func mkEval(job string, prio int, createIndex uint64) *structs.Evaluation {
	return &structs.Evaluation{
		ID: fmt.Sprintf("%s-%d", job, createIndex), Namespace: "default", JobID: job,
		Type: "service", Priority: prio, Status: structs.EvalStatusPending, CreateIndex: createIndex,
	}
}

func testBroker(t *testing.T) *EvalBroker {
	t.Helper()
	b := NewEvalBroker(BrokerConfig{
		NackTimeout: 5 * time.Second, DeliveryLimit: 3,
		InitialNackDelay: time.Second, SubsequentNackDelay: 2 * time.Second,
	})
	b.SetEnabled(true)
	t.Cleanup(func() { b.SetEnabled(false) })
	return b
}

// dequeueNow dequeues without blocking (fails the test when nothing is ready).
func dequeueNow(t *testing.T, b *EvalBroker, scheds ...string) (*structs.Evaluation, string) {
	t.Helper()
	if len(scheds) == 0 {
		scheds = []string{"service"}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b.mu.Lock()
	ready := false
	for _, s := range scheds {
		if q := b.core.ready[s]; q != nil && q.Len() > 0 {
			ready = true
		}
	}
	b.mu.Unlock()
	if !ready {
		t.Fatalf("nothing ready for %v; stats %+v", scheds, b.Stats())
	}
	e, tok, err := b.Dequeue(ctx, scheds)
	if err != nil {
		t.Fatalf("dequeue: %v", err)
	}
	return e, tok
}

func TestPriorityOrder(t *testing.T) {
	b := testBroker(t)
	b.Enqueue(mkEval("a", 50, 10))
	b.Enqueue(mkEval("b", 80, 12))
	b.Enqueue(mkEval("c", 50, 5))
	b.Enqueue(mkEval("d", 80, 11))
	var got []string
	for range 4 {
		e, tok := dequeueNow(t, b)
		got = append(got, e.ID)
		if err := b.Ack(e.ID, tok); err != nil {
			t.Fatal(err)
		}
	}
	want := "[d-11 b-12 c-5 a-10]"
	if fmt.Sprint(got) != want {
		t.Fatalf("order %v, want %s", got, want)
	}
}

func TestDequeueOnlyGivenSchedulers(t *testing.T) {
	b := testBroker(t)
	e := mkEval("a", 50, 1)
	e.Type = "batch"
	b.Enqueue(e)
	b.Enqueue(mkEval("b", 10, 2))
	got, _ := dequeueNow(t, b, "service")
	if got.ID != "b-2" {
		t.Fatalf("got %s", got.ID)
	}
	got, _ = dequeueNow(t, b, "service", "batch")
	if got.ID != "a-1" {
		t.Fatalf("got %s", got.ID)
	}
}

func TestOneInFlightPerJob(t *testing.T) {
	b := testBroker(t)
	b.Enqueue(mkEval("a", 50, 1))
	b.Enqueue(mkEval("a", 50, 2))
	b.Enqueue(mkEval("a", 90, 3))
	if s := b.Stats(); s.TotalReady != 1 || s.TotalBlocked != 2 {
		t.Fatalf("stats %+v", s)
	}
	e, tok := dequeueNow(t, b)
	if s := b.Stats(); s.TotalReady != 0 || s.TotalUnacked != 1 {
		t.Fatalf("stats %+v", s)
	}
	if err := b.Ack(e.ID, tok); err != nil {
		t.Fatal(err)
	}
	// Pending evals of a job are kept, in arrival order.
	e, tok = dequeueNow(t, b)
	if e.ID != "a-2" {
		t.Fatalf("got %s want a-2", e.ID)
	}
	if err := b.Ack(e.ID, tok); err != nil {
		t.Fatal(err)
	}
	e, _ = dequeueNow(t, b)
	if e.ID != "a-3" {
		t.Fatalf("got %s want a-3", e.ID)
	}
}

func TestDuplicateEnqueueIgnored(t *testing.T) {
	b := testBroker(t)
	e := mkEval("a", 50, 1)
	b.Enqueue(e)
	b.Enqueue(e)
	if s := b.Stats(); s.TotalReady != 1 || s.TotalBlocked != 0 {
		t.Fatalf("stats %+v", s)
	}
	// While outstanding, the same ID queues to run again after the ack.
	got, tok := dequeueNow(t, b)
	b.Enqueue(e)
	if err := b.Ack(got.ID, tok); err != nil {
		t.Fatal(err)
	}
	if s := b.Stats(); s.TotalReady != 1 {
		t.Fatalf("stats %+v", s)
	}
}

func TestAckNackErrors(t *testing.T) {
	b := testBroker(t)
	b.Enqueue(mkEval("a", 50, 1))
	e, tok := dequeueNow(t, b)
	if err := b.Ack(e.ID, "wrong"); !errors.Is(err, ErrTokenMismatch) {
		t.Fatalf("ack bad token: %v", err)
	}
	if err := b.Nack("nope", tok); !errors.Is(err, ErrNotOutstanding) {
		t.Fatalf("nack unknown: %v", err)
	}
	if err := b.Ack(e.ID, tok); err != nil {
		t.Fatal(err)
	}
	if err := b.Ack(e.ID, tok); !errors.Is(err, ErrNotOutstanding) {
		t.Fatalf("second ack: %v", err)
	}
}

func TestDequeueBlocksUntilReady(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := testBroker(t)
		got := make(chan string, 1)
		go func() {
			e, _, err := b.Dequeue(context.Background(), []string{"service"})
			if err != nil {
				got <- err.Error()
				return
			}
			got <- e.ID
		}()
		synctest.Wait()
		select {
		case id := <-got:
			t.Fatalf("dequeued %s before enqueue", id)
		default:
		}
		b.Enqueue(mkEval("a", 50, 1))
		if id := <-got; id != "a-1" {
			t.Fatalf("got %s", id)
		}
	})
}

func TestDequeueContextEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := testBroker(t)
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_, _, err := b.Dequeue(ctx, []string{"service"})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err %v", err)
		}
	})
}

func TestNackRedeliversAfterDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := testBroker(t)
		b.Enqueue(mkEval("a", 50, 1))
		b.Enqueue(mkEval("a", 50, 2))
		e, tok := dequeueNow(t, b)
		start := time.Now()
		if err := b.Nack(e.ID, tok); err != nil {
			t.Fatal(err)
		}
		if s := b.Stats(); s.TotalReady != 0 || s.TotalWaiting != 1 || s.TotalBlocked != 1 {
			t.Fatalf("stats after nack %+v", s)
		}
		e2, tok2, err := b.Dequeue(context.Background(), []string{"service"})
		if err != nil || e2.ID != "a-1" {
			t.Fatalf("redelivery %v %v", e2, err)
		}
		if d := time.Since(start); d != time.Second {
			t.Fatalf("first nack delay %v", d)
		}
		start = time.Now()
		if err := b.Nack(e2.ID, tok2); err != nil {
			t.Fatal(err)
		}
		e3, _, err := b.Dequeue(context.Background(), []string{"service"})
		if err != nil || e3.ID != "a-1" {
			t.Fatalf("redelivery %v %v", e3, err)
		}
		if d := time.Since(start); d != 2*time.Second {
			t.Fatalf("subsequent nack delay %v", d)
		}
	})
}

func TestNackTimeoutAndOutstandingReset(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := testBroker(t)
		b.Enqueue(mkEval("a", 50, 1))
		e, tok := dequeueNow(t, b)
		time.Sleep(4 * time.Second)
		if err := b.OutstandingReset(e.ID, tok); err != nil {
			t.Fatal(err)
		}
		time.Sleep(4 * time.Second) // 8s after delivery, 4s after the reset
		synctest.Wait()
		if s := b.Stats(); s.TotalUnacked != 1 {
			t.Fatalf("reset did not extend the timer: %+v", s)
		}
		time.Sleep(time.Second + time.Millisecond)
		synctest.Wait()
		if s := b.Stats(); s.TotalUnacked != 0 || s.TotalWaiting != 1 {
			t.Fatalf("timeout did not nack: %+v", s)
		}
		if err := b.Ack(e.ID, tok); !errors.Is(err, ErrNotOutstanding) {
			t.Fatalf("late ack: %v", err)
		}
		e2, tok2, err := b.Dequeue(context.Background(), []string{"service"})
		if err != nil || e2.ID != e.ID || tok2 == tok {
			t.Fatalf("redelivery %v %q %v", e2, tok2, err)
		}
		if err := b.Ack(e.ID, tok); !errors.Is(err, ErrTokenMismatch) {
			t.Fatalf("stale token ack: %v", err)
		}
	})
}

func TestDeliveryLimitFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := testBroker(t)
		b.Enqueue(mkEval("a", 50, 1))
		b.Enqueue(mkEval("a", 50, 2))
		for i := range 3 {
			e, tok, err := b.Dequeue(context.Background(), []string{"service"})
			if err != nil || e.ID != "a-1" {
				t.Fatalf("delivery %d: %v %v", i, e, err)
			}
			if err := b.Nack(e.ID, tok); err != nil {
				t.Fatal(err)
			}
		}
		failed := <-b.FailedEvals()
		if failed.ID != "a-1" {
			t.Fatalf("failed %s", failed.ID)
		}
		// The job's next eval is released.
		e, _ := dequeueNow(t, b)
		if e.ID != "a-2" {
			t.Fatalf("next %s", e.ID)
		}
	})
}

func TestDisableFlushesAndWakes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := testBroker(t)
		b.Enqueue(mkEval("a", 50, 1))
		b.Enqueue(mkEval("a", 50, 2))
		b.Enqueue(mkEval("b", 50, 3))
		e, tok := dequeueNow(t, b)
		errc := make(chan error, 1)
		go func() {
			_, _, err := b.Dequeue(context.Background(), []string{"batch"})
			errc <- err
		}()
		synctest.Wait()
		b.SetEnabled(false)
		if err := <-errc; !errors.Is(err, ErrNotEnabled) {
			t.Fatalf("blocked dequeue got %v", err)
		}
		if s := b.Stats(); s.TotalReady+s.TotalUnacked+s.TotalBlocked+s.TotalWaiting != 0 {
			t.Fatalf("not flushed: %+v", s)
		}
		if err := b.Ack(e.ID, tok); !errors.Is(err, ErrNotOutstanding) {
			t.Fatalf("ack after flush: %v", err)
		}
		b.Enqueue(mkEval("c", 50, 4))
		b.SetEnabled(true)
		if s := b.Stats(); s.TotalReady != 0 {
			t.Fatalf("enqueue while disabled was kept: %+v", s)
		}
		// No nack timer of the old epoch fires into the new one.
		time.Sleep(time.Minute)
		synctest.Wait()
		if s := b.Stats(); s.TotalWaiting != 0 {
			t.Fatalf("stale timer: %+v", s)
		}
	})
}

func TestDisableDropsUndeliveredFailed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := testBroker(t)
		b.Enqueue(mkEval("a", 50, 1))
		for range 3 {
			e, tok, err := b.Dequeue(context.Background(), []string{"service"})
			if err != nil {
				t.Fatal(err)
			}
			if err := b.Nack(e.ID, tok); err != nil {
				t.Fatal(err)
			}
		}
		// Nobody reads FailedEvals; disabling must stop the forwarder
		// (synctest fails the test on a leaked blocked goroutine).
		b.SetEnabled(false)
	})
}

func TestTerminalEvalIgnoredAndStatsPerScheduler(t *testing.T) {
	b := testBroker(t)
	done := mkEval("z", 50, 9)
	done.Status = structs.EvalStatusComplete
	b.Enqueue(done)
	b.Enqueue(mkEval("a", 50, 1))
	b.Enqueue(mkEval("a", 50, 2))
	batch := mkEval("b", 50, 3)
	batch.Type = "batch"
	b.Enqueue(batch)
	e, tok := dequeueNow(t, b)
	if err := b.Nack(e.ID, tok); err != nil {
		t.Fatal(err)
	}
	s := b.Stats()
	want := map[string]SchedulerStats{"service": {Blocked: 1, Waiting: 1}, "batch": {Ready: 1}}
	if fmt.Sprint(s.ByScheduler) != fmt.Sprint(want) || s.TotalReady != 1 {
		t.Fatalf("stats %+v", s)
	}
}
