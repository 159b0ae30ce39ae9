// Package drivers is the task driver plugin system: the Driver contract
// (declared in drivers/base and re-exported here), the catalog of built-in
// drivers (catalog.go: raw_exec, exec, docker, qemu, mock_driver), and the go-plugin gRPC wiring that
// runs each driver in a subprocess of the nomadish binary
// (`nomadish plugin <name>` -> Serve; the client calls Launch).
package drivers
