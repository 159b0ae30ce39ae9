package scheduler_test

import (
	"fmt"
	"sort"
	"strings"

	"github.com/nomadish/nomadish/scheduler/schedulertest"
	"github.com/nomadish/nomadish/structs"
)

// Scenario commands for constraints, node pools and classes:
//
//	node add <id> ... [attr.<k>=v] [meta.<k>=v] [class=c] [pool=p]
//	constraint <job> [group=<g>|task=<g>] <ltarget> <operator> [rtarget words...]
//	        (adds a constraint to the job, a group or the group's first task;
//	         the rtarget is the rest of the line, so ">= 1.2, < 2.0" works)
//	group add <job> <group> [count=1] [cpu=100] [mem=300]   (a second group, same task)
//	pool <job> <pool>               (sets the job's node pool)
//	classes <eval>                  (the eval's ClassEligibility, by node)
//	failed <eval>                   (the eval's FailedTGAllocs metrics)
func (sc *scenario) constraintCmd(f []string, args map[string]string) string {
	switch {
	case f[0] == "constraint" && len(f) >= 4:
		return sc.addConstraint(f[1], f[2:])
	case f[0] == "group" && len(f) >= 4 && f[1] == "add":
		return sc.groupAdd(f[2], f[3], args)
	case f[0] == "pool" && len(f) == 3:
		j := sc.job(f[1])
		j.NodePool = f[2]
		sc.store.UpsertJob(j)
		return ""
	case f[0] == "classes" && len(f) == 2:
		return sc.classesText(sc.evalLabeled(f[1]))
	case f[0] == "failed" && len(f) == 2:
		return strings.Join(failedText(sc.evalLabeled(f[1]).FailedTGAllocs), "\n")
	}
	sc.t.Fatalf("bad command %q", strings.Join(f, " "))
	return ""
}

// poolConfig sets a node pool's scheduler configuration.
func (sc *scenario) poolConfig(pool string, args map[string]string) string {
	sc.store.SetNodePool(&structs.NodePool{Name: pool,
		SchedulerConfiguration: &structs.NodePoolSchedulerConfiguration{SchedulerAlgorithm: args["algorithm"]}})
	return ""
}

// nodeExtras sets the attributes, meta, class and pool given to node add.
func (sc *scenario) nodeExtras(n *structs.Node, args map[string]string) {
	for k, v := range args {
		switch {
		case strings.HasPrefix(k, "attr."):
			n.Attributes[strings.TrimPrefix(k, "attr.")] = v
		case strings.HasPrefix(k, "meta."):
			if n.Meta == nil {
				n.Meta = map[string]string{}
			}
			n.Meta[strings.TrimPrefix(k, "meta.")] = v
		case k == "class":
			n.NodeClass = v
		case k == "pool":
			n.NodePool = v
		}
	}
}

// job returns a copy of the stored job to change and upsert.
func (sc *scenario) job(id string) *structs.Job {
	j, _ := sc.store.JobByID("default", id)
	if j == nil {
		sc.t.Fatalf("no job %q", id)
	}
	return j.Copy()
}

func (sc *scenario) addConstraint(jobID string, words []string) string {
	j := sc.job(jobID)
	where := &j.Constraints
	if k, v, ok := strings.Cut(words[0], "="); ok && (k == "group" || k == "task") {
		tg := j.LookupTaskGroup(v)
		if tg == nil {
			sc.t.Fatalf("no group %q", v)
		}
		where = &tg.Constraints
		if k == "task" {
			where = &tg.Tasks[0].Constraints
		}
		words = words[1:]
	}
	c := &structs.Constraint{LTarget: words[0], Operand: words[1], RTarget: strings.Join(words[2:], " ")}
	if c.LTarget == "-" {
		c.LTarget = ""
	}
	if err := c.Validate(); err != nil {
		return "invalid: " + err.Error()
	}
	*where = append(*where, c)
	sc.store.UpsertJob(j)
	return ""
}

func (sc *scenario) groupAdd(jobID, name string, args map[string]string) string {
	j := sc.job(jobID)
	other := schedulertest.Job(name, j.Type, sc.num(args, "count", 1), sc.num(args, "cpu", 100), sc.num(args, "mem", 300))
	j.TaskGroups = append(j.TaskGroups, other.TaskGroups[0])
	sc.store.UpsertJob(j)
	return ""
}

// classesText prints an eval's class eligibility as the nodes of each class.
func (sc *scenario) classesText(e *structs.Evaluation) string {
	nodes, _ := sc.store.Nodes()
	byClass := map[string][]string{}
	for _, n := range nodes {
		byClass[n.ComputedClass] = append(byClass[n.ComputedClass], n.ID)
	}
	out := []string{fmt.Sprintf("escaped=%v", e.EscapedComputedClass)}
	var lines []string
	for class, ok := range e.ClassEligibility {
		ids := byClass[class]
		sort.Strings(ids)
		lines = append(lines, fmt.Sprintf("  [%s] eligible=%v", strings.Join(ids, " "), ok))
	}
	sort.Strings(lines)
	return strings.Join(append(out, lines...), "\n")
}

// evalLabeled returns the eval labeled e<N> (its creation order).
func (sc *scenario) evalLabeled(label string) *structs.Evaluation {
	for i, e := range sc.store.Evals() {
		if fmt.Sprintf("e%d", i+1) == label {
			return e
		}
	}
	sc.t.Fatalf("no eval %q", label)
	return nil
}
