package broker

import (
	"context"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/nomadish/nomadish/internal/clock"
	"github.com/nomadish/nomadish/structs"
)

// EvalBroker hands pending evaluations to scheduler workers on the leader.
// All methods are safe for concurrent use.
type EvalBroker struct {
	cfg      BrokerConfig
	logger   hclog.Logger
	failedCh chan *structs.Evaluation // unbuffered; fed by forwardFailed

	// mu guards every field below, and core. Timer callbacks and the failed
	// forwarder take it too; nothing blocks while holding it.
	mu      sync.Mutex
	enabled bool
	epoch   uint64 // bumped on disable, so callbacks of a flushed epoch do nothing
	core    *core
	timers  map[string]*nackTimer  // eval ID -> nack timer of its outstanding delivery
	delays  map[string]clock.Timer // eval ID -> redelivery timer of a delayed eval
	wait    clock.Timer            // fires at the earliest WaitUntil held; nil when none
	waitAt  time.Time              // when wait fires
	waitGen uint64                 // bumped per wait timer, so a stale callback does nothing
	notify  chan struct{}          // closed (and replaced) when an eval gets ready or the broker is disabled
	failed  []*structs.Evaluation  // over the delivery limit, not yet taken from failedCh
	fwding  bool                   // a forwardFailed goroutine is running for this epoch
	stopFwd chan struct{}          // closed on disable to stop the forwarder
}

type nackTimer struct {
	t     clock.Timer
	token string
}

// NewEvalBroker returns a disabled broker.
func NewEvalBroker(cfg BrokerConfig) *EvalBroker {
	cfg = cfg.withDefaults()
	return &EvalBroker{
		cfg:      cfg,
		logger:   cfg.Logger.Named("eval_broker"),
		failedCh: make(chan *structs.Evaluation),
		core:     newCore(cfg.DeliveryLimit),
		timers:   map[string]*nackTimer{},
		delays:   map[string]clock.Timer{},
		notify:   make(chan struct{}),
		stopFwd:  make(chan struct{}),
	}
}

// SetEnabled turns the broker on (on leadership gain) or off (on loss).
// Disabling flushes every eval, stops every timer, drops undelivered failed
// evals and wakes blocked Dequeue callers with ErrNotEnabled. The new
// leader re-enqueues pending evals from the state store.
func (b *EvalBroker) SetEnabled(enabled bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if enabled == b.enabled {
		return
	}
	b.enabled = enabled
	if enabled {
		b.stopFwd = make(chan struct{})
		return
	}
	b.epoch++
	for _, t := range b.timers {
		t.t.Stop()
	}
	for _, t := range b.delays {
		t.Stop()
	}
	b.timers = map[string]*nackTimer{}
	b.delays = map[string]clock.Timer{}
	if b.wait != nil {
		b.wait.Stop()
		b.wait = nil
	}
	b.core.flush()
	b.failed = nil
	b.fwding = false
	close(b.stopFwd)
	b.wakeLocked()
}

// Enabled reports whether the broker is enabled.
func (b *EvalBroker) Enabled() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.enabled
}

// wakeLocked wakes every Dequeue caller waiting for a change.
func (b *EvalBroker) wakeLocked() {
	close(b.notify)
	b.notify = make(chan struct{})
}

// Enqueue adds a pending eval (or a blocked one being unblocked). An eval
// whose WaitUntil is in the future is held until then (without holding up
// its job's other evals) and then enqueued as if it had just arrived. It
// waits behind its job's eval if that one is ready, delivered or waiting to
// be redelivered. An eval ID already queued or held is ignored; one that is
// currently delivered is queued to run again after it. Terminal evals are
// ignored, as is everything while disabled. The broker does not modify the
// eval; the caller must not either afterwards.
func (b *EvalBroker) Enqueue(eval *structs.Evaluation) {
	if eval.TerminalStatus() {
		b.logger.Warn("ignoring terminal evaluation", "eval_id", eval.ID, "status", eval.Status)
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.enabled {
		return
	}
	if eval.WaitUntil.After(b.cfg.Clock.Now()) {
		if b.core.hold(eval) {
			b.armWaitLocked()
		}
		return
	}
	if b.core.enqueue(eval) {
		b.wakeLocked()
	}
}

// armWaitLocked makes the wait timer fire at the earliest WaitUntil held,
// replacing a timer set for another time.
func (b *EvalBroker) armWaitLocked() {
	at, ok := b.core.nextWait()
	if b.wait != nil && (!ok || !at.Equal(b.waitAt)) {
		b.wait.Stop()
		b.wait = nil
	}
	if !ok || b.wait != nil {
		return
	}
	b.waitGen++
	epoch, gen := b.epoch, b.waitGen
	b.waitAt = at
	b.wait = b.cfg.Clock.AfterFunc(at.Sub(b.cfg.Clock.Now()), func() { b.waitDone(epoch, gen) })
}

// waitDone runs on the clock's goroutine when the earliest WaitUntil held
// has come: the evals due are enqueued and the timer re-armed.
func (b *EvalBroker) waitDone(epoch, gen uint64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if epoch != b.epoch || gen != b.waitGen {
		return
	}
	b.wait = nil
	if b.core.releaseDue(b.cfg.Clock.Now()) {
		b.wakeLocked()
	}
	b.armWaitLocked()
}

// Dequeue blocks until an eval for one of the schedulers is ready and
// delivers it, or until ctx ends (ctx.Err()) or the broker is disabled
// (ErrNotEnabled). The returned eval is the caller's copy. The caller must
// Ack or Nack it with the token before NackTimeout, or call
// OutstandingReset to get more time.
func (b *EvalBroker) Dequeue(ctx context.Context, schedulers []string) (*structs.Evaluation, string, error) {
	for {
		token := structs.GenerateUUID()
		b.mu.Lock()
		if !b.enabled {
			b.mu.Unlock()
			return nil, "", ErrNotEnabled
		}
		eval, ok := b.core.dequeue(schedulers, token)
		if ok {
			b.startNackTimerLocked(eval.ID, token)
			b.mu.Unlock()
			// The core's eval is never modified, so copying it unlocked is safe.
			return eval.Copy(), token, nil
		}
		wait := b.notify
		b.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, "", ctx.Err()
		}
	}
}

