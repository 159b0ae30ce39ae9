package client_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/client"
	"github.com/nomadish/nomadish/client/clienttest"
	"github.com/nomadish/nomadish/drivers/catalog"
	"github.com/nomadish/nomadish/structs"
)

// These tests run real driver plugin processes (this test binary, see
// TestMain) and real tasks, so they poll with a deadline.

func rawExecClient(t *testing.T, srv *clienttest.FakeServer, dir string) *client.Client {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	c, err := client.New(&client.Config{DataDir: dir, PluginExecutable: exe,
		Drivers: catalog.Builtin, PluginConfig: map[string]map[string]any{"raw_exec": {"enabled": true}},
		Logger: hclog.New(&hclog.LoggerOptions{Level: hclog.Warn, Output: os.Stderr})}, srv)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("client ready in %v", time.Since(start))
	return c
}

func rawExecAlloc(nodeID, id, jobType, script string) *structs.Allocation {
	job := &structs.Job{ID: "rx", Type: jobType, TaskGroups: []*structs.TaskGroup{{
		Name: "g", Tasks: []*structs.Task{{Name: "t", Driver: "raw_exec", KillTimeout: 2 * time.Second,
			Config: map[string]any{"command": "/bin/sh", "args": []any{"-c", script}}}}}}}
	job.Canonicalize()
	return &structs.Allocation{ID: id, NodeID: nodeID, Name: "rx.g[0]", JobID: "rx", Job: job, TaskGroup: "g",
		Namespace: "default", DesiredStatus: structs.AllocDesiredStatusRun,
		AllocatedResources: structs.AllocatedFor(job.TaskGroups[0])}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func status(srv *clienttest.FakeServer, id string) string {
	if a := srv.Alloc(id); a != nil {
		return a.ClientStatus
	}
	return ""
}

func TestRawExecBatchEndToEnd(t *testing.T) {
	srv := clienttest.NewFakeServer()
	defer srv.Close()
	c := rawExecClient(t, srv, t.TempDir())
	defer c.Shutdown()
	waitFor(t, "registration", func() bool { return srv.Node(c.NodeID()) != nil })
	if n := srv.Node(c.NodeID()); n.Attributes["driver.raw_exec"] != "1" || !n.Drivers["raw_exec"].Healthy {
		t.Fatalf("raw_exec not healthy: %+v", n.Drivers["raw_exec"])
	}
	start := time.Now()
	srv.AddAlloc(rawExecAlloc(c.NodeID(), "b1", structs.JobTypeBatch, "echo hello $NOMAD_ALLOC_ID; echo oops >&2"))
	waitFor(t, "complete", func() bool { return status(srv, "b1") == structs.AllocClientStatusComplete })
	t.Logf("alloc complete %v after it was placed", time.Since(start))
	var out, errOut bytes.Buffer
	if err := c.Logs(context.Background(), "b1", "t", "stdout", "start", 0, false, &out); err != nil {
		t.Fatal(err)
	}
	if err := c.Logs(context.Background(), "b1", "t", "stderr", "start", 0, true, &errOut); err != nil {
		t.Fatal(err)
	}
	if out.String() != "hello b1\n" || errOut.String() != "oops\n" {
		t.Fatalf("stdout %q stderr %q", out.String(), errOut.String())
	}
}

func TestRawExecClientRestartKeepsTask(t *testing.T) {
	srv := clienttest.NewFakeServer()
	defer srv.Close()
	dir := t.TempDir()
	c := rawExecClient(t, srv, dir)
	waitFor(t, "registration", func() bool { return srv.Node(c.NodeID()) != nil })
	srv.AddAlloc(rawExecAlloc(c.NodeID(), "s1", structs.JobTypeService, "echo $$; exec sleep 60"))
	waitFor(t, "running", func() bool { return status(srv, "s1") == structs.AllocClientStatusRunning })
	var pid bytes.Buffer
	waitFor(t, "pid in log", func() bool {
		pid.Reset()
		c.Logs(context.Background(), "s1", "t", "stdout", "start", 0, false, &pid)
		return strings.HasSuffix(pid.String(), "\n")
	})
	if err := c.Shutdown(); err != nil {
		t.Fatal(err)
	}
	c2 := rawExecClient(t, srv, dir)
	defer c2.Shutdown()
	// Re-attached: the task still runs, was not started again.
	time.Sleep(100 * time.Millisecond)
	a := srv.Alloc("s1")
	started := strings.Count(eventTypes(a.TaskStates["t"]), "Started")
	if a.ClientStatus != structs.AllocClientStatusRunning || started != 1 {
		t.Fatalf("after restart: %s events %s", a.ClientStatus, eventTypes(a.TaskStates["t"]))
	}
	var again bytes.Buffer
	c2.Logs(context.Background(), "s1", "t", "stdout", "start", 0, false, &again)
	if again.String() != pid.String() {
		t.Fatalf("log changed: %q -> %q (task restarted?)", pid.String(), again.String())
	}
	start := time.Now()
	srv.StopAlloc("s1")
	waitFor(t, "complete after stop", func() bool { return status(srv, "s1") == structs.AllocClientStatusComplete })
	t.Logf("stopped in %v; events %s", time.Since(start), eventTypes(srv.Alloc("s1").TaskStates["t"]))
}

// pluginPID finds this process's child running "plugin <name>".
func pluginPID(t *testing.T, name string) int {
	t.Helper()
	pid := pluginPIDOrZero(name)
	if pid == 0 {
		t.Fatalf("no %s plugin process", name)
	}
	return pid
}

// pluginPIDOrZero is pluginPID, 0 when there is none.
func pluginPIDOrZero(name string) int {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(fields) < 2 || fields[1] != strconv.Itoa(os.Getpid()) {
			continue
		}
		cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if strings.HasSuffix(string(cmd), "\x00plugin\x00"+name+"\x00") {
			return pid
		}
	}
	return 0
}

