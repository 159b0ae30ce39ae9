package cli

import (
	"fmt"
	"strconv"
)

// evalStatusCommand is `eval status [-verbose] EVAL`.
func evalStatusCommand(m *Meta, args []string) int {
	f := m.newFlags("eval status", "[options] EVAL")
	verbose := f.Bool("verbose", false, "show full IDs")
	ff := addFormatFlags(f)
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return m.wrongArgs(f, "one argument: the evaluation ID or prefix")
	}
	c := m.client(f)
	id, ok := resolveID(m, evalMatcher(c), pos[0])
	if !ok {
		return exitError
	}
	e, _, err := c.evaluation(id, 0, 0)
	if err != nil {
		return m.errorf("querying evaluation: %v", err)
	}
	if code, done := ff.print(m, e); done {
		return code
	}
	now := m.Now()
	kv(m.Out,
		"ID", shortID(e.ID, *verbose),
		"Create Time", relTime(now, unixNano(e.CreateTime)),
		"Modify Time", relTime(now, unixNano(e.ModifyTime)),
		"Status", e.Status,
		"Status Description", orNone(e.StatusDescription),
		"Type", e.Type,
		"TriggeredBy", e.TriggeredBy,
		"Job ID", e.JobID,
		"Priority", strconv.Itoa(e.Priority),
		"Placement Failures", strconv.FormatBool(len(e.FailedTGAllocs) > 0),
		"Previous Eval", orNone(shortID(e.PreviousEval, *verbose)),
		"Next Eval", orNone(shortID(e.NextEval, *verbose)),
		"Blocked Eval", orNone(shortID(e.BlockedEval, *verbose)),
	)
	if len(e.FailedTGAllocs) > 0 {
		fmt.Fprintln(m.Out, "\nFailed Placements")
		printFailedTGAllocs(m.Out, e.FailedTGAllocs, "")
		if e.BlockedEval != "" {
			fmt.Fprintf(m.Out, "Evaluation %q waiting for additional capacity to place remainder\n", shortID(e.BlockedEval, *verbose))
		}
	}
	return exitOK
}
