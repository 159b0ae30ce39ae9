// Package base declares the driver plugin contract: the Driver interface every
// task driver implements (raw_exec, exec, docker, qemu, mock), its optional
// extensions (TaskDiscoverer, ...) and the
// plain data types that cross it (TaskConfig, TaskHandle, ExitResult, ...).
//
// Package drivers re-exports every name declared here, so the client and CLI
// import only "github.com/nomadish/nomadish/drivers"; driver implementations
// import this package to avoid an import cycle with the plugin catalog.
package base
