package taskrunner

import (
	"context"
	"fmt"
)

// checkRestartReason is the "Restart Signaled" event's reason of a
// check_restart (Nomad's wording).
func checkRestartReason(check string) string {
	return fmt.Sprintf("healthcheck: check %q unhealthy", check)
}

// RestartForCheck restarts the running task because its check stayed
// unhealthy (check_restart; the decision is client/checks.RestartWatch):
// event "Restart Signaled" naming the check, the task stopped with its kill
// signal and timeout, then its exit goes through the group's restart
// policy like a failure ("Restarting" after the policy's delay, or the
// task fails once the attempts are spent), as Nomad counts it. It returns
// once the instance has exited, or with ctx's error. Errors as Restart's.
// Safe from any goroutine.
func (tr *TaskRunner) RestartForCheck(ctx context.Context, check string) error {
	return tr.requestRestart(ctx, check)
}
