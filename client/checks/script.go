package checks

import (
	"context"
	"errors"
	"fmt"

	"github.com/nomadish/nomadish/structs"
)

// scriptCheck is a script check: its command runs inside the task through
// the driver's exec; exit 0 is passing, 1 warning, anything else (or no
// run at all) critical, as Consul's script checks.
type scriptCheck struct {
	command []string
	exec    Execer
}

func (s *scriptCheck) Check(ctx context.Context) Result {
	if s.exec == nil {
		return Result{Status: structs.CheckCritical, Output: "script check: the task cannot run commands"}
	}
	var out LimitedBuffer
	code, err := s.exec.Exec(ctx, s.command, &out)
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return Result{Status: structs.CheckCritical, Output: fmt.Sprintf("script check %q: timed out", s.command[0])}
	case err != nil:
		return Result{Status: structs.CheckCritical, Output: fmt.Sprintf("script check %q: %v", s.command[0], err)}
	}
	res := Result{Output: out.String()}
	switch code {
	case 0:
		res.Status = structs.CheckPassing
	case 1:
		res.Status = structs.CheckWarning
	default:
		res.Status = structs.CheckCritical
	}
	return res
}
