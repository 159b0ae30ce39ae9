package jobcheck

import (
	"fmt"
	"sort"
	"strings"

	"github.com/nomadish/nomadish/drivers/schema"
	"github.com/nomadish/nomadish/structs"
)

// Prepare copies in, gives the copy namespace when it has none,
// canonicalizes and validates it, checks its tasks' drivers (Drivers) and
// refuses what needs Consul's service mesh (Mesh).
// in is not modified. Bad input is a 400 coded error: "missing job",
// "invalid job: <validation>", or the driver problems joined with "; ".
// drivers nil checks driver names only, against the built-in names.
func Prepare(in *structs.Job, namespace string, drivers schema.Lookup) (*structs.Job, error) {
	if in == nil {
		return nil, structs.NewCodedError(structs.ErrCodeBadRequest, "missing job")
	}
	job := in.Copy()
	if job.Namespace == "" && namespace != "" {
		job.Namespace = namespace
	}
	job.Canonicalize()
	if err := job.Validate(); err != nil {
		return nil, structs.NewCodedError(structs.ErrCodeBadRequest, "invalid job: %v", err)
	}
	if probs := Drivers(job, drivers); len(probs) > 0 {
		return nil, structs.NewCodedError(structs.ErrCodeBadRequest, "%s", strings.Join(probs, "; "))
	}
	if probs := Mesh(job); len(probs) > 0 { // mesh.go
		return nil, structs.NewCodedError(structs.ErrCodeBadRequest, "%s", strings.Join(probs, "; "))
	}
	return job, nil
}

// Check is Prepare on job itself (no copy, no namespace, errors not coded):
// it canonicalizes job in place, then returns the validation error, the
// driver problems or what needs Consul's mesh, one per line.
func Check(job *structs.Job, drivers schema.Lookup) error {
	job.Canonicalize()
	if err := job.Validate(); err != nil {
		return err
	}
	if probs := Drivers(job, drivers); len(probs) > 0 {
		return fmt.Errorf("%s", strings.Join(probs, "\n"))
	}
	if probs := Mesh(job); len(probs) > 0 { // mesh.go
		return fmt.Errorf("%s", strings.Join(probs, "\n"))
	}
	return nil
}

// Drivers returns, task by task, what is wrong with the tasks' drivers:
// `group "g": task "t": unknown driver "raw_exce"; Did you mean "raw_exec"?`
// or `group "g": task "t": config: unknown key "comand"; Did you mean
// "command"?` (and mistyped and missing keys; nested places as
// `config: mount[0]: ...`). drivers nil knows the built-in driver names and
// checks no config. Nil groups and tasks are skipped (Validate refuses them).
func Drivers(job *structs.Job, drivers schema.Lookup) []string {
	if drivers == nil {
		drivers = builtinNames
	}
	var out []string
	for _, tg := range job.TaskGroups {
		if tg == nil {
			continue
		}
		for _, t := range tg.Tasks {
			if t == nil {
				continue
			}
			where := fmt.Sprintf("group %q: task %q: ", tg.Name, t.Name)
			s, ok := drivers.TaskSchema(t.Driver)
			if !ok {
				msg, hint := schema.UnknownDriver(drivers, t.Driver)
				out = append(out, where+msg+"; "+hint)
				continue
			}
			if s == nil {
				continue
			}
			for _, p := range s.Check(t.Config) {
				out = append(out, where+"config: "+p.Error())
			}
		}
	}
	return out
}

// names is a schema.Lookup that knows driver names and no schema.
type names []string

// builtinNames are the built-in drivers' names, for a caller without the
// catalog (TestBuiltinNamesMatchCatalog keeps them drivers/catalog's).
var builtinNames = names{"docker", "exec", "mock_driver", "qemu", "raw_exec", "virt"}

func (n names) TaskSchema(driver string) (*schema.Schema, bool) {
	i := sort.SearchStrings(n, driver)
	return nil, i < len(n) && n[i] == driver
}

func (n names) Names() []string { return append([]string(nil), n...) }
