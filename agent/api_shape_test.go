package agent

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/nomadish/nomadish/structs"
)

// TestOfficialClientShapes drives the HTTP layer (over a fake RPCer) with the
// official Nomad client: paths, bodies, headers and JSON shapes must be what
// it sends and decodes.
func TestOfficialClientShapes(t *testing.T) {
	var stored *structs.Job
	f := registerOK(newFakeRPC())
	f.on(structs.JobRegisterRPC, func(args, reply any) error {
		stored = args.(*structs.JobRegisterRequest).Job
		r := reply.(*structs.JobRegisterResponse)
		r.EvalID, r.Index = "eval-1", 12
		return nil
	})
	f.on(structs.JobGetJobRPC, func(args, reply any) error {
		r := reply.(*structs.SingleJobResponse)
		r.Job, r.Index, r.KnownLeader = stored, 12, true
		return nil
	})
	f.on(structs.StatusLeaderRPC, func(args, reply any) error {
		*reply.(*string) = "127.0.0.1:4647"
		return nil
	})
	f.on(structs.StatusMembersRPC, func(args, reply any) error {
		r := reply.(*structs.ServerMembersResponse)
		r.ServerName, r.ServerRegion, r.ServerDC = "s1.global", "global", "dc1"
		r.Members = []*structs.ServerMember{{Name: "s1.global", Addr: "127.0.0.1", Port: 4648, Status: "alive", Tags: map[string]string{"region": "global"}}}
		return nil
	})
	self := func() *agentInfo {
		return &agentInfo{MemberName: "s1.global", Config: map[string]any{"Region": "global", "Datacenter": "dc1"}}
	}
	ts := httptest.NewServer(newHTTPServer(httpDeps{RPC: f, Self: self}))
	defer ts.Close()
	c, err := api.NewClient(&api.Config{Address: ts.URL})
	if err != nil {
		t.Fatal(err)
	}

	job := api.NewBatchJob("hello", "hello", "global", 50)
	job.Datacenters = []string{"dc1"}
	task := api.NewTask("t", "raw_exec").SetConfig("command", "/bin/sh").SetConfig("args", []string{"-c", "echo hi"})
	task.KillTimeout = ptr(3 * time.Second)
	job.AddTaskGroup(api.NewTaskGroup("g", 2).AddTask(task))
	resp, wm, err := c.Jobs().Register(job, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.EvalID != "eval-1" || wm.LastIndex != 12 {
		t.Fatalf("register: %+v %+v", resp, wm)
	}
	if stored.TaskGroups[0].Count != 2 || stored.TaskGroups[0].Tasks[0].KillTimeout != 3*time.Second {
		t.Fatalf("job not decoded faithfully: %+v", stored.TaskGroups[0])
	}

	got, qm, err := c.Jobs().Info("hello", &api.QueryOptions{WaitIndex: 3, WaitTime: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if *got.ID != "hello" || *got.TaskGroups[0].Count != 2 || got.TaskGroups[0].Tasks[0].Config["command"] != "/bin/sh" {
		t.Fatalf("info: %+v", got)
	}
	if qm.LastIndex != 12 || !qm.KnownLeader {
		t.Fatalf("query meta: %+v", qm)
	}
	q := f.callsTo(structs.JobGetJobRPC)[0].(*structs.JobSpecificRequest).QueryOptions
	if q.MinQueryIndex != 3 || q.MaxQueryTime != 2*time.Second {
		t.Fatalf("blocking query not passed on: %+v", q)
	}

	if leader, err := c.Status().Leader(); err != nil || leader != "127.0.0.1:4647" {
		t.Fatalf("leader %q, %v", leader, err)
	}
	s, err := c.Agent().Self()
	if err != nil || s.Member.Name != "s1.global" || s.Config["Datacenter"] != "dc1" {
		t.Fatalf("self %+v, %v", s, err)
	}
	m, err := c.Agent().Members()
	if err != nil || len(m.Members) != 1 || m.Members[0].Port != 4648 {
		t.Fatalf("members %+v, %v", m, err)
	}
	if r, err := c.Regions().List(); err != nil || len(r) != 1 || r[0] != "global" {
		t.Fatalf("regions %v, %v", r, err)
	}
	if m, _, err := c.Operator().MetricsSummary(nil); err != nil || len(m.Gauges) == 0 || m.Gauges[0].Name != "nomad.runtime.num_goroutines" {
		t.Fatalf("metrics %+v, %v", m, err)
	}

	stored = nil
	_, _, err = c.Jobs().Info("missing", nil)
	if err == nil || !strings.Contains(err.Error(), "404") || !strings.Contains(err.Error(), "job not found") {
		t.Fatalf("missing job error = %v", err)
	}
}

// TestOfficialClientLogs reads framed logs with api.AllocFS().Logs.
func TestOfficialClientLogs(t *testing.T) {
	logs := &fakeLogs{nodeID: "n1", chunks: []string{"hi\n", "there\n"}}
	s, f := logsServer("n1", logs)
	f.on(structs.NodeGetNodeRPC, func(args, reply any) error {
		reply.(*structs.SingleNodeResponse).Node = &structs.Node{ID: "n1", Status: "ready"}
		return nil
	})
	ts := httptest.NewServer(s)
	defer ts.Close()
	c, err := api.NewClient(&api.Config{Address: ts.URL})
	if err != nil {
		t.Fatal(err)
	}
	alloc := &api.Allocation{ID: logsAllocID, NodeID: "n1"}
	frames, errs := c.AllocFS().Logs(alloc, false, "t", "stdout", "start", 0, nil, nil)
	if frames == nil {
		t.Fatal(<-errs)
	}
	var out strings.Builder
	for fr := range frames {
		out.Write(fr.Data)
	}
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
	if out.String() != "hi\nthere\n" {
		t.Fatalf("logs = %q", out.String())
	}
}

func ptr[T any](v T) *T { return &v }
