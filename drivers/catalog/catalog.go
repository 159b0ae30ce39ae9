// Package catalog lists the built-in drivers: adding a driver is one new
// package under drivers/ (with Name, New and Default) plus one line here.
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
)

// Builtin is the built-in drivers.
var Builtin = drivers.Catalog{
	{Name: rawexec.Name, New: rawexec.New, Default: rawexec.Default},
	{Name: exec.Name, New: exec.New, Default: exec.Default},
	{Name: docker.Name, New: docker.New, Default: docker.Default},
	{Name: qemu.Name, New: func(l hclog.Logger) base.Driver { return qemu.New(l) }, Default: qemu.Default},
	{Name: mock.Name, Aliases: []string{"mock"}, New: mock.New, Default: mock.Default},
}
