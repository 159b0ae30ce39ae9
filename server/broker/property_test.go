package broker_test

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/nomadish/nomadish/internal/clock/clocktest"
	"github.com/nomadish/nomadish/server/broker"
	"github.com/nomadish/nomadish/structs"
	"pgregory.net/rapid"
)

const (
	propNackTimeout = 5 * time.Second
	propLimit       = 3
)

type delivery struct {
	job, token string
	at         time.Time
}

// brokerModel drives an EvalBroker with a fake clock and tracks what must
// be true of it.
type brokerModel struct {
	b      *broker.EvalBroker
	clock  *clocktest.FakeClock
	seq    uint64
	jobOf  map[string]string
	deliv  map[string]int       // eval ID -> deliveries since last ack
	out    map[string]*delivery // outstanding deliveries
	acked  map[string]bool
	failed map[string]bool
	expect int // failed evals expected on FailedEvals
}

func newModel() *brokerModel {
	c := clocktest.NewFakeClock()
	b := broker.NewEvalBroker(broker.BrokerConfig{
		NackTimeout: propNackTimeout, DeliveryLimit: propLimit, Clock: c,
		InitialNackDelay: time.Second, SubsequentNackDelay: 3 * time.Second,
	})
	b.SetEnabled(true)
	return &brokerModel{
		b: b, clock: c, jobOf: map[string]string{}, deliv: map[string]int{},
		out: map[string]*delivery{}, acked: map[string]bool{}, failed: map[string]bool{},
	}
}

func (m *brokerModel) enqueue(t *rapid.T) {
	job := rapid.SampledFrom([]string{"a", "b", "c"}).Draw(t, "job")
	m.seq++
	e := &structs.Evaluation{
		ID: fmt.Sprintf("e%d", m.seq), Namespace: "default", JobID: job, Type: "service",
		Priority: rapid.IntRange(1, 3).Draw(t, "prio"), Status: structs.EvalStatusPending, CreateIndex: m.seq,
	}
	m.jobOf[e.ID] = job
	m.b.Enqueue(e)
}

func (m *brokerModel) dequeue(t *rapid.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	e, tok, err := m.b.Dequeue(ctx, []string{"service"})
	if err != nil {
		return // nothing ready
	}
	for id, d := range m.out {
		if d.job == e.JobID {
			t.Fatalf("delivered %s while %s of job %s is unacked", e.ID, id, e.JobID)
		}
	}
	if m.acked[e.ID] || m.failed[e.ID] {
		t.Fatalf("delivered finished eval %s", e.ID)
	}
	m.deliv[e.ID]++
	m.out[e.ID] = &delivery{job: e.JobID, token: tok, at: m.clock.Now()}
}

func (m *brokerModel) pick(t *rapid.T) (string, *delivery) {
	if len(m.out) == 0 {
		t.Skip("nothing outstanding")
	}
	ids := make([]string, 0, len(m.out))
	for id := range m.out {
		ids = append(ids, id)
	}
	// Map order is random; sort so rapid can shrink deterministically.
	sort.Strings(ids)
	id := rapid.SampledFrom(ids).Draw(t, "eval")
	return id, m.out[id]
}

func (m *brokerModel) ack(t *rapid.T) {
	id, d := m.pick(t)
	if err := m.b.Ack(id, d.token); err != nil {
		t.Fatalf("ack %s: %v", id, err)
	}
	delete(m.out, id)
	delete(m.deliv, id)
	m.acked[id] = true
}

func (m *brokerModel) nack(t *rapid.T) {
	id, d := m.pick(t)
	if err := m.b.Nack(id, d.token); err != nil {
		t.Fatalf("nack %s: %v", id, err)
	}
	m.ended(id)
}

// ended records a delivery ended by nack or timeout.
func (m *brokerModel) ended(id string) {
	delete(m.out, id)
	if m.deliv[id] >= propLimit {
		delete(m.deliv, id)
		m.expect++
	}
}

func (m *brokerModel) reset(t *rapid.T) {
	id, d := m.pick(t)
	if err := m.b.OutstandingReset(id, d.token); err != nil {
		t.Fatalf("reset %s: %v", id, err)
	}
	d.at = m.clock.Now()
}

func (m *brokerModel) advance(t *rapid.T) {
	m.clock.Advance(time.Duration(rapid.IntRange(0, 8).Draw(t, "secs")) * time.Second)
	now := m.clock.Now()
	for id, d := range m.out {
		if !d.at.Add(propNackTimeout).After(now) {
			m.ended(id)
		}
	}
}

// check receives the expected failed evals and checks that every enqueued
// eval is acked, failed or still in the broker.
func (m *brokerModel) check(t *rapid.T) {
	for ; m.expect > 0; m.expect-- {
		select {
		case e := <-m.b.FailedEvals():
			if m.failed[e.ID] || m.acked[e.ID] {
				t.Fatalf("eval %s failed twice or after ack", e.ID)
			}
			m.failed[e.ID] = true
		case <-time.After(10 * time.Second): // a safety net, not a wait
			t.Fatalf("expected %d more failed evals", m.expect)
		}
	}
	s := m.b.Stats()
	inBroker := s.TotalReady + s.TotalUnacked + s.TotalBlocked + s.TotalWaiting
	if want := len(m.jobOf) - len(m.acked) - len(m.failed); inBroker != want {
		t.Fatalf("broker holds %d evals, want %d (stats %+v)", inBroker, want, s)
	}
	if s.TotalUnacked != len(m.out) {
		t.Fatalf("unacked %d, model %d", s.TotalUnacked, len(m.out))
	}
}

// drain delivers and acks everything left.
func (m *brokerModel) drain(t *rapid.T) {
	for i := 0; len(m.acked)+len(m.failed) < len(m.jobOf); i++ {
		if i > 10*len(m.jobOf)+100 {
			t.Fatalf("could not drain: %+v", m.b.Stats())
		}
		for id, d := range m.out {
			if err := m.b.Ack(id, d.token); err != nil {
				t.Fatalf("ack %s: %v", id, err)
			}
			delete(m.out, id)
			m.acked[id] = true
		}
		m.dequeue(t)
		if len(m.out) == 0 {
			m.clock.Advance(3 * time.Second)
		}
		m.check(t)
	}
}

func TestPropertyNoLostEvalOneInFlightPerJob(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := newModel()
		defer m.b.SetEnabled(false)
		t.Repeat(map[string]func(*rapid.T){
			"enqueue": m.enqueue,
			"dequeue": m.dequeue,
			"ack":     m.ack,
			"nack":    m.nack,
			"reset":   m.reset,
			"advance": m.advance,
			"":        m.check,
		})
		m.drain(t)
	})
}
