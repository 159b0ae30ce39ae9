package structs

import (
	"errors"
	"fmt"
	"strings"
)

// Error codes carried across RPC and HTTP; the HTTP layer maps them to
// statuses (see agent/http.go).
const (
	ErrCodeBadRequest = 400
	ErrCodeNotFound   = 404
	ErrCodeConflict   = 409
	ErrCodeTooLarge   = 413
	// ErrCodeTooManyRequests refuses work that would exceed a concurrency
	// bound (one snapshot restore at a time).
	ErrCodeTooManyRequests = 429
	ErrCodeInternal        = 500
	ErrCodeNoLeader        = 503
)

// CodedError is an error with a code that survives RPC: net/rpc carries only
// the message, so the message is prefixed with "<code>: " and NewCodedErrorFromRPC
// rebuilds it on the other side.
type CodedError struct {
	Code    int
	Message string
}

func (e *CodedError) Error() string { return fmt.Sprintf("%d: %s", e.Code, e.Message) }

// NewCodedError returns a coded error.
func NewCodedError(code int, format string, args ...any) *CodedError {
	return &CodedError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of err (ErrCodeInternal if it has none) and its
// message without the code prefix.
func ErrorCode(err error) (int, string) {
	var ce *CodedError
	if errors.As(err, &ce) {
		return ce.Code, ce.Message
	}
	return ErrCodeInternal, err.Error()
}

// DecodeRPCError turns an error string received over RPC back into a coded
// error when it carries a "<code>: " prefix written by CodedError.Error.
func DecodeRPCError(msg string) error {
	if len(msg) > 5 && msg[3] == ':' && msg[4] == ' ' {
		code := 0
		for _, c := range msg[:3] {
			if c < '0' || c > '9' {
				return errors.New(msg)
			}
			code = code*10 + int(c-'0')
		}
		return &CodedError{Code: code, Message: msg[5:]}
	}
	return errors.New(msg)
}

// MultiError collects several errors into one.
type MultiError struct{ Errors []error }

// Add appends err if non-nil.
func (m *MultiError) Add(err error) {
	if err != nil {
		m.Errors = append(m.Errors, err)
	}
}

// ErrorOrNil returns nil when empty.
func (m *MultiError) ErrorOrNil() error {
	if m == nil || len(m.Errors) == 0 {
		return nil
	}
	return m
}

func (m *MultiError) Error() string {
	if len(m.Errors) == 1 {
		return m.Errors[0].Error()
	}
	parts := make([]string, len(m.Errors))
	for i, e := range m.Errors {
		parts[i] = "* " + e.Error()
	}
	return fmt.Sprintf("%d errors occurred:\n\t%s", len(m.Errors), strings.Join(parts, "\n\t"))
}

// Unwrap exposes the collected errors to errors.Is/As.
func (m *MultiError) Unwrap() []error { return m.Errors }

// Sentinel errors shared by server endpoints.
var (
	ErrNoLeader      = NewCodedError(ErrCodeNoLeader, "No cluster leader")
	ErrJobNotFound   = NewCodedError(ErrCodeNotFound, "job not found")
	ErrAllocNotFound = NewCodedError(ErrCodeNotFound, "alloc not found")
	ErrNodeNotFound  = NewCodedError(ErrCodeNotFound, "node not found")
	ErrEvalNotFound  = NewCodedError(ErrCodeNotFound, "eval not found")
	// ErrSnapshotRestoreInProgress refuses a snapshot restore while another
	// one is being received or applied (HTTP 429): each holds its archive,
	// up to MaxSnapshotArchiveBytes, in memory.
	ErrSnapshotRestoreInProgress = NewCodedError(ErrCodeTooManyRequests,
		"a snapshot restore is already in progress; retry when it has finished")
)
