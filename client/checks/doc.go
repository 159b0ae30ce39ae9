// Package checks runs the health checks of an allocation's services on the
// client: the pure status rules (success_before_passing,
// failures_before_warning/critical, initial_status; status.go), the
// check_restart rule (restart.go), one executor per check type (http, tcp,
// grpc, script) and the Runner that runs each check every interval while
// its task runs and keeps the latest result per check ID.
package checks
