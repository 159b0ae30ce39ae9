// Package catalog lists the built-in drivers: adding a driver is one new
// package under drivers/ (with Name, New, Default and Schema) plus one line
// here. Builtin is also the schema.Lookup the CLI and the agent hand jobspec
// and the server, so job files are checked against the drivers' schemas.
// The agent hands Builtin to the client, and `nomadish plugin` serves from
// it; the client itself imports no concrete driver.
package catalog

import (
	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/drivers"
	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/drivers/docker"
	"github.com/nomadish/nomadish/drivers/exec"
	"github.com/nomadish/nomadish/drivers/mock"
	"github.com/nomadish/nomadish/drivers/qemu"
	"github.com/nomadish/nomadish/drivers/rawexec"
	"github.com/nomadish/nomadish/drivers/virt"
)

// Builtin is the built-in drivers.
var Builtin = drivers.Catalog{
	{Name: rawexec.Name, New: rawexec.New, Default: rawexec.Default, Schema: rawexec.Schema},
	{Name: exec.Name, New: exec.New, Default: exec.Default, Schema: exec.Schema},
	{Name: docker.Name, New: docker.New, Default: docker.Default, Schema: docker.Schema},
	{Name: qemu.Name, New: func(l hclog.Logger) base.Driver { return qemu.New(l) }, Default: qemu.Default, Schema: qemu.Schema},
	{Name: virt.Name, New: func(l hclog.Logger) base.Driver { return virt.New(l) }, Default: virt.Default, Schema: virt.Schema},
	{Name: mock.Name, Aliases: []string{"mock"}, New: mock.New, Default: mock.Default, Schema: mock.Schema},
}
