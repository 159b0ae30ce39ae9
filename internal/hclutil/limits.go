package hclutil

import (
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/hcl/v2"
)

// Default evaluation limits of one parse (a job file with its variables, or
// one agent configuration file). They are far above what a real job needs
// and far below what would hurt an agent.
const (
	// MaxElements bounds the elements (list, set, tuple, map and object
	// members, counted through every level) of any one value a function
	// returns or an attribute holds.
	MaxElements = 100_000
	// MaxStringBytes bounds the bytes of any one string, and the sum of
	// the string bytes of one value.
	MaxStringBytes = 1 << 20
	// MaxWork bounds the work of one parse: the elements every for
	// expression iterates over, every function returns and every template
	// interpolation inserts (one per 1 KiB) added up.
	MaxWork = 250_000
	// EvalTimeout bounds the wall-clock time of evaluating one parse.
	EvalTimeout = 2 * time.Second
)

// ErrLimit matches (errors.Is) every error a Limiter returns.
var ErrLimit = errors.New("hclutil: evaluation limit exceeded")

// limitError is a limit's message for users; it Is ErrLimit.
type limitError struct{ msg string }

func (e *limitError) Error() string        { return e.msg }
func (e *limitError) Is(target error) bool { return target == ErrLimit }

// limitf makes a limitError; its message reads after "failed: " in an HCL
// function-call diagnostic.
func limitf(format string, args ...any) error {
	return &limitError{msg: "evaluation limit: " + fmt.Sprintf(format, args...)}
}

// Limits are the bounds a Limiter enforces; zero fields take the defaults
// above.
type Limits struct {
	MaxDepth       int
	MaxElements    int
	MaxStringBytes int
	MaxWork        int
	Timeout        time.Duration
}

func (l Limits) withDefaults() Limits {
	if l.MaxDepth <= 0 {
		l.MaxDepth = MaxDepth
	}
	if l.MaxElements <= 0 {
		l.MaxElements = MaxElements
	}
	if l.MaxStringBytes <= 0 {
		l.MaxStringBytes = MaxStringBytes
	}
	if l.MaxWork <= 0 {
		l.MaxWork = MaxWork
	}
	if l.Timeout <= 0 {
		l.Timeout = EvalTimeout
	}
	return l
}

// Limiter enforces Limits during one parse. It is not safe for concurrent
// use; make one per parse with NewLimiter.
type Limiter struct {
	Limits
	deadline  time.Time
	now       func() time.Time
	work      int
	tmplBytes int
	// tripped is the first limit error; once set, evaluation stops:
	// every later check returns it.
	tripped error
}

// NewLimiter starts the clock of one parse.
func NewLimiter(l Limits) *Limiter {
	return newLimiterClock(l, time.Now)
}

func newLimiterClock(l Limits, now func() time.Time) *Limiter {
	l = l.withDefaults()
	return &Limiter{Limits: l, deadline: now().Add(l.Timeout), now: now}
}

// Check returns an error wrapping ErrLimit once the evaluation time is up
// or any limit has been exceeded.
func (l *Limiter) Check() error {
	if l.tripped == nil && l.now().After(l.deadline) {
		l.trip(limitf("evaluation took longer than %s", l.Timeout))
	}
	return l.tripped
}

// Tripped returns the first limit error of the parse, or nil. A caller
// fails the parse on it even when try or can swallowed the error.
func (l *Limiter) Tripped() error { return l.tripped }

// trip records the first limit exceeded and returns err.
func (l *Limiter) trip(err error) error {
	if l.tripped == nil {
		l.tripped = err
	}
	return err
}

// Spend adds n units of work and returns an error wrapping ErrLimit when
// the parse's total goes over MaxWork (or its time is up).
func (l *Limiter) Spend(n int, what string) error {
	if err := l.Check(); err != nil {
		return err
	}
	if n > l.MaxWork-l.work {
		return l.trip(limitf("%s would bring the work of this file over %d elements", what, l.MaxWork))
	}
	l.work += n
	return l.Check()
}

// Diagnostic is the error diagnostic for a limit hit at rng.
func (l *Limiter) Diagnostic(rng hcl.Range, err error) *hcl.Diagnostic {
	r := rng
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Evaluation limit exceeded", Detail: err.Error() + ".", Subject: &r}
}