func TestRawExecPluginCrashRelaunches(t *testing.T) {
	srv := clienttest.NewFakeServer()
	defer srv.Close()
	c := rawExecClient(t, srv, t.TempDir())
	defer c.Shutdown()
	waitFor(t, "registration", func() bool { return srv.Node(c.NodeID()) != nil })
	srv.AddAlloc(rawExecAlloc(c.NodeID(), "s1", structs.JobTypeService, "exec sleep 60"))
	waitFor(t, "running", func() bool { return status(srv, "s1") == structs.AllocClientStatusRunning })
	old := pluginPID(t, "raw_exec")
	if err := syscall.Kill(old, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	waitFor(t, "relaunched plugin", func() bool {
		n := c.Node()
		pid := pluginPIDOrZero("raw_exec")
		return n.Drivers["raw_exec"].Healthy && pid != 0 && pid != old
	})
	t.Logf("plugin relaunched in %v", time.Since(start))
	time.Sleep(300 * time.Millisecond)
	a := srv.Alloc("s1")
	if a.ClientStatus != structs.AllocClientStatusRunning || eventTypes(a.TaskStates["t"]) != "Received,Task Setup,Started" {
		for _, e := range a.TaskStates["t"].Events {
			t.Logf("event %s: %s", e.Type, e.DisplayMessage)
		}
		t.Fatalf("after plugin crash: %s %s", a.ClientStatus, eventTypes(a.TaskStates["t"]))
	}
	srv.StopAlloc("s1")
	waitFor(t, "complete after stop", func() bool { return status(srv, "s1") == structs.AllocClientStatusComplete })
	t.Logf("events %s", eventTypes(srv.Alloc("s1").TaskStates["t"]))
}

// TestRawExecUnknownConfigKeyIsUnhealthy: the real raw_exec plugin rejects
// an unknown key; the node reports the driver unhealthy with the reason,
// and Shutdown is prompt (no relaunch loop to wait for).
func TestRawExecUnknownConfigKeyIsUnhealthy(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	srv := clienttest.NewFakeServer()
	defer srv.Close()
	c, err := client.New(&client.Config{DataDir: t.TempDir(), PluginExecutable: exe,
		Drivers: catalog.Builtin, PluginConfig: map[string]map[string]any{"raw_exec": {"enabled": true, "volumes": true}}}, srv)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "registration", func() bool { return srv.Node(c.NodeID()) != nil })
	d := srv.Node(c.NodeID()).Drivers["raw_exec"]
	if d == nil || d.Healthy || !d.Detected || !strings.Contains(d.HealthDescription, `unknown key "volumes"`) {
		t.Fatalf("raw_exec driver info %+v", d)
	}
	start := time.Now()
	c.Shutdown()
	if el := time.Since(start); el > 5*time.Second {
		t.Fatalf("Shutdown took %v", el)
	}
}
