package cli

// Nomad's `eval delete`: delete evaluations while the eval broker is
// paused (website/cli.md).

import (
	"bufio"
	"fmt"
	"net/http"
	"strings"

	"github.com/hashicorp/go-bexpr"

	"github.com/nomadish/nomadish/structs"
)

// deleteEvals is DELETE /v1/evaluations.
func (c *apiClient) deleteEvals(req *structs.EvalDeleteRequest) (*structs.EvalDeleteResponse, error) {
	var out structs.EvalDeleteResponse
	_, err := c.do(http.MethodDelete, "/v1/evaluations", nil, req, &out)
	return &out, err
}

// evalDeleteCommand is `eval delete [-filter EXPR] [-yes] [EVAL]`: one
// evaluation by ID (or prefix), or those a filter selects (after a
// confirmation unless -yes). The eval broker must be paused first
// (`operator scheduler set-config -pause-eval-broker=true`).
func evalDeleteCommand(m *Meta, args []string) int {
	f := m.newFlags("eval delete", "[options] [EVAL]")
	filter := f.String("filter", "", "delete the evaluations this go-bexpr expression selects")
	yes := f.Bool("yes", false, "do not ask for confirmation of a -filter deletion")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	switch {
	case len(pos) > 1:
		return m.wrongArgs(f, "at most one argument: the evaluation ID")
	case len(pos) == 1 && *filter != "":
		return m.errorf("deleting evaluations: give an evaluation ID or -filter, not both")
	case len(pos) == 0 && *filter == "":
		return m.errorf("deleting evaluations: give an evaluation ID or -filter")
	}
	c := m.client(f)
	cfg, err := c.schedulerConfig()
	if err != nil {
		return m.errorf("querying scheduler configuration: %v", err)
	}
	if !cfg.PauseEvalBroker {
		fmt.Fprintln(m.Err, "Error deleting evaluations: the eval broker is not paused")
		fmt.Fprintln(m.Err, `Pause it first with "nomadish operator scheduler set-config -pause-eval-broker=true",`)
		fmt.Fprintln(m.Err, `and resume it afterwards with "nomadish operator scheduler set-config -pause-eval-broker=false".`)
		return exitError
	}
	req := &structs.EvalDeleteRequest{Filter: *filter}
	if len(pos) == 1 {
		id, ok := resolveID(m, evalMatcher(c), pos[0])
		if !ok {
			return exitError
		}
		req.EvalIDs = []string{id}
	} else if !*yes {
		var matching []*structs.Evaluation
		if _, err := c.getPage("/v1/evaluations", pageFlags{filter: filter, token: new(string), perPage: new(int)}.query(nil), &matching); err != nil {
			return m.errorf("listing the evaluations to delete: %v", err)
		}
		// Filter here too: an agent that ignores ?filter= must not
		// inflate the count asked about.
		if matching, err = bexprFilter(matching, *filter); err != nil {
			return m.errorf("deleting evaluations: invalid filter: %v", err)
		}
		if len(matching) == 0 {
			fmt.Fprintln(m.Out, "No evaluations match the filter")
			return exitOK
		}
		fmt.Fprintf(m.Out, "Are you sure you want to delete %d evaluation%s? [y/N] ", len(matching), plural(len(matching)))
		line, _ := bufio.NewReader(promptStdin).ReadString('\n')
		fmt.Fprintln(m.Out)
		if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
			fmt.Fprintln(m.Out, "Cancelling eval deletion")
			return exitError
		}
	}
	resp, err := c.deleteEvals(req)
	if err != nil {
		return m.errorf("deleting evaluations: %v", err)
	}
	fmt.Fprintf(m.Out, "Successfully deleted %d evaluation%s\n", resp.Count, plural(resp.Count))
	return exitOK
}

// bexprFilter keeps the items the go-bexpr expression selects.
func bexprFilter[T any](items []T, expr string) ([]T, error) {
	ev, err := bexpr.CreateEvaluator(expr)
	if err != nil {
		return nil, err
	}
	var out []T
	for _, it := range items {
		ok, err := ev.Evaluate(it)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, it)
		}
	}
	return out, nil
}
