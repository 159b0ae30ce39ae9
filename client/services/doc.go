// Package services registers an allocation's services with the servers
// while their tasks run (registration.go builds them, as Nomad does), and
// runs their checks through client/checks (hook.go): one Hook per
// allocation, one owning goroutine, fed task-state snapshots by the alloc
// runner.
package services
