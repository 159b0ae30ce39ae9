package broker

import (
	"errors"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/nomadish/nomadish/internal/clock"
)

// Sentinel errors returned by the broker.
var (
	// ErrNotEnabled is returned by Dequeue (also to callers already blocked
	// in it) once the broker is disabled, i.e. this server is not the leader.
	ErrNotEnabled = errors.New("broker: eval broker disabled")
	// ErrNotOutstanding is returned by Ack, Nack and OutstandingReset for an
	// eval that is not delivered and unacknowledged (already acked, nacked,
	// timed out or flushed).
	ErrNotOutstanding = errors.New("broker: evaluation is not outstanding")
	// ErrTokenMismatch is returned when the token is not the one of the
	// current delivery (the caller's delivery timed out and was redelivered).
	ErrTokenMismatch = errors.New("broker: evaluation token does not match")
)

// Defaults for BrokerConfig.
const (
	DefaultNackTimeout         = 60 * time.Second
	DefaultDeliveryLimit       = 3
	DefaultInitialNackDelay    = 1 * time.Second
	DefaultSubsequentNackDelay = 20 * time.Second
)

// BrokerConfig configures an EvalBroker. Zero fields take the defaults above.
type BrokerConfig struct {
	// NackTimeout is how long a delivery may stay unacknowledged before it
	// is treated as nacked. OutstandingReset restarts it.
	NackTimeout time.Duration
	// DeliveryLimit is how many times an eval is delivered before it is
	// handed to FailedEvals instead of redelivered.
	DeliveryLimit int
	// InitialNackDelay is the wait before redelivering after the first nack;
	// SubsequentNackDelay after later ones.
	InitialNackDelay    time.Duration
	SubsequentNackDelay time.Duration
	Clock               clock.Clock
	Logger              hclog.Logger
}

func (c BrokerConfig) withDefaults() BrokerConfig {
	if c.NackTimeout <= 0 {
		c.NackTimeout = DefaultNackTimeout
	}
	if c.DeliveryLimit <= 0 {
		c.DeliveryLimit = DefaultDeliveryLimit
	}
	if c.InitialNackDelay <= 0 {
		c.InitialNackDelay = DefaultInitialNackDelay
	}
	if c.SubsequentNackDelay <= 0 {
		c.SubsequentNackDelay = DefaultSubsequentNackDelay
	}
	if c.Clock == nil {
		c.Clock = clock.Real{}
	}
	if c.Logger == nil {
		c.Logger = hclog.NewNullLogger()
	}
	return c
}

// nackDelay is the wait before redelivering an eval delivered n times.
func (c BrokerConfig) nackDelay(deliveries int) time.Duration {
	if deliveries <= 1 {
		return c.InitialNackDelay
	}
	return c.SubsequentNackDelay
}
