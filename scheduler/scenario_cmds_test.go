package scheduler_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/scheduler"
	"github.com/nomadish/nomadish/scheduler/schedulertest"
	"github.com/nomadish/nomadish/structs"
)

// scenario is the state of one testdata file: a store, a fixed clock and
// the evals and plans of the last `process`.
//
// Commands:
//
//	node add <id> [cpu=4000] [mem=8192] [disk=102400] [dc=dc1] [drivers=raw_exec,mock]
//	         [unhealthy=d1,..] [attrs=driver.x,..] [status=ready] [eligible=true]
//	node down|up|drain|ineligible <id>   (down also creates node-update evals; every node
//	        change and add creates one for each system and sysbatch job)
//	job add <id> [type=service] [count=1] [cpu=100] [mem=300] [disk=0] [driver=raw_exec] [priority=50]
//	        [dc=*] [all_at_once=false]           (creates a job-register eval)
//	        [reschedule=attempts:1,interval:24h,delay:5s,delay_function:constant,max_delay:1h,unlimited:false]
//	        (fields left out keep the job type's default policy)
//	job scale <id> count=N | job update <id> [cpu=] [mem=] [count=] | job stop <id> | job purge <id>
//	        (each creates an eval)
//	alloc set <name>[@node] status=running|complete|failed   (failed creates an alloc-failure eval;
//	        the alloc failed now: ModifyTime and its tasks' FinishedAt)
//	alloc migrate <name>..          (the drainer marks the live allocs for migration:
//	        DesiredTransition.Migrate and one node-drain eval per job)
//	clock advance <duration>        (the scheduler's Now moves forward)
//	conflict <node> cpu=N mem=M     (before the next plan is applied, another job takes that)
//	alloc report <name> status=S    (the client status of the newest alloc of that name, even a
//	                                 stopped or evicted one; no eval)
//	sched-config [algorithm=binpack|spread] [preempt_service|preempt_batch|preempt_system|preempt_sysbatch=true|false]
//	        (fields left out keep their value; the default config preempts for every type)
//	reject-plans                    (the plan applier rejects every node from now on)
//	process [blocked]               (process pending evals whose WaitUntil has come, or the
//	                                 blocked ones, in order)
//	print plan|plans|evals|allocs|nodes|ports|metrics <alloc name>
//	node add ... ports=lo-hi reserved_ports=22,80; job add ... static=l:port,.. dynamic=l,..
//	        (scenario_ports_test.go)
//	node add ... numa=2x8 smt=true reserved_cores=0,1; job add ... cores=4 numa=require; print cores
//	        (scenario_numa_test.go)
//	node add ... volumes=name,name:ro; job add ... volumes=src,src:ro sticky=true migrate=true
//	        (scenario_volumes_test.go)
//	explain <job> <node> [group=<job>]  (the node's whole verdict, ExplainNode)
//	constraint|group add|pool|classes|failed ...  and node add attr.k=v meta.k=v class= pool=
//	        (scenario_constraint_test.go)
//	pool-config <pool> [algorithm=binpack|spread]  (the pool's own scheduler configuration)
type scenario struct {
	t     *testing.T
	store *schedulertest.Store
	now   time.Time
	plans int // len(store.Plans) before the last process
}

// scenarioStart is the scenario clock's first reading.
var scenarioStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func newScenario(t *testing.T) *scenario {
	return &scenario{t: t, store: schedulertest.NewStore(), now: scenarioStart}
}

