package agent

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/nomadish/nomadish/structs"
)

// TestWorkloadVarsThroughClient drives the client accessor the template
// engine uses (ReadWorkloadVar, ListWorkloadVars) on a real dev agent with
// a running raw_exec task: its own job's paths read, another job's is
// refused, a blocking read returns when the variable changes, and a
// cancelled context ends the wait.
func TestWorkloadVarsThroughClient(t *testing.T) {
	a, c := devAgent(t)
	waitRootKey(t, c)
	job := api.NewServiceJob("wl", "wl", "global", 50)
	job.Datacenters = []string{"dc1"}
	task := api.NewTask("t", "raw_exec").SetConfig("command", "/bin/sleep").SetConfig("args", []string{"300"})
	job.AddTaskGroup(api.NewTaskGroup("g", 1).AddTask(task))
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	var allocID string
	waitFor(t, 20*time.Second, "the task running", func() error {
		allocs, _, err := c.Jobs().Allocations("wl", false, nil)
		if err != nil || len(allocs) != 1 || allocs[0].ClientStatus != "running" {
			return fmt.Errorf("allocs %v: %v", allocs, err)
		}
		allocID = allocs[0].ID
		return nil
	})
	t.Cleanup(func() { _, _, _ = c.Jobs().Deregister("wl", true, nil) })
	for p, v := range map[string]string{"nomad/jobs/wl": "job", "nomad/jobs/wl/g/t": "task", "nomad/jobs/other": "x"} {
		if _, _, err := c.Variables().Create(&api.Variable{Path: p, Items: api.VariableItems{"v": v}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	cl := a.Client()
	ctx := context.Background()
	got, index, err := cl.ReadWorkloadVar(ctx, allocID, "t", "nomad/jobs/wl/g/t", 0)
	if err != nil || got == nil || got.Items["v"] != "task" || index != got.ModifyIndex {
		t.Fatalf("own task path: %+v %d %v", got, index, err)
	}
	if got, _, err := cl.ReadWorkloadVar(ctx, allocID, "t", "nomad/jobs/wl/g", 0); err != nil || got != nil {
		t.Fatalf("absent own path: %+v %v", got, err)
	}
	if _, _, err := cl.ReadWorkloadVar(ctx, allocID, "t", "nomad/jobs/other", 0); err == nil {
		t.Fatal("another job's variable was readable")
	} else if code, _ := structs.ErrorCode(err); code != 403 {
		t.Fatalf("another job's variable: %v, want 403", err)
	}
	list, _, err := cl.ListWorkloadVars(ctx, allocID, "t", "nomad/jobs", 0)
	if err != nil || len(list) != 2 || list[0].Path != "nomad/jobs/wl" || list[1].Path != "nomad/jobs/wl/g/t" {
		t.Fatalf("list: %+v %v", list, err)
	}

	// A blocking read returns once the variable changes past index.
	type res struct {
		v   *structs.VariableDecrypted
		idx uint64
		err error
	}
	done := make(chan res, 1)
	go func() {
		v, idx, err := cl.ReadWorkloadVar(ctx, allocID, "t", "nomad/jobs/wl/g/t", index)
		done <- res{v, idx, err}
	}()
	select {
	case r := <-done:
		t.Fatalf("blocking read returned before any change: %+v", r)
	case <-time.After(200 * time.Millisecond):
	}
	if _, _, err := c.Variables().Update(&api.Variable{Path: "nomad/jobs/wl/g/t", Items: api.VariableItems{"v": "task2"}}, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-done:
		if r.err != nil || r.v.Items["v"] != "task2" || r.idx <= index {
			t.Fatalf("blocking read after the change: %+v", r)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("blocking read did not return after the change")
	}
	// A cancelled context ends the wait.
	cctx, cancel := context.WithCancel(ctx)
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	if _, _, err := cl.ListWorkloadVars(cctx, allocID, "t", "nomad/jobs/wl", 1<<40); err != context.Canceled {
		t.Fatalf("cancelled wait: %v", err)
	}
}
