package cli

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/nomadish/nomadish/structs"
)

// allocChecksCommand is `alloc checks [-json] ALLOC`: the latest result of
// each check of the allocation's services (GET
// /v1/client/allocation/:id/checks, answered by the allocation's client
// through any agent), one block per check, sorted by service and check.
func allocChecksCommand(m *Meta, args []string) int {
	f := m.newFlags("alloc checks", "[options] ALLOC")
	asJSON := f.Bool("json", false, "print the results as JSON (a map of check ID to result)")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return m.wrongArgs(f, "the allocation ID")
	}
	c := m.client(f)
	id, ok := resolveID(m, allocMatcher(c), pos[0])
	if !ok {
		return exitError
	}
	results := map[string]*structs.CheckQueryResult{}
	if _, err := c.get("/v1/client/allocation/"+esc(id)+"/checks", nil, &results); err != nil {
		return m.errorf("reading the checks of allocation %s: %v", shortID(id, false), err)
	}
	if *asJSON {
		return m.printJSONOut(results)
	}
	if len(results) == 0 {
		fmt.Fprintf(m.Out, "No checks in allocation %s\n", shortID(id, false))
		return exitOK
	}
	list := make([]*structs.CheckQueryResult, 0, len(results))
	for _, r := range results {
		list = append(list, r)
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].Service != list[j].Service {
			return list[i].Service < list[j].Service
		}
		return list[i].Check < list[j].Check
	})
	fmt.Fprintf(m.Out, "Status of %d Service Checks\n", len(list))
	for _, r := range list {
		task := r.Task
		if task == "" {
			task = "(group)"
		}
		code := "-"
		if r.StatusCode != 0 {
			code = strconv.Itoa(r.StatusCode)
		}
		fmt.Fprintln(m.Out)
		table(m.Out, [][]string{
			{"ID", "=", r.ID},
			{"Name", "=", r.Check},
			{"Service", "=", r.Service},
			{"Group", "=", r.Group},
			{"Task", "=", task},
			{"Mode", "=", r.Mode},
			{"Status", "=", r.Status},
			{"StatusCode", "=", code},
			{"Timestamp", "=", time.Unix(r.Timestamp, 0).UTC().Format(time.RFC3339)},
			{"Output", "=", strings.TrimSpace(r.Output)},
		})
	}
	return exitOK
}
