package cli

import (
	"encoding/json"
	"fmt"

	"github.com/nomadish/nomadish/drivers/catalog"
	"github.com/nomadish/nomadish/jobcheck"
)

// jobValidateCommand is `job validate [-var k=v]... FILE`: parse (with the
// drivers' config checks, at file:line:col), then canonicalize and validate
// the job locally as the server would (jobcheck.Check); nothing is sent.
func jobValidateCommand(m *Meta, args []string) int {
	f := m.newFlags("job validate", "[options] FILE")
	vars := jobVarFlags(f)
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return m.wrongArgs(f, "one argument: the job file")
	}
	job, code := m.parseJobFile(pos[0], vars)
	if job == nil {
		return code
	}
	if err := jobcheck.Check(job, catalog.Builtin); err != nil {
		fmt.Fprintf(m.Err, "Error validating job %s:\n%v\n", pos[0], err)
		return exitError
	}
	fmt.Fprintln(m.Out, "Job validation successful")
	return exitOK
}

// jobInspectCommand is `job inspect JOB`: the registered job as JSON, in the
// {"Job": ...} envelope that PUT /v1/jobs accepts.
func jobInspectCommand(m *Meta, args []string) int {
	f := m.newFlags("job inspect", "[options] JOB")
	ff := addFormatFlags(f)
	c, id, code, ok := m.jobArg(f, args, nil)
	if !ok {
		return code
	}
	job, err := c.job(id)
	if err != nil {
		return m.errorf("inspecting job: %v", err)
	}
	if code, done := ff.print(m, job); done {
		return code
	}
	out, err := json.MarshalIndent(map[string]any{"Job": job}, "", "    ")
	if err != nil {
		return m.errorf("encoding job: %v", err)
	}
	fmt.Fprintln(m.Out, string(out))
	return exitOK
}
