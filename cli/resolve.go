package cli

import (
	"fmt"
	"strings"

	"github.com/nomadish/nomadish/structs"
)

// uuidLength is the length of a full ID; shorter IDs are prefixes.
const uuidLength = 36

// matcher describes how to list one kind of object by ID prefix and how to
// show the candidates of an ambiguous prefix.
type matcher[T any] struct {
	kind   string // "allocation", "node", "evaluation", "job"
	list   func(prefix string) ([]T, error)
	id     func(T) string
	header []string
	row    func(T) []string
}

// resolveID turns an ID or unique ID prefix into a full ID. With no match or
// an ambiguous prefix it prints why (listing the matches) and returns ok=false.
func resolveID[T any](m *Meta, mt matcher[T], prefix string) (string, bool) {
	if len(prefix) == uuidLength && mt.kind != "job" {
		return prefix, true
	}
	items, err := mt.list(prefix)
	if err != nil {
		m.errorf("querying %ss: %v", mt.kind, err)
		return "", false
	}
	for _, it := range items {
		if mt.id(it) == prefix {
			return prefix, true
		}
	}
	switch len(items) {
	case 0:
		m.errorf("looking up %s: no %s(s) with prefix or id %q found", mt.kind, mt.kind, prefix)
		return "", false
	case 1:
		return mt.id(items[0]), true
	}
	fmt.Fprintf(m.Err, "Error looking up %s: prefix %q matched multiple %ss\n\n", mt.kind, prefix, mt.kind)
	rows := [][]string{mt.header}
	for _, it := range items {
		rows = append(rows, mt.row(it))
	}
	table(m.Err, rows)
	return "", false
}

func allocMatcher(c *apiClient) matcher[*structs.AllocListStub] {
	return matcher[*structs.AllocListStub]{
		kind: "allocation", list: c.allocations,
		id:     func(a *structs.AllocListStub) string { return a.ID },
		header: []string{"ID", "Node ID", "Job ID", "Task Group", "Desired", "Status"},
		row: func(a *structs.AllocListStub) []string {
			return []string{a.ID, shortID(a.NodeID, false), a.JobID, a.TaskGroup, a.DesiredStatus, a.ClientStatus}
		},
	}
}

func nodeMatcher(c *apiClient) matcher[*structs.NodeListStub] {
	return matcher[*structs.NodeListStub]{
		kind: "node", list: c.nodes,
		id:     func(n *structs.NodeListStub) string { return n.ID },
		header: []string{"ID", "Name", "Status"},
		row:    func(n *structs.NodeListStub) []string { return []string{n.ID, n.Name, n.Status} },
	}
}

func evalMatcher(c *apiClient) matcher[*structs.Evaluation] {
	return matcher[*structs.Evaluation]{
		kind: "evaluation", list: c.evaluations,
		id:     func(e *structs.Evaluation) string { return e.ID },
		header: []string{"ID", "Job ID", "Triggered By", "Status"},
		row:    func(e *structs.Evaluation) []string { return []string{e.ID, e.JobID, e.TriggeredBy, e.Status} },
	}
}

func jobMatcher(c *apiClient) matcher[*structs.JobListStub] {
	return matcher[*structs.JobListStub]{
		kind: "job", list: c.jobs,
		id:     func(j *structs.JobListStub) string { return j.ID },
		header: []string{"ID", "Type", "Status"},
		row:    func(j *structs.JobListStub) []string { return []string{j.ID, j.Type, j.Status} },
	}
}

// capitalize upper-cases the first letter ("running" -> "Running").
func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// jobArg parses the flags and the one argument of a command on a job (ID or
// prefix): it returns the API client and the job's full ID, or the exit
// code. A non-nil ff's -json/-t conflict is refused before any request.
func (m *Meta) jobArg(f *flags, args []string, ff *formatFlags) (c *apiClient, id string, code int, ok bool) {
	pos, code, ok := m.parse(f, args)
	if !ok {
		return nil, "", code, false
	}
	if len(pos) != 1 {
		return nil, "", m.wrongArgs(f, "one argument: the job ID"), false
	}
	if ff != nil {
		if code, bad := ff.check(m); bad {
			return nil, "", code, false
		}
	}
	c = m.client(f)
	if id, ok = resolveID(m, jobMatcher(c), pos[0]); !ok {
		return nil, "", exitError, false
	}
	return c, id, exitOK, true
}
