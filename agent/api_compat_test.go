package agent

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/nomad/api"

	"github.com/nomadish/nomadish/agent/config"
)

// binDir holds the nomadish binary built for the end-to-end tests.
var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "nomadish-agent-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

var (
	buildOnce sync.Once
	buildErr  error
)

// nomadishBinary builds the repository's binary once (the client runs its
// driver plugins as "<binary> plugin <driver>").
func nomadishBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(binDir, "nomadish")
	buildOnce.Do(func() {
		cmd := exec.Command("go", "build", "-o", bin, ".")
		cmd.Dir = ".."
		out, err := cmd.CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return bin
}

// devAgent starts an in-process dev agent on free ports with temp dirs.
func devAgent(t *testing.T) (*Agent, *api.Client) {
	t.Helper()
	cfg := config.DevConfig()
	cfg.Name = "compat"
	cfg.Ports = config.Ports{} // any free ports
	logger := hclog.New(&hclog.LoggerOptions{Name: "agent", Level: hclog.Debug, Output: t.Output()})
	bin := nomadishBinary(t)
	start := time.Now()
	a, err := New(cfg, logger, WithPluginExecutable(bin))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := a.Shutdown(); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	c, err := api.NewClient(&api.Config{Address: "http://" + a.HTTPAddr()})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "a leader and a ready node with raw_exec", func() error {
		if l, err := c.Status().Leader(); err != nil || l == "" {
			return fmt.Errorf("leader %q: %v", l, err)
		}
		nodes, _, err := c.Nodes().List(nil)
		if err != nil || len(nodes) != 1 || nodes[0].Status != "ready" {
			return fmt.Errorf("nodes %v: %v", nodes, err)
		}
		if d := nodes[0].Drivers["raw_exec"]; d == nil || !d.Healthy {
			return fmt.Errorf("raw_exec not healthy: %+v", d)
		}
		return nil
	})
	t.Logf("dev agent: leader and ready node %v after start", time.Since(start).Round(time.Millisecond))
	return a, c
}

