package scheduler_test

import (
	"fmt"
	"sort"
	"strings"

	"github.com/nomadish/nomadish/scheduler"
)

// explain prints ExplainNode's verdict for one node and group (the job's
// first group by default):
//
//	feasible=false fits=false
//	  failed: <check>
//	  exhausted: <dimension with numbers>
//	  score: <scorer>=<value>
func (sc *scenario) explain(jobID, nodeID, group string) string {
	job, _ := sc.store.JobByID("default", jobID)
	if job == nil {
		sc.t.Fatalf("no job %q", jobID)
	}
	if group == "" {
		group = job.TaskGroups[0].Name
	}
	v, err := scheduler.ExplainNode(sc.store, job, group, nodeID, sc.now)
	if err != nil {
		return "error: " + err.Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "feasible=%v fits=%v\n", v.Feasible, v.Fits)
	for _, f := range v.Failures {
		fmt.Fprintf(&b, "  failed: %s\n", f)
	}
	for _, x := range v.Exhausted {
		fmt.Fprintf(&b, "  exhausted: %s\n", x)
	}
	names := make([]string, 0, len(v.Scores))
	for k := range v.Scores {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		fmt.Fprintf(&b, "  score: %s=%.3f\n", k, v.Scores[k])
	}
	return b.String()
}
