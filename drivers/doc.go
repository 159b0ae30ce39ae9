// Package drivers is the task driver plugin system: the Driver contract
// (declared in drivers/base and re-exported here), the Catalog type
// (catalog.go: each Entry is a driver's name, constructor and enablement
// rule; the built-in list, raw_exec, exec, docker, qemu and mock_driver, is
// drivers/catalog.Builtin, kept out of this package so the client links no
// concrete driver), and the go-plugin gRPC wiring that runs each driver in a
// subprocess of the nomadish binary (`nomadish plugin <name>` -> Serve; the
// client calls Launch).
package drivers
