package drivers

import (
	"fmt"
	"sort"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/drivers/schema"
)

// DefaultFunc is a driver's enablement rule: given the host and its plugin
// block's config (ok: the agent has a plugin block for it), whether the
// client runs the driver and with which config.
type DefaultFunc func(h base.Host, cfg map[string]any, ok bool) (map[string]any, bool)

// Entry is one driver of a catalog: its name (and other names Serve and New
// accept), its in-process constructor, its enablement rule and its task
// config schema (nil: the config is not checked at submission).
type Entry struct {
	Name    string
	Aliases []string
	New     func(hclog.Logger) base.Driver
	Default DefaultFunc
	Schema  *schema.Schema
}

// Catalog is a set of drivers. The built-in one is drivers/catalog.Builtin;
// this package imports no concrete driver, so the client (which needs
// Launch) links none.
type Catalog []Entry

// Names lists the catalog's driver names, sorted.
func (c Catalog) Names() []string {
	out := make([]string, 0, len(c))
	for _, e := range c {
		out = append(out, e.Name)
	}
	sort.Strings(out)
	return out
}

// TaskSchema returns the task config schema of the driver a job names
// (aliases are not driver names in jobs): the catalog is a schema.Lookup
// for jobspec and the server.
func (c Catalog) TaskSchema(driver string) (*schema.Schema, bool) {
	for _, e := range c {
		if e.Name == driver {
			return e.Schema, true
		}
	}
	return nil, false
}

func (c Catalog) lookup(name string) (Entry, bool) {
	for _, e := range c {
		if e.Name == name {
			return e, true
		}
		for _, a := range e.Aliases {
			if a == name {
				return e, true
			}
		}
	}
	return Entry{}, false
}

// New returns the named driver running in this process (no plugin
// subprocess): for tests and for Serve. Aliases are accepted ("mock" for
// mock_driver).
func (c Catalog) New(name string, logger hclog.Logger) (base.Driver, error) {
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	e, ok := c.lookup(name)
	if !ok || e.New == nil {
		return nil, fmt.Errorf("drivers: unknown driver %q (known: %v)", name, c.Names())
	}
	return e.New(logger), nil
}

// Enabled returns the drivers the client runs on h with their plugin
// config, as each entry's Default rule says given the agent's plugin blocks
// (by driver name). An entry without a rule runs only with a plugin block.
func (c Catalog) Enabled(h base.Host, plugins map[string]map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, e := range c {
		cfg, ok := plugins[e.Name]
		if e.Default == nil {
			if ok {
				out[e.Name] = cfg
			}
			continue
		}
		if cfg, on := e.Default(h, cfg, ok); on {
			out[e.Name] = cfg
		}
	}
	return out
}
