package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/structs"
)

const allocID2 = "a1a2a2a2-0000-4000-8000-000000000005"

func allocFixture(f *fakeAPI, tasks ...string) *structs.Allocation {
	tg := &structs.TaskGroup{Name: "g"}
	ar := &structs.AllocatedResources{Tasks: map[string]*structs.AllocatedTaskResources{}}
	for _, name := range tasks {
		tg.Tasks = append(tg.Tasks, &structs.Task{Name: name, Driver: "raw_exec"})
		ar.Tasks[name] = &structs.AllocatedTaskResources{Cpu: structs.AllocatedCpuResources{CpuShares: 100},
			Memory: structs.AllocatedMemoryResources{MemoryMB: 32}}
	}
	a := &structs.Allocation{ID: allocID, EvalID: evalID, Name: "example.g[0]", NodeID: nodeID, NodeName: "dev",
		JobID: "example", Job: &structs.Job{ID: "example", TaskGroups: []*structs.TaskGroup{tg}}, TaskGroup: "g",
		AllocatedResources: ar, DesiredStatus: "run", ClientStatus: "complete",
		CreateTime: fixedNow.Add(-5 * time.Second).UnixNano(), ModifyTime: fixedNow.Add(-2 * time.Second).UnixNano(),
		TaskStates: map[string]*structs.TaskState{tasks[0]: {State: "dead", StartedAt: fixedNow.Add(-4 * time.Second),
			FinishedAt: fixedNow.Add(-3 * time.Second), Events: []*structs.TaskEvent{
				{Type: structs.TaskReceived, Time: fixedNow.Add(-5 * time.Second).UnixNano()},
				{Type: structs.TaskStarted, Time: fixedNow.Add(-4 * time.Second).UnixNano()},
				{Type: structs.TaskTerminated, Time: fixedNow.Add(-3 * time.Second).UnixNano(), ExitCode: 0},
			}}},
	}
	f.alloc[a.ID] = a
	f.allocs = append(f.allocs, a.Stub(),
		&structs.AllocListStub{ID: allocID2, JobID: "other", NodeID: nodeID, TaskGroup: "x", DesiredStatus: "run", ClientStatus: "running"})
	return a
}

func TestAllocStatusByPrefix(t *testing.T) {
	f := newFakeAPI(t)
	allocFixture(f, "t")
	code, out, errOut := f.run("alloc", "status", "a1a1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	t.Log("\n" + out)
	for _, want := range []string{
		"ID                  = a1a1a1a1\n",
		"Client Status       = complete\n",
		"Created             = 5s ago\n",
		"Modified            = 2s ago\n",
		`Task "t" is "dead"`,
		"100 MHz  32 MiB",
		"Task started by client",
		"Exit Code: 0",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if strings.Index(out, "Terminated") > strings.Index(out, "Received") {
		t.Errorf("recent events are not newest first:\n%s", out)
	}
}

func TestAllocStatusAmbiguousAndMissing(t *testing.T) {
	f := newFakeAPI(t)
	allocFixture(f, "t")
	code, out, errOut := f.run("alloc", "status", "a1")
	if code != 1 || out != "" || !strings.Contains(errOut, `prefix "a1" matched multiple allocations`) ||
		!strings.Contains(errOut, allocID) || !strings.Contains(errOut, allocID2) {
		t.Fatalf("ambiguous: exit %d, out %q, err %q", code, out, errOut)
	}
	code, _, errOut = f.run("alloc", "status", "ffff")
	if code != 1 || !strings.Contains(errOut, `no allocation(s) with prefix or id "ffff" found`) {
		t.Fatalf("missing: exit %d, err %q", code, errOut)
	}
	if f.requestCount("GET /v1/allocations?prefix=a1") != 1 {
		t.Errorf("prefix not sent to the server: %q", f.requests)
	}
}

func TestAllocLogs(t *testing.T) {
	f := newFakeAPI(t)
	allocFixture(f, "t")
	f.logs = "one\ntwo\nthree\n"
	code, out, errOut := f.run("alloc", "logs", "a1a1")
	if code != 0 || out != f.logs {
		t.Fatalf("exit %d, out %q, err %q", code, out, errOut)
	}
	if f.requestCount("GET /v1/client/fs/logs/"+allocID+"?follow=false&offset=0&origin=start&plain=true&task=t&type=stdout") != 1 {
		t.Errorf("requests %q", f.requests)
	}
	code, out, _ = f.run("alloc", "logs", "-stderr", "-tail", "-n", "2", "a1a1", "t")
	if code != 0 || out != "two\nthree\n" || f.requestCount("GET /v1/client/fs/logs/"+allocID+"?follow=false&offset=0&origin=start&plain=true&task=t&type=stderr") != 1 {
		t.Fatalf("tail: exit %d, out %q", code, out)
	}
	code, _, errOut = f.run("alloc", "logs", "a1a1", "nope")
	if code != 1 || !strings.Contains(errOut, `task "nope" not found`) {
		t.Fatalf("bad task: exit %d, err %q", code, errOut)
	}
}

func TestAllocLogsNeedsTaskWhenSeveral(t *testing.T) {
	f := newFakeAPI(t)
	allocFixture(f, "a", "b")
	code, _, errOut := f.run("alloc", "logs", allocID)
	if code != 1 || !strings.Contains(errOut, "has 2 tasks (a, b)") {
		t.Fatalf("exit %d, err %q", code, errOut)
	}
	if f.requestCount("GET /v1/client/fs/logs") != 0 {
		t.Errorf("logs fetched without a task")
	}
}

func TestTailOf(t *testing.T) {
	for _, c := range []struct {
		in    string
		lines int
		bytes int64
		want  string
	}{
		{"a\nb\nc\n", 2, -1, "b\nc\n"},
		{"a\nb\nc", 2, -1, "b\nc"},
		{"a\nb\nc\n", 5, -1, "a\nb\nc\n"},
		{"a\nb\nc\n", 0, -1, ""},
		{"abcdef", -1, 3, "def"},
		{"", 3, -1, ""},
		{strings.Repeat("x\n", 20), -1, -1, strings.Repeat("x\n", 10)},
	} {
		if got := string(tailOf([]byte(c.in), c.lines, c.bytes)); got != c.want {
			t.Errorf("tailOf(%q, %d, %d) = %q, want %q", c.in, c.lines, c.bytes, got, c.want)
		}
	}
}
