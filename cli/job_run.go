package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/nomadish/nomadish/drivers/catalog"
	"github.com/nomadish/nomadish/jobspec"
	"github.com/nomadish/nomadish/structs"
)

// stringList is a repeatable string flag (-var k=v -var k2=v2).
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// jobRunCommand is `job run [-detach] [-var k=v]... [-verbose] FILE`: parse
// the job locally (errors name file:line:col and nothing is sent), register
// it, and monitor the evaluation.
func jobRunCommand(m *Meta, args []string) int {
	f := m.newFlags("job run", "[options] FILE")
	detach := f.Bool("detach", false, "return at once with the evaluation ID")
	verbose := f.Bool("verbose", false, "show full IDs")
	checkIndex := f.String("check-index", "", "register only if the job's modify index is this one (0: only if the job is new)")
	vars := jobVarFlags(f)
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return m.wrongArgs(f, "one argument: the job file")
	}
	job, sub, code := m.parseJobSource(pos[0], vars)
	if job == nil {
		return code
	}
	c := m.client(f)
	resp, err := c.registerJobCheckIndex(job, sub, *checkIndex)
	if err != nil {
		return m.registerFailed(err)
	}
	if resp.Warnings != "" {
		fmt.Fprintf(m.Out, "Job Warnings:\n%s\n\n", resp.Warnings)
	}
	if resp.EvalID == "" {
		fmt.Fprintln(m.Out, "Job registration successful")
		printNextLaunch(m, job) // job_status_parent.go
		return exitOK
	}
	if *detach {
		fmt.Fprintln(m.Out, "Job registration successful")
		fmt.Fprintf(m.Out, "Evaluation ID: %s\n", resp.EvalID)
		return exitOK
	}
	mon := &monitor{m: m, c: c, verbose: *verbose}
	if code := mon.run(resp.EvalID); code != exitOK {
		return code
	}
	return mon.followDeployment(job.ID, resp.JobModifyIndex)
}

// jobVars are the -var and -var-file flags of the commands that parse a job.
type jobVars struct{ vars, files stringList }

func jobVarFlags(f *flags) *jobVars {
	v := &jobVars{}
	f.Var(&v.vars, "var", "set an HCL variable (k=v); repeatable")
	f.Var(&v.files, "var-file", "HCL file of variable values; repeatable")
	return v
}

// parseJobFile reads and parses a job file ("-" is stdin) with the local
// jobspec parser, checking each task's driver and config against the
// built-in drivers' schemas. On error it prints the message (which names
// file:line:col) and returns a nil job and exit code 1.
func (m *Meta) parseJobFile(path string, v *jobVars) (*structs.Job, int) {
	job, _, code := m.parseJobSource(path, v)
	return job, code
}

// parseJobSource is parseJobFile that also returns the job's source as
// Nomad's `job run` sends it with the job (JobRegisterRequest.Submission):
// the file's text, format "hcl2", the -var flags and the var-files' text.
func (m *Meta) parseJobSource(path string, v *jobVars) (*structs.Job, *structs.JobSubmission, int) {
	var body []byte
	var err error
	if path == "-" {
		body, err = io.ReadAll(os.Stdin)
	} else {
		body, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, nil, m.errorf("reading job file: %v", err)
	}
	job, warnings, err := jobspec.ParseWithWarnings(&jobspec.ParseConfig{
		Path: path, Body: body, ArgVars: v.vars, VarFiles: v.files, Envs: os.Environ(),
		Drivers: catalog.Builtin,
	})
	if err != nil {
		return nil, nil, m.errorf("parsing job file %s:\n%v", path, err)
	}
	for _, w := range warnings {
		fmt.Fprintf(m.Err, "Warning: %s\n", w)
	}
	sub := &structs.JobSubmission{Source: string(body), Format: "hcl2"}
	for _, kv := range v.vars {
		if k, val, ok := strings.Cut(kv, "="); ok {
			if sub.VariableFlags == nil {
				sub.VariableFlags = map[string]string{}
			}
			sub.VariableFlags[k] = val
		}
	}
	var files []string
	for _, f := range v.files {
		b, err := os.ReadFile(f) // read already by the parser: it exists
		if err != nil {
			return nil, nil, m.errorf("reading variable file: %v", err)
		}
		files = append(files, string(b))
	}
	sub.Variables = strings.Join(files, "\n")
	return job, sub, exitOK
}