// waitFor polls cond until it returns nil or the deadline passes (end-to-end
// tests of real processes only).
func waitFor(t *testing.T, d time.Duration, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s: %v", d, what, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestOfficialClientEndToEnd drives a real dev agent (server, client,
// raw_exec plugin subprocess) with github.com/hashicorp/nomad/api.
func TestOfficialClientEndToEnd(t *testing.T) {
	_, c := devAgent(t)

	job := api.NewBatchJob("compat", "compat", "global", 50)
	job.Datacenters = []string{"dc1"}
	task := api.NewTask("hello", "raw_exec").
		SetConfig("command", "/bin/sh").SetConfig("args", []string{"-c", "echo hi"})
	job.AddTaskGroup(api.NewTaskGroup("g", 1).AddTask(task))
	plan, _, err := c.Jobs().Plan(job, true, nil)
	if err != nil || plan.Annotations == nil || plan.Annotations.DesiredTGUpdates["g"].Place != 1 {
		t.Fatalf("plan %+v: %v", plan, err)
	}
	resp, wm, err := c.Jobs().Register(job, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.EvalID == "" || wm.LastIndex == 0 {
		t.Fatalf("register: %+v, %+v", resp, wm)
	}

	jobs, qm, err := c.Jobs().List(nil)
	if err != nil || len(jobs) != 1 || jobs[0].ID != "compat" || qm.LastIndex == 0 {
		t.Fatalf("jobs %+v, %+v: %v", jobs, qm, err)
	}
	got, _, err := c.Jobs().Info("compat", nil)
	if err != nil || *got.Type != "batch" || got.TaskGroups[0].Tasks[0].Config["command"] != "/bin/sh" {
		t.Fatalf("job info %+v: %v", got, err)
	}
	checkEvals(t, c, resp.EvalID)
	checkParse(t, c)

	var allocID string
	var index uint64
	waitFor(t, 20*time.Second, "the alloc to complete", func() error {
		// A blocking query: returns when the job's allocations change.
		q := &api.QueryOptions{WaitIndex: index, WaitTime: 2 * time.Second}
		allocs, qm, err := c.Jobs().Allocations("compat", false, q)
		if err != nil || len(allocs) != 1 {
			return fmt.Errorf("allocs %v: %v", allocs, err)
		}
		index = qm.LastIndex
		allocID = allocs[0].ID
		if allocs[0].ClientStatus != "complete" {
			return fmt.Errorf("alloc status %q", allocs[0].ClientStatus)
		}
		return nil
	})
	alloc := checkAlloc(t, c, allocID)
	checkLogs(t, c, alloc)
	checkNodes(t, c, alloc.NodeID)
	checkStatusAndAgent(t, c)

	sum, _, err := c.Jobs().Summary("compat", nil)
	if err != nil || sum.Summary["g"].Complete != 1 {
		t.Fatalf("summary %+v: %v", sum, err)
	}
	evalID, _, err := c.Jobs().Deregister("compat", true, nil)
	if err != nil || evalID == "" {
		t.Fatalf("deregister: %q, %v", evalID, err)
	}
	if _, _, err := c.Jobs().Info("compat", nil); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("purged job still readable: %v", err)
	}
}

func checkEvals(t *testing.T, c *api.Client, evalID string) {
	t.Helper()
	ev, _, err := c.Evaluations().Info(evalID, nil)
	if err != nil || ev.JobID != "compat" || ev.TriggeredBy != "job-register" {
		t.Fatalf("eval info %+v: %v", ev, err)
	}
	evals, _, err := c.Evaluations().List(nil)
	if err != nil || len(evals) == 0 {
		t.Fatalf("eval list %v: %v", evals, err)
	}
	byPrefix, _, err := c.Evaluations().PrefixList(evalID[:8])
	if err != nil || len(byPrefix) != 1 || byPrefix[0].ID != evalID {
		t.Fatalf("eval prefix list %v: %v", byPrefix, err)
	}
	jobEvals, _, err := c.Jobs().Evaluations("compat", nil)
	if err != nil || len(jobEvals) == 0 {
		t.Fatalf("job evals %v: %v", jobEvals, err)
	}
}

// checkParse parses HCL on the agent, errors naming file:line:col.
func checkParse(t *testing.T, c *api.Client) {
	t.Helper()
	hcl := `job "parsed" {
  type = "batch"
  group "g" {
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/true" }
    }
  }
}`
	job, err := c.Jobs().ParseHCL(hcl, true)
	if err != nil || *job.ID != "parsed" || *job.Type != "batch" || *job.TaskGroups[0].Count != 1 {
		t.Fatalf("parse %+v: %v", job, err)
	}
	_, err = c.Jobs().ParseHCL("job \"x\" {\n  bogus = 1\n}\n", false)
	if err == nil || !strings.Contains(err.Error(), "400") || !strings.Contains(err.Error(), "input.hcl:2:3") {
		t.Fatalf("bad HCL: err = %v, want a 400 naming input.hcl:2:3", err)
	}
}

func checkAlloc(t *testing.T, c *api.Client, id string) *api.Allocation {
	t.Helper()
	list, _, err := c.Allocations().List(nil)
	if err != nil || len(list) != 1 || list[0].ID != id {
		t.Fatalf("alloc list %v: %v", list, err)
	}
	alloc, _, err := c.Allocations().Info(id, nil)
	if err != nil {
		t.Fatal(err)
	}
	ts := alloc.TaskStates["hello"]
	if alloc.JobID != "compat" || ts == nil || ts.State != "dead" || ts.Failed {
		t.Fatalf("alloc %+v, task state %+v", alloc, ts)
	}
	return alloc
}

func checkLogs(t *testing.T, c *api.Client, alloc *api.Allocation) {
	t.Helper()
	frames, errs := c.AllocFS().Logs(alloc, false, "hello", "stdout", "start", 0, nil, nil)
	if frames == nil {
		t.Fatal(<-errs)
	}
	var out strings.Builder
	for f := range frames {
		out.Write(f.Data)
	}
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
	if out.String() != "hi\n" {
		t.Fatalf("logs = %q, want %q", out.String(), "hi\n")
	}
}

func checkNodes(t *testing.T, c *api.Client, nodeID string) {
	t.Helper()
	node, _, err := c.Nodes().Info(nodeID, nil)
	if err != nil || node.ID != nodeID || node.Name != "compat" {
		t.Fatalf("node %+v: %v", node, err)
	}
	for _, path := range []string{"/v1/node/" + nodeID, "/v1/nodes"} {
		resp, err := http.Get(c.Address() + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(body), `"SecretID":"`) && !strings.Contains(string(body), `"SecretID":""`) {
			t.Fatalf("%s leaks the node SecretID: %s", path, body)
		}
	}
}

func checkStatusAndAgent(t *testing.T, c *api.Client) {
	t.Helper()
	if peers, err := c.Status().Peers(); err != nil || len(peers) != 1 {
		t.Fatalf("peers %v: %v", peers, err)
	}
	self, err := c.Agent().Self()
	if err != nil || self.Member.Name != "compat.global" || self.Config["Region"] != "global" {
		t.Fatalf("self %+v: %v", self, err)
	}
	members, err := c.Agent().Members()
	if err != nil || len(members.Members) != 1 || members.Members[0].Status != "alive" {
		t.Fatalf("members %+v: %v", members, err)
	}
	health, err := c.Agent().Health()
	if err != nil || health.Server == nil || !health.Server.Ok || health.Client == nil || !health.Client.Ok {
		t.Fatalf("health %+v: %v", health, err)
	}
}

// TestOfficialClientFollowLogs follows a running service task's stdout: each
// line arrives while the task still runs (frames are flushed as written).
func TestOfficialClientFollowLogs(t *testing.T) {
	_, c := devAgent(t)
	job := api.NewServiceJob("follow", "follow", "global", 50)
	job.Datacenters = []string{"dc1"}
	task := api.NewTask("t", "raw_exec").SetConfig("command", "/bin/sh").
		SetConfig("args", []string{"-c", "echo first; sleep 0.3; echo second; sleep 60"})
	job.AddTaskGroup(api.NewTaskGroup("g", 1).AddTask(task))
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	var alloc *api.Allocation
	waitFor(t, 10*time.Second, "the task to run", func() error {
		allocs, _, err := c.Jobs().Allocations("follow", false, nil)
		if err != nil || len(allocs) != 1 || allocs[0].ClientStatus != "running" {
			return fmt.Errorf("allocs %v: %v", allocs, err)
		}
		alloc, _, err = c.Allocations().Info(allocs[0].ID, nil)
		return err
	})
	cancel := make(chan struct{})
	defer close(cancel)
	frames, errs := c.AllocFS().Logs(alloc, true, "t", "stdout", "start", 0, cancel, nil)
	if frames == nil {
		t.Fatal(<-errs)
	}
	var got strings.Builder
	var first string
	deadline := time.After(10 * time.Second)
	for got.String() != "first\nsecond\n" {
		select {
		case f, ok := <-frames:
			if !ok {
				t.Fatalf("stream ended early with %q", got.String())
			}
			if first == "" {
				first = string(f.Data)
			}
			got.Write(f.Data)
		case err := <-errs:
			t.Fatal(err)
		case <-deadline:
			t.Fatalf("timed out following logs; got %q", got.String())
		}
	}
	if first != "first\n" {
		t.Fatalf("first frame %q: the stream did not deliver the first line before the second was written", first)
	}
	if _, _, err := c.Jobs().Deregister("follow", false, nil); err != nil {
		t.Fatal(err)
	}
}
