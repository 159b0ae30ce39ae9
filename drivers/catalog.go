package drivers

import (
	"fmt"
	"sort"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/drivers/docker"
	"github.com/nomadish/nomadish/drivers/exec"
	"github.com/nomadish/nomadish/drivers/mock"
	"github.com/nomadish/nomadish/drivers/qemu"
	"github.com/nomadish/nomadish/drivers/rawexec"
)

// factories are the built-in drivers by name.
var factories = map[string]func(hclog.Logger) Driver{
	rawexec.Name: rawexec.New,
	docker.Name:  docker.New,
	exec.Name:    exec.New,
	mock.Name:    mock.New,
	qemu.Name:    func(l hclog.Logger) Driver { return qemu.New(l) },
}

// Names lists the built-in driver names, sorted.
func Names() []string {
	out := make([]string, 0, len(factories))
	for n := range factories {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// New returns the named driver running in this process (no plugin
// subprocess): for tests and for Serve. "mock" is accepted for mock_driver.
func New(name string, logger hclog.Logger) (Driver, error) {
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	if name == "mock" {
		name = mock.Name
	}
	f, ok := factories[name]
	if !ok {
		return nil, fmt.Errorf("drivers: unknown driver %q (known: %v)", name, Names())
	}
	return f(logger), nil
}
