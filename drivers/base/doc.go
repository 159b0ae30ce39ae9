// Package base is the task driver contract and what drivers share to keep
// it: the Driver interface every driver implements (raw_exec, exec, docker,
// qemu, mock_driver), its optional extensions (ResourceUpdater,
// TaskDiscoverer, ExecStreamer), the plain data types that cross it
// (TaskConfig, TaskHandle, ExitResult, TaskResourceUsage, ...) and its
// errors; and the pieces each driver would otherwise repeat: Table, a
// driver's tasks by ID with the front of WaitTask, StopTask and
// DestroyTask (tasktable.go); Exit, a task's exit record (exit.go);
// StreamUsage and Every, the TaskStats loop (stats.go); ParseSignal.
//
// Everyone names the contract from here: the concrete drivers, package
// drivers (the gRPC plugin transport), drivers/catalog and the client. It
// stays out of package drivers because that package carries go-plugin, gRPC
// and the generated protobuf code, which a driver implementation has no
// business linking, and because it imports only the standard library, a
// driver (or a test fake) can be built and tested in process without the
// plugin stack (TestDepsBase).
package base
