package e2e

import (
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// periodicJob is a raw_exec batch job launched every 2 seconds (cronexpr's
// seven fields: second minute hour dom month dow year, as in Nomad).
const periodicJob = `job "tick" {
  type        = "batch"
  datacenters = ["dc1"]
  periodic {
    crons            = ["*/2 * * * * * *"]
    prohibit_overlap = false
  }
  group "g" {
    task "t" {
      driver = "raw_exec"
      config {
        command = "/bin/true"
      }
    }
  }
}
`

// childLaunches lists the launch times (unix seconds) of parent's
// periodic children as the agent at addr reports them.
func childLaunches(t *testing.T, addr, parent string) ([]int64, error) {
	t.Helper()
	var stubs []struct{ ID, ParentID string }
	if err := getJSON(addr+"/v1/jobs?prefix="+parent+"/periodic-", &stubs); err != nil {
		return nil, err
	}
	var out []int64
	for _, s := range stubs {
		if s.ParentID != parent {
			return nil, fmt.Errorf("child %s has parent %q", s.ID, s.ParentID)
		}
		n, err := strconv.ParseInt(strings.TrimPrefix(s.ID, parent+"/periodic-"), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("child ID %q: %v", s.ID, err)
		}
		out = append(out, n)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out, nil
}

// A periodic job with a 2-second cron launches children across a leader
// SIGKILL in a three-server cluster: no launch twice, none at an off-grid
// time, and no gap longer than one period plus the election.
func TestPeriodicAcrossLeaderKill(t *testing.T) {
	servers := startRaftCluster(t, 3)
	addr := servers[0].addr
	if r := nomadishAt(t, addr, "job", "run", "-detach", writeFile(t, "tick.nomad.hcl", periodicJob)); r.code != 0 {
		t.Fatalf("job run: %v", r)
	}
	eventually(t, 30*time.Second, "three children before the kill", func() (bool, string) {
		l, err := childLaunches(t, addr, "tick")
		return err == nil && len(l) >= 3, fmt.Sprint(l, err)
	})
	before, _ := childLaunches(t, addr, "tick")
	failover := killAndRestartLeader(t, servers)
	var after []int64
	eventually(t, 30*time.Second, "three more children after the new leader", func() (bool, string) {
		var err error
		after, err = childLaunches(t, addr, "tick")
		return err == nil && len(after) >= len(before)+3, fmt.Sprint(after, err)
	})
	// A longer election: two servers SIGKILLed (no quorum) for 3 periods.
	// When they return, the launch due during the outage is launched once:
	// a child's launch time falls inside the outage.
	leader := waitConverged(t, servers, 3, 30*time.Second)
	var down []*serverProc // the leader and one follower
	for _, p := range servers {
		if p.rpcAddr == leader {
			down = append(down, p)
		}
	}
	for _, p := range servers {
		if p.rpcAddr != leader && len(down) < 2 {
			down = append(down, p)
		}
	}
	killed := time.Now()
	for _, p := range down {
		p.kill()
	}
	time.Sleep(6 * time.Second) // the outage itself (real processes)
	for _, p := range down {
		if err := p.start(p.addr[len("http://"):], p.rpcAddr); err != nil {
			t.Fatal(err)
		}
	}
	waitConverged(t, servers, 3, 60*time.Second)
	recovered := time.Now()
	var live *serverProc
	for _, p := range servers {
		if !p.exited() {
			live = p
		}
	}
	addr = live.addr
	eventually(t, 30*time.Second, "a launch due during the outage", func() (bool, string) {
		l, err := childLaunches(t, addr, "tick")
		for _, x := range l {
			if x > killed.Unix() && x <= recovered.Unix()+1 {
				return true, ""
			}
		}
		return false, fmt.Sprint(l, err)
	})
	outage := recovered.Sub(killed)
	if r := nomadishAt(t, addr, "job", "stop", "-detach", "tick"); r.code != 0 {
		t.Fatalf("job stop: %v", r)
	}
	final, err := childLaunches(t, addr, "tick")
	if err != nil {
		t.Fatal(err)
	}
	// The bound: the launcher catches up with the latest launch due during
	// the election, so consecutive launches are at most one period plus
	// the failover (and the new leader's set-up, 1 s of slack) apart.
	maxGap := int64(2 + max(failover, outage).Seconds() + 1)
	for i, l := range final {
		if l%2 != 0 {
			t.Errorf("launch %d at an odd second: not on the cron's grid", l)
		}
		if i > 0 {
			if l == final[i-1] {
				t.Errorf("launch %d twice", l)
			}
			if gap := l - final[i-1]; gap > maxGap {
				t.Errorf("gap of %ds between launches %d and %d (max %ds, failover %v)", gap, final[i-1], l, maxGap, failover)
			}
		}
	}
	t.Logf("%d launches, failover %v: %v", len(final), failover, final)
	// The parent shows its next launch and children in `job status`.
	r := nomadishAt(t, addr, "job", "status", "tick")
	if r.code != 0 || !strings.Contains(r.out, "Previously Launched Jobs") || !strings.Contains(r.out, "tick/periodic-") {
		t.Fatalf("job status: %v", r)
	}
}

// dispatchJob is a parameterized raw_exec job printing its payload file
// (written by dispatch_payload) and its meta.
const dispatchJobHCL = `job "greeter" {
  type = "batch"
  parameterized {
    payload       = "required"
    meta_required = ["who"]
    meta_optional = ["how"]
  }
  group "g" {
    task "t" {
      driver = "raw_exec"
      dispatch_payload {
        file = "in/payload.txt"
      }
      config {
        command = "/bin/sh"
        args    = ["-c", "echo payload=$(cat ${NOMAD_TASK_DIR}/in/payload.txt); env | grep ^NOMAD_ | sort"]
      }
    }
  }
}
`

// A parameterized job is dispatched with a payload (from stdin) and meta;
// its task reads the payload from its local dir. Missing required meta and
// a cron that does not parse are refused with clear errors, changing
// nothing.
func TestDispatchPayloadAndMeta(t *testing.T) {
	if r := nomadish(t, "job", "run", writeFile(t, "greeter.nomad.hcl", dispatchJobHCL)); r.code != 0 {
		t.Fatalf("job run: %v", r)
	}
	t.Cleanup(func() { // the dev agent is shared: leave no running parent behind
		kids, _ := childStubs(dev.addr, "greeter/")
		for _, id := range append(kids, "greeter") {
			nomadish(t, "job", "stop", "-purge", "-detach", id)
		}
	})
	// Missing required meta: refused, naming the key; no child.
	r := nomadishIn(t, "hello", "job", "dispatch", "-detach", "greeter", "-")
	if r.code == 0 || !strings.Contains(r.errOut, "missing required meta keys: [who]") {
		t.Fatalf("dispatch without meta: %v", r)
	}
	if kids, _ := childStubs(dev.addr, "greeter/dispatch-"); len(kids) != 0 {
		t.Fatalf("a refused dispatch made children: %v", kids)
	}
	r = nomadishIn(t, "hello world", "job", "dispatch", "-detach", "-meta", "who=e2e", "-meta", "how=warmly", "greeter", "-")
	if r.code != 0 || !strings.Contains(r.out, "Dispatched Job ID = greeter/dispatch-") {
		t.Fatalf("dispatch: %v", r)
	}
	child := strings.TrimSpace(strings.SplitN(strings.SplitN(r.out, "Dispatched Job ID = ", 2)[1], "\n", 2)[0])
	var allocID string
	eventually(t, 60*time.Second, "the dispatched child completes", func() (bool, string) {
		var allocs []allocRow
		if err := getJSON(dev.addr+"/v1/job/"+url.PathEscape(child)+"/allocations", &allocs); err != nil || len(allocs) != 1 {
			return false, fmt.Sprintf("%+v %v", allocs, err)
		}
		allocID = allocs[0].ID
		return allocs[0].ClientStatus == "complete", allocs[0].ClientStatus
	})
	logs := nomadish(t, "alloc", "logs", allocID, "t")
	if logs.code != 0 || !strings.Contains(logs.out, "payload=hello world") {
		t.Fatalf("task output: %v", logs)
	}
	// The dispatch meta is merged into the child's job meta, which the
	// client exposes as NOMAD_META_<key> (the task environment's part of
	// issue 13): once the environment carries any NOMAD_META_ variable,
	// the dispatched keys must be among them.
	if strings.Contains(logs.out, "NOMAD_META_") &&
		(!strings.Contains(logs.out, "NOMAD_META_who=e2e") || !strings.Contains(logs.out, "NOMAD_META_how=warmly")) {
		t.Fatalf("task env lacks the dispatch meta:\n%s", logs.out)
	}
	var job struct {
		ParentID   string
		Dispatched bool
		Meta       map[string]string
	}
	if err := getJSON(dev.addr+"/v1/job/"+url.PathEscape(child), &job); err != nil || job.ParentID != "greeter" || !job.Dispatched ||
		job.Meta["who"] != "e2e" || job.Meta["how"] != "warmly" {
		t.Fatalf("child job %+v: %v", job, err)
	}
	st := nomadish(t, "job", "status", "greeter")
	if st.code != 0 || !strings.Contains(st.out, "Dispatched Jobs") || !strings.Contains(st.out, child) {
		t.Fatalf("job status: %v", st)
	}
	// A cron that does not parse: refused at file:line:col, nothing sent.
	bad := writeFile(t, "badcron.nomad.hcl", "job \"badcron\" {\n  type = \"batch\"\n  periodic {\n    cron = \"every tuesday\"\n  }\n  group \"g\" {\n    task \"t\" {\n      driver = \"raw_exec\"\n      config {\n        command = \"/bin/true\"\n      }\n    }\n  }\n}\n")
	r = nomadish(t, "job", "run", bad)
	if r.code == 0 || !strings.Contains(r.errOut, "badcron.nomad.hcl:4:12: Invalid cron expression") {
		t.Fatalf("bad cron: %v", r)
	}
	if err := getJSON(dev.addr+"/v1/job/badcron", &job); err == nil {
		t.Fatal("a job with a bad cron was registered")
	}
}

// childStubs lists the IDs of jobs whose ID starts with prefix.
func childStubs(addr, prefix string) ([]string, error) {
	var stubs []struct{ ID string }
	if err := getJSON(addr+"/v1/jobs?prefix="+prefix, &stubs); err != nil {
		return nil, err
	}
	var out []string
	for _, s := range stubs {
		out = append(out, s.ID)
	}
	return out, nil
}