func (b *EvalBroker) startNackTimerLocked(id, token string) {
	nt := &nackTimer{token: token}
	epoch := b.epoch
	nt.t = b.cfg.Clock.AfterFunc(b.cfg.NackTimeout, func() { b.nackTimeout(id, nt, epoch) })
	b.timers[id] = nt
}

// nackTimeout runs on the clock's goroutine when a delivery was not acked
// in time: the delivery is nacked unless the timer was replaced or stopped.
func (b *EvalBroker) nackTimeout(id string, nt *nackTimer, epoch uint64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if epoch != b.epoch || b.timers[id] != nt {
		return
	}
	b.logger.Warn("evaluation not acknowledged in time, nacking", "eval_id", id, "timeout", b.cfg.NackTimeout)
	if err := b.nackLocked(id, nt.token); err != nil {
		b.logger.Error("nack on timeout", "eval_id", id, "error", err)
	}
}

// Ack reports that the eval was processed: it leaves the broker and its
// job's next eval, if any, becomes ready.
func (b *EvalBroker) Ack(evalID, token string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	released, err := b.core.ack(evalID, token)
	if err != nil {
		return err
	}
	b.stopNackTimerLocked(evalID)
	if released {
		b.wakeLocked()
	}
	return nil
}

func (b *EvalBroker) stopNackTimerLocked(id string) {
	if t, ok := b.timers[id]; ok {
		t.t.Stop()
		delete(b.timers, id)
	}
}

// Nack reports that processing failed: the eval is redelivered after a
// delay, or, once delivered DeliveryLimit times, sent to FailedEvals.
func (b *EvalBroker) Nack(evalID, token string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.nackLocked(evalID, token)
}

func (b *EvalBroker) nackLocked(id, token string) error {
	res, err := b.core.nack(id, token)
	if err != nil {
		return err
	}
	b.stopNackTimerLocked(id)
	if res.released {
		b.wakeLocked()
	}
	if res.failed != nil {
		b.logger.Warn("evaluation reached the delivery limit", "eval_id", id, "deliveries", res.deliveries)
		b.failed = append(b.failed, res.failed)
		b.startForwarderLocked()
		return nil
	}
	epoch := b.epoch
	b.delays[id] = b.cfg.Clock.AfterFunc(b.cfg.nackDelay(res.deliveries), func() { b.redeliver(id, epoch) })
	return nil
}

// redeliver runs on the clock's goroutine when a nacked eval's delay ends.
func (b *EvalBroker) redeliver(id string, epoch uint64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if epoch != b.epoch {
		return
	}
	delete(b.delays, id)
	if b.core.redeliver(id) {
		b.wakeLocked()
	}
}

// OutstandingReset restarts the nack timer of a delivery still being worked on.
func (b *EvalBroker) OutstandingReset(evalID, token string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, err := b.core.check(evalID, token); err != nil {
		return err
	}
	b.stopNackTimerLocked(evalID)
	b.startNackTimerLocked(evalID, token)
	return nil
}

// FailedEvals delivers evals that reached the delivery limit. The leader
// drains it while enabled and marks each eval failed through raft. Evals
// not yet received when the broker is disabled are dropped (they are still
// pending in the state store).
func (b *EvalBroker) FailedEvals() <-chan *structs.Evaluation { return b.failedCh }

// startForwarderLocked starts the goroutine that feeds failedCh, unless one
// runs already. It exits when the failed list is empty or on disable, so an
// idle broker has no goroutines.
func (b *EvalBroker) startForwarderLocked() {
	if b.fwding {
		return
	}
	b.fwding = true
	go b.forwardFailed(b.epoch, b.stopFwd)
}

func (b *EvalBroker) forwardFailed(epoch uint64, stop <-chan struct{}) {
	for {
		b.mu.Lock()
		if epoch != b.epoch {
			b.mu.Unlock()
			return
		}
		if len(b.failed) == 0 {
			b.fwding = false
			b.mu.Unlock()
			return
		}
		e := b.failed[0]
		b.mu.Unlock()
		select {
		case b.failedCh <- e:
		case <-stop:
			return
		}
		b.mu.Lock()
		if epoch == b.epoch {
			b.failed = b.failed[1:]
		}
		b.mu.Unlock()
	}
}

// Stats counts the broker's evals. Failed evals not yet received from
// FailedEvals are not counted.
func (b *EvalBroker) Stats() BrokerStats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.core.stats()
}