func (sc *scenario) run(line string) string {
	f := strings.Fields(line)
	args := kv(f)
	switch {
	case len(f) >= 3 && f[0] == "node" && f[1] == "add":
		return sc.nodeAdd(f[2], args)
	case len(f) >= 3 && f[0] == "node":
		return sc.nodeSet(f[1], f[2])
	case len(f) >= 3 && f[0] == "job" && f[1] == "add":
		return sc.jobAdd(f[2], args)
	case len(f) >= 3 && f[0] == "job":
		return sc.jobChange(f[1], f[2], args)
	case len(f) >= 3 && f[0] == "alloc" && f[1] == "migrate":
		return sc.allocMigrate(f[2:])
	case len(f) >= 3 && f[0] == "alloc" && f[1] == "set":
		return sc.allocSet(f[2], args["status"])
	case len(f) == 3 && f[0] == "clock" && f[1] == "advance":
		d, err := time.ParseDuration(f[2])
		if err != nil {
			sc.t.Fatalf("clock advance %q: %v", f[2], err)
		}
		sc.now = sc.now.Add(d)
		return ""
	case len(f) >= 2 && f[0] == "conflict":
		return sc.conflict(f[1], args)
	case len(f) >= 3 && f[0] == "alloc" && f[1] == "report":
		return sc.allocReport(f[2], args["status"])
	case f[0] == "sched-config":
		return sc.schedConfig(args)
	case len(f) == 1 && f[0] == "reject-plans":
		sc.store.RejectNode = func(string) bool { return true }
		return ""
	case f[0] == "process":
		return sc.process(len(f) > 1 && f[1] == "blocked")
	case len(f) >= 2 && f[0] == "print":
		return sc.print(f[1], f[2:])
	case f[0] == "pool-config" && len(f) >= 2:
		return sc.poolConfig(f[1], args) // scenario_constraint_test.go
	case f[0] == "constraint" || f[0] == "group" || f[0] == "pool" || f[0] == "classes" || f[0] == "failed":
		return sc.constraintCmd(f, args) // scenario_constraint_test.go
	case len(f) >= 3 && f[0] == "explain":
		return sc.explain(f[1], f[2], args["group"])
	}
	sc.t.Fatalf("unknown command %q", line)
	return ""
}

// kv parses the key=value words of a command.
func kv(f []string) map[string]string {
	out := map[string]string{}
	for _, w := range f {
		if k, v, ok := strings.Cut(w, "="); ok {
			out[k] = v
		}
	}
	return out
}

func (sc *scenario) num(args map[string]string, key string, def int) int {
	v, ok := args[key]
	if !ok {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		sc.t.Fatalf("%s=%q: %v", key, v, err)
	}
	return n
}

