package client_test

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/client/clienttest"
	"github.com/nomadish/nomadish/structs"
)

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// checkedAlloc is a service alloc of one raw_exec task serving dir over
// HTTP (busybox httpd) on port, with an http check of /ok that restarts the
// task after 2 failures and a script check run inside the task.
func checkedAlloc(nodeID, id, dir string, port int) *structs.Allocation {
	job := &structs.Job{ID: "web", Type: structs.JobTypeService, TaskGroups: []*structs.TaskGroup{{
		Name: "g", RestartPolicy: &structs.RestartPolicy{Attempts: 3, Interval: time.Hour, Delay: 50 * time.Millisecond, Mode: "fail"},
		Tasks: []*structs.Task{{Name: "t", Driver: "raw_exec", KillTimeout: time.Second,
			Config: map[string]any{"command": "/bin/busybox", "args": []any{"httpd", "-f", "-p", "127.0.0.1:" + strconv.Itoa(port), "-h", dir}},
			Services: []*structs.Service{{Name: "web", PortLabel: "http", Provider: "nomad", Tags: []string{"v1"},
				Checks: []*structs.ServiceCheck{
					{Name: "alive", Type: "http", Path: "/ok", Interval: 50 * time.Millisecond, Timeout: time.Second,
						CheckRestart: &structs.CheckRestart{Limit: 2}},
					{Name: "file", Type: "script", Command: "/bin/sh", Args: []string{"-c", "test -f " + dir + "/script-ok || exit 2"},
						Interval: 50 * time.Millisecond, Timeout: 5 * time.Second, OnUpdate: structs.OnUpdateIgnore},
				}}}}}}}}
	job.Canonicalize()
	a := &structs.Allocation{ID: id, NodeID: nodeID, Name: "web.g[0]", JobID: "web", Job: job, TaskGroup: "g",
		Namespace: "default", DesiredStatus: structs.AllocDesiredStatusRun,
		AllocatedResources: structs.AllocatedFor(job.TaskGroups[0])}
	a.AllocatedResources.Shared.Ports = []structs.AllocatedPortMapping{{Label: "http", Value: port, HostIP: "127.0.0.1"}}
	return a
}

func TestServiceChecksRegisterAndRestart(t *testing.T) {
	if _, err := os.Stat("/bin/busybox"); err != nil {
		t.Fatal("/bin/busybox is missing: install busybox-static (scripts/setup.sh test)")
	}
	srv := clienttest.NewFakeServer()
	defer srv.Close()
	c := rawExecClient(t, srv, t.TempDir())
	defer c.Shutdown()
	waitFor(t, "registration", func() bool { return srv.Node(c.NodeID()) != nil })
	dir := t.TempDir()
	for _, f := range []string{"ok", "script-ok"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("fine\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	port := freePort(t)
	srv.AddAlloc(checkedAlloc(c.NodeID(), "w1", dir, port))

	id := "_nomad-task-w1-t-web-http"
	waitFor(t, "service registered", func() bool {
		r := srv.Services()[id]
		return r != nil && r.Address == "127.0.0.1" && r.Port == port && r.AllocID == "w1" && r.Tags[0] == "v1"
	})
	statuses := func() map[string]string {
		res, err := c.AllocChecks("w1")
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, r := range res {
			out[r.Check] = r.Status + " " + r.Output
		}
		return out
	}
	waitFor(t, "both checks passing", func() bool {
		s := statuses()
		return strings.HasPrefix(s["alive"], "passing") && strings.HasPrefix(s["file"], "passing")
	})
	if s := statuses()["alive"]; !strings.Contains(s, "200 OK") {
		t.Fatalf("http check output %q", s)
	}

	// The script check (run in the task through raw_exec's exec) fails.
	if err := os.Remove(filepath.Join(dir, "script-ok")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "script check critical", func() bool { return strings.HasPrefix(statuses()["file"], "critical") })

	// The http check fails: check_restart restarts the task, naming the
	// check, counted against the restart policy.
	if err := os.Remove(filepath.Join(dir, "ok")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "check restart", func() bool {
		a := srv.Alloc("w1")
		if a == nil || a.TaskStates["t"] == nil {
			return false
		}
		for _, e := range a.TaskStates["t"].Events {
			if e.Type == structs.TaskRestartSignal && e.RestartReason == `healthcheck: check "alive" unhealthy` {
				return true
			}
		}
		return false
	})
	if err := os.WriteFile(filepath.Join(dir, "ok"), []byte("fine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "running again and passing", func() bool {
		a := srv.Alloc("w1")
		return a.TaskStates["t"].State == structs.TaskStateRunning && a.TaskStates["t"].Restarts >= 1 &&
			strings.HasPrefix(statuses()["alive"], "passing") && srv.Services()[id] != nil
	})
	var reasons []string
	for _, e := range srv.Alloc("w1").TaskStates["t"].Events {
		if e.Type == structs.TaskRestarting {
			reasons = append(reasons, e.RestartReason)
		}
	}
	if len(reasons) == 0 || reasons[0] != "Restart within policy" {
		t.Fatalf("a check restart goes through the restart policy: restarting reasons %q", reasons)
	}

	// Stopping the allocation deregisters its services.
	srv.StopAlloc("w1")
	waitFor(t, "deregistered", func() bool {
		return len(srv.Services()) == 0 && srv.ServiceCalls(structs.ServiceRegistrationDeleteByAllocID) > 0
	})
}

// A client restart keeps the registration and runs the checks again; an
// allocation stopped while the client was down is deregistered when the
// client comes back.
func TestServiceChecksAcrossClientRestart(t *testing.T) {
	if _, err := os.Stat("/bin/busybox"); err != nil {
		t.Fatal("/bin/busybox is missing: install busybox-static (scripts/setup.sh test)")
	}
	srv := clienttest.NewFakeServer()
	defer srv.Close()
	dataDir, dir := t.TempDir(), t.TempDir()
	for _, f := range []string{"ok", "script-ok"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("fine\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := rawExecClient(t, srv, dataDir)
	waitFor(t, "registration", func() bool { return srv.Node(c.NodeID()) != nil })
	srv.AddAlloc(checkedAlloc(c.NodeID(), "r1", dir, freePort(t)))
	passing := func(c interface {
		AllocChecks(string) (map[string]*structs.CheckQueryResult, error)
	}) bool {
		res, err := c.AllocChecks("r1")
		if err != nil || len(res) != 2 {
			return false
		}
		for _, r := range res {
			if r.Status != structs.CheckPassing {
				return false
			}
		}
		return true
	}
	waitFor(t, "checks passing", func() bool { return passing(c) })
	if err := c.Shutdown(); err != nil {
		t.Fatal(err)
	}
	if len(srv.Services()) != 1 || srv.ServiceCalls(structs.ServiceRegistrationDeleteByAllocID) != 0 {
		t.Fatalf("a client shutdown deregistered: %v", srv.Services())
	}

	c2 := rawExecClient(t, srv, dataDir)
	waitFor(t, "checks passing after the restart", func() bool { return passing(c2) })
	if err := c2.Shutdown(); err != nil {
		t.Fatal(err)
	}

	srv.StopAlloc("r1") // while the client is down
	c3 := rawExecClient(t, srv, dataDir)
	defer c3.Shutdown()
	waitFor(t, "deregistered after the restart", func() bool {
		return len(srv.Services()) == 0 && srv.ServiceCalls(structs.ServiceRegistrationDeleteByAllocID) > 0
	})
	waitFor(t, "stopped", func() bool { return status(srv, "r1") == structs.AllocClientStatusComplete })
}
