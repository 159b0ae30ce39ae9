// Package drivers runs task drivers as plugins: the go-plugin gRPC wiring
// that serves a driver in a subprocess of the nomadish binary (`nomadish
// plugin <name>` -> Serve) and the client-side Driver that talks to it
// (Launch), with the contract's errors carried across as codes; and the
// Catalog type (catalog.go), whose Entry is a driver's name, constructor and
// enablement/default-config rule.
//
// The contract itself (Driver, TaskConfig, ExitResult, ...) is declared in
// drivers/base, which every concrete driver imports; this package is the
// transport around it and imports no concrete driver. The built-in list
// (raw_exec, exec, docker, qemu, mock_driver) is drivers/catalog.Builtin,
// which the agent hands the client, so the client links no concrete driver.
package drivers