func list(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

func (sc *scenario) nodeAdd(id string, args map[string]string) string {
	dc := args["dc"]
	if dc == "" {
		dc = "dc1"
	}
	n := schedulertest.Node(id, dc, int64(sc.num(args, "cpu", 4000)), int64(sc.num(args, "mem", 8192)))
	n.NodeResources.Disk.DiskMB = int64(sc.num(args, "disk", 102400))
	if d, ok := args["drivers"]; ok {
		n.Drivers = map[string]*structs.DriverInfo{}
		for _, name := range list(d) {
			n.Drivers[name] = &structs.DriverInfo{Detected: true, Healthy: true}
		}
	}
	for _, name := range list(args["unhealthy"]) {
		n.Drivers[name] = &structs.DriverInfo{Detected: true, Healthy: false}
	}
	for _, a := range list(args["attrs"]) {
		n.Attributes[a] = "1"
	}
	sc.nodeRankArgs(n, args)
	if s := args["status"]; s != "" {
		n.Status = s
	}
	if args["eligible"] == "false" {
		n.SchedulingEligibility = structs.NodeSchedulingIneligible
	}
	sc.nodeExtras(n, args)
	sc.nodePortArgs(n, args) // scenario_ports_test.go
	sc.nodeNUMAArgs(n, args) // scenario_numa_test.go
	sc.nodeVolumeArgs(n, args)
	sc.nodeNetworkArgs(n, args) // scenario_network_test.go
	sc.store.UpsertNode(n)
	sc.systemNodeEvals(n.ID)
	return ""
}

func (sc *scenario) nodeSet(verb, id string) string {
	old, _ := sc.store.NodeByID(id)
	if old == nil {
		sc.t.Fatalf("no node %q", id)
	}
	n := *old
	switch verb {
	case "down":
		n.Status = structs.NodeStatusDown
	case "up":
		n.Status = structs.NodeStatusReady
	case "drain":
		n.Drain = true
	case "ineligible":
		n.SchedulingEligibility = structs.NodeSchedulingIneligible
	default:
		sc.t.Fatalf("unknown node command %q", verb)
	}
	sc.store.UpsertNode(&n)
	defer sc.systemNodeEvals(id)
	if verb != "down" {
		return ""
	}
	jobs := map[string]bool{}
	allocs, _ := sc.store.AllocsByNode(id)
	for _, a := range allocs {
		if !a.TerminalStatus() && !jobs[a.JobID] {
			jobs[a.JobID] = true
			e := sc.newEval(a.Job, structs.EvalTriggerNodeUpdate)
			e.NodeID = id
			sc.store.UpsertEval(e)
		}
	}
	return ""
}

func (sc *scenario) newEval(job *structs.Job, trigger string) *structs.Evaluation {
	// The ID is the eval's label (its position in creation order), so the
	// node shuffle seeded from it replays.
	return schedulertest.Eval(fmt.Sprintf("e%d", len(sc.store.Evals())+1), job, trigger)
}

func (sc *scenario) jobAdd(id string, args map[string]string) string {
	typ := args["type"]
	if typ == "" {
		typ = structs.JobTypeService
	}
	j := schedulertest.Job(id, typ, sc.num(args, "count", 1), sc.num(args, "cpu", 100), sc.num(args, "mem", 300))
	task := j.TaskGroups[0].Tasks[0]
	task.Resources.DiskMB = sc.num(args, "disk", 0)
	if d := args["driver"]; d != "" {
		task.Driver = d
	}
	if dc := args["dc"]; dc != "" {
		j.Datacenters = list(dc)
	}
	j.AllAtOnce = args["all_at_once"] == "true"
	j.Priority = sc.num(args, "priority", j.Priority)
	if r, ok := args["reschedule"]; ok {
		sc.reschedule(j.TaskGroups[0].ReschedulePolicy, r)
	}
	sc.jobRankArgs(j, args)
	sc.jobPortArgs(j, args) // scenario_ports_test.go
	sc.jobNUMAArgs(j, args) // scenario_numa_test.go
	sc.jobVolumeArgs(j, args)
	sc.jobNetworkArgs(j, args) // scenario_network_test.go
	sc.store.UpsertJob(j)
	sc.store.UpsertEval(sc.newEval(j, structs.EvalTriggerJobRegister))
	return ""
}

func (sc *scenario) jobChange(verb, id string, args map[string]string) string {
	old, _ := sc.store.JobByID("default", id)
	if old == nil {
		sc.t.Fatalf("no job %q", id)
	}
	trigger := structs.EvalTriggerJobRegister
	switch verb {
	case "scale":
		j := old.Copy()
		j.TaskGroups[0].Count = sc.num(args, "count", 1)
		sc.store.UpsertJob(j)
	case "update":
		j := old.Copy()
		task := j.TaskGroups[0].Tasks[0]
		task.Resources.CPU = sc.num(args, "cpu", task.Resources.CPU)
		task.Resources.MemoryMB = sc.num(args, "mem", task.Resources.MemoryMB)
		if c, ok := args["config"]; ok { // a destructive change (cpu and mem alone may update in place)
			task.Config = map[string]any{"run_for": c}
		}
		j.TaskGroups[0].Count = sc.num(args, "count", j.TaskGroups[0].Count)
		sc.store.UpsertJob(j)
	case "stop":
		j := old.Copy()
		j.Stop = true
		sc.store.UpsertJob(j)
		trigger = structs.EvalTriggerJobDeregister
	case "purge":
		sc.store.DeleteJob(old.Namespace, old.ID)
		trigger = structs.EvalTriggerJobDeregister
	default:
		sc.t.Fatalf("unknown job command %q", verb)
	}
	sc.store.UpsertEval(sc.newEval(old, trigger))
	return ""
}

func (sc *scenario) allocSet(name, status string) string {
	var target *structs.Allocation
	for _, a := range sc.store.Allocs() {
		if allocNamed(a, name) && !a.TerminalStatus() {
			target = a
		}
	}
	if target == nil {
		sc.t.Fatalf("no live alloc %q", name)
	}
	a := target.Copy()
	a.ClientStatus = status
	a.ModifyTime = sc.now.UnixNano()
	if status == structs.AllocClientStatusFailed || status == structs.AllocClientStatusComplete {
		a.TaskStates = map[string]*structs.TaskState{"task": {State: structs.TaskStateDead, Failed: status == structs.AllocClientStatusFailed, FinishedAt: sc.now}}
	}
	sc.store.UpsertAllocs(a)
	if status == structs.AllocClientStatusFailed {
		sc.store.UpsertEval(sc.newEval(a.Job, structs.EvalTriggerRetryFailedAlloc))
	}
	return ""
}

// conflict makes another scheduler's allocation land on node just before the
// next plan is applied, so that plan's part for node may no longer fit.
// Several conflicts before one process all land at the next submit.
func (sc *scenario) conflict(node string, args map[string]string) string {
	other := schedulertest.Job("other", structs.JobTypeService, 1, sc.num(args, "cpu", 0), sc.num(args, "mem", 0))
	tg := other.TaskGroups[0]
	a := &structs.Allocation{
		ID: structs.GenerateUUID(), Namespace: other.Namespace, Name: structs.AllocName(other.ID, tg.Name, 0),
		NodeID: node, NodeName: node, JobID: other.ID, Job: other, TaskGroup: tg.Name,
		AllocatedResources: structs.AllocatedFor(tg), DesiredStatus: structs.AllocDesiredStatusRun,
		ClientStatus: structs.AllocClientStatusRunning,
	}
	prev := sc.store.BeforeSubmit
	sc.store.BeforeSubmit = func(s *schedulertest.Store, p *structs.Plan) {
		if prev != nil {
			prev(s, p)
		}
		s.BeforeSubmit = nil
		s.UpsertAllocs(a)
	}
	return ""
}

// process runs the scheduler on every pending (or blocked) eval, in
// creation order, and reports each outcome.
func (sc *scenario) process(blocked bool) string {
	want := structs.EvalStatusPending
	if blocked {
		want = structs.EvalStatusBlocked
	}
	sc.plans = len(sc.store.Plans)
	var out []string
	for _, e := range sc.store.Evals() {
		if e.Status != want || e.WaitUntil.After(sc.now) {
			continue
		}
		s, err := scheduler.New(e.Type, scheduler.Config{State: sc.store, Planner: sc.store, Now: func() time.Time { return sc.now }})
		if err != nil {
			out = append(out, fmt.Sprintf("%s: error: %v", sc.name(e.ID), err))
			continue
		}
		if err := s.Process(e.Copy()); err != nil {
			out = append(out, fmt.Sprintf("%s: error: %v", sc.name(e.ID), err))
			continue
		}
		out = append(out, sc.evalLine(sc.store.Eval(e.ID)))
	}
	return strings.Join(out, "\n")
}

// name labels an eval by its creation order: e1, e2, ... (blocked evals get
// random IDs from the scheduler; their label is still stable).
func (sc *scenario) name(id string) string {
	for i, e := range sc.store.Evals() {
		if e.ID == id {
			return fmt.Sprintf("e%d", i+1)
		}
	}
	return "?"
}

// reschedule sets the fields of rp named in spec, "key:value,...".
func (sc *scenario) reschedule(rp *structs.ReschedulePolicy, spec string) {
	for _, kv := range list(spec) {
		k, v, _ := strings.Cut(kv, ":")
		var err error
		switch k {
		case "attempts":
			rp.Attempts, err = strconv.Atoi(v)
		case "interval":
			rp.Interval, err = time.ParseDuration(v)
		case "delay":
			rp.Delay, err = time.ParseDuration(v)
		case "max_delay":
			rp.MaxDelay, err = time.ParseDuration(v)
		case "delay_function":
			rp.DelayFunction = v
		case "unlimited":
			rp.Unlimited, err = strconv.ParseBool(v)
		default:
			sc.t.Fatalf("unknown reschedule field %q", k)
		}
		if err != nil {
			sc.t.Fatalf("reschedule %s: %v", kv, err)
		}
	}
}
