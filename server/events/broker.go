package events

import (
	"context"
	"errors"
	"sync"

	"github.com/nomadish/nomadish/structs"
)

// Sentinel errors.
var (
	// ErrSlowConsumer ends a subscription that fell further behind than the
	// ring holds: the batches it had not read were overwritten.
	ErrSlowConsumer = errors.New("events: subscriber fell behind the event buffer and was dropped")
	// ErrClosed ends every subscription when the broker is closed.
	ErrClosed = errors.New("events: event broker closed")
)

// Broker is the ring of the last batches published. Publish is called by the
// state store from the FSM's goroutine; subscriptions read from their own
// goroutines. Publishing never waits on a reader: it writes one slot and
// wakes the waiting readers, and a reader the ring overtook is dropped.
type Broker struct {
	mu     sync.Mutex
	ring   []structs.Events // batch seq is at ring[seq%len(ring)]; guarded by mu
	next   uint64           // seq of the next batch published; guarded by mu
	wake   chan struct{}    // closed by the next Publish; nil when no reader waits; guarded by mu
	closed bool             // guarded by mu
}

// New returns a broker keeping the last size batches (size >= 1).
func New(size int) *Broker {
	if size < 1 {
		size = 1
	}
	return &Broker{ring: make([]structs.Events, size)}
}

// Publish appends the batch of one raft index. It takes ownership of evs
// (readers share it, read-only). O(1) and non-blocking whatever the readers
// do; it implements state.EventPublisher.
func (b *Broker) Publish(index uint64, evs []structs.Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	b.ring[b.next%uint64(len(b.ring))] = structs.Events{Index: index, Events: evs}
	b.next++
	if b.wake != nil {
		close(b.wake)
		b.wake = nil
	}
}

// Close ends every subscription with ErrClosed and drops later batches.
func (b *Broker) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	if b.wake != nil {
		close(b.wake)
		b.wake = nil
	}
}

// oldest is the seq of the oldest batch kept. Called with mu held.
func (b *Broker) oldest() uint64 {
	if n := uint64(len(b.ring)); b.next > n {
		return b.next - n
	}
	return 0
}

// Subscribe starts a subscription at the first batch kept whose index is at
// least req.Index (an index older than the ring starts at its oldest batch,
// as Nomad; 0 replays the whole ring). A bad request (see Request.Validate)
// is returned as is.
func (b *Broker) Subscribe(req Request) (*Subscription, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, ErrClosed
	}
	start := b.next
	for seq := b.oldest(); seq < b.next; seq++ {
		if b.ring[seq%uint64(len(b.ring))].Index >= req.Index {
			start = seq
			break
		}
	}
	return &Subscription{b: b, req: req, next: start}, nil
}

// read returns batch seq, or a channel closed when it may be published.
func (b *Broker) read(seq uint64) (structs.Events, <-chan struct{}, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.closed:
		return structs.Events{}, nil, ErrClosed
	case seq < b.oldest():
		return structs.Events{}, nil, ErrSlowConsumer
	case seq < b.next:
		return b.ring[seq%uint64(len(b.ring))], nil, nil
	}
	if b.wake == nil {
		b.wake = make(chan struct{})
	}
	return structs.Events{}, b.wake, nil
}

// Subscription reads batches in order. It is used by one goroutine.
type Subscription struct {
	b    *Broker
	req  Request
	next uint64 // seq of the next batch to read
}

// Next returns the next batch with at least one event the subscription's
// filters keep, holding only those (the events and payloads are shared:
// read-only). It waits for one until ctx ends (ctx's error), the broker
// closes (ErrClosed), or the subscription fell behind (ErrSlowConsumer:
// later calls return it too).
func (s *Subscription) Next(ctx context.Context) (structs.Events, error) {
	for {
		batch, wake, err := s.b.read(s.next)
		if err != nil {
			return structs.Events{}, err
		}
		if wake != nil {
			select {
			case <-wake:
				continue
			case <-ctx.Done():
				return structs.Events{}, ctx.Err()
			}
		}
		s.next++
		if kept := s.req.filter(batch.Events); len(kept) > 0 {
			return structs.Events{Index: batch.Index, Events: kept}, nil
		}
	}
}
