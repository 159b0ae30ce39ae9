package agent

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/nomad/api"

	"github.com/nomadish/nomadish/agent/config"
	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

// TestOfficialClientServices registers services of a running allocation
// as its client does (ServiceRegistration.Upsert with the node's secret,
// through the server's RPC), then reads them with the official client
// (Services().List/Get, ?tag=, ?choose=, a blocking Get), sees the task's
// nomadService template re-render on each change, and deletes them
// (Services().Delete; DeleteByAllocIDs with the node secret).
func TestOfficialClientServices(t *testing.T) {
	a, c := devAgent(t)
	job := api.NewServiceJob("svc", "svc", "global", 50)
	job.Datacenters = []string{"dc1"}
	task := api.NewTask("t", "raw_exec").SetConfig("command", "/bin/sleep").SetConfig("args", []string{"300"})
	task.Templates = []*api.Template{{
		EmbeddedTmpl: new(`{{ range nomadService "web" }}{{ .Address }}:{{ .Port }};{{ end }}`),
		DestPath:     new("local/up.conf"), ChangeMode: new("noop"),
	}}
	job.AddTaskGroup(api.NewTaskGroup("g", 1).AddTask(task))
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _, _ = c.Jobs().Deregister("svc", true, nil) })
	var alloc *api.Allocation
	waitFor(t, 20*time.Second, "the task running", func() error {
		stubs, _, err := c.Jobs().Allocations("svc", false, nil)
		if err != nil || len(stubs) != 1 || stubs[0].ClientStatus != "running" {
			return fmt.Errorf("allocs %v: %v", stubs, err)
		}
		alloc, _, err = c.Allocations().Info(stubs[0].ID, nil)
		return err
	})
	rendered := func(want string) {
		t.Helper()
		waitFor(t, 10*time.Second, "local/up.conf = "+want, func() error {
			rc, err := c.AllocFS().Cat(alloc, "t/local/up.conf", nil)
			if err != nil {
				return err
			}
			defer rc.Close()
			b, _ := io.ReadAll(rc)
			if string(b) != want {
				return fmt.Errorf("rendered %q", b)
			}
			return nil
		})
	}
	rendered("")

	secret := a.Client().Node().SecretID
	reg := func(port int, tags ...string) *structs.ServiceRegistration {
		return &structs.ServiceRegistration{ID: fmt.Sprintf("_nomad-task-%s-t-web-%d", alloc.ID, port), ServiceName: "web",
			Namespace: "default", NodeID: alloc.NodeID, Datacenter: "dc1", JobID: "svc", AllocID: alloc.ID,
			Tags: tags, Address: "127.0.0.1", Port: port}
	}
	upsert := func(secret string, regs ...*structs.ServiceRegistration) error {
		return a.Server().RPC(structs.ServiceRegistrationUpsertRPC, &structs.ServiceRegistrationUpsertRequest{
			Services: regs, WriteRequest: structs.WriteRequest{AuthToken: secret}}, &structs.ServiceRegistrationUpsertResponse{})
	}
	if err := upsert("not-the-secret", reg(8080)); err == nil {
		t.Fatal("an upsert without the node secret was accepted")
	}
	if err := upsert(secret, reg(8080, "blue"), reg(8081, "green")); err != nil {
		t.Fatal(err)
	}
	rendered("127.0.0.1:8080;127.0.0.1:8081;")

	list, _, err := c.Services().List(nil)
	if err != nil || len(list) != 1 || list[0].Namespace != "default" || len(list[0].Services) != 1 ||
		list[0].Services[0].ServiceName != "web" || strings.Join(list[0].Services[0].Tags, ",") != "blue,green" {
		t.Fatalf("list: %+v %v", list, err)
	}
	all, qm, err := c.Services().Get("web", nil)
	if err != nil || len(all) != 2 || all[0].AllocID != alloc.ID || all[0].Port != 8080 || all[0].NodeID != alloc.NodeID ||
		all[0].CreateIndex == 0 || qm.LastIndex == 0 {
		t.Fatalf("get: %+v %v", all, err)
	}
	if blue, _, err := c.Services().Get("web", &api.QueryOptions{Params: map[string]string{"tag": "blue"}}); err != nil || len(blue) != 1 || blue[0].Port != 8080 {
		t.Fatalf("get ?tag=blue: %+v %v", blue, err)
	}
	if one, _, err := c.Services().Get("web", &api.QueryOptions{Params: map[string]string{"choose": "1|key"}}); err != nil || len(one) != 1 {
		t.Fatalf("get ?choose=1|key: %+v %v", one, err)
	}
	if _, _, err := c.Services().Get("web", &api.QueryOptions{Params: map[string]string{"choose": "one"}}); err == nil || !strings.Contains(err.Error(), "400") {
		t.Fatalf("bad choose: %v", err)
	}
	if none, _, err := c.Services().Get("nope", nil); err != nil || len(none) != 0 {
		t.Fatalf("unknown service: %+v %v", none, err)
	}

	// A blocking Get at the current index answers once a registration moves.
	type res struct {
		regs []*api.ServiceRegistration
		qm   *api.QueryMeta
		err  error
	}
	done := make(chan res, 1)
	go func() {
		regs, qm2, err := c.Services().Get("web", &api.QueryOptions{WaitIndex: qm.LastIndex, WaitTime: time.Minute})
		done <- res{regs, qm2, err}
	}()
	if err := upsert(secret, reg(8081, "green", "canary")); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil || r.qm.LastIndex <= qm.LastIndex || len(r.regs) != 2 {
		t.Fatalf("blocking get: %+v %v", r.qm, r.err)
	}

	if _, err := c.Services().Delete("web", "nope", nil); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("delete unknown: %v", err)
	}
	if _, err := c.Services().Delete("web", reg(8080).ID, nil); err != nil {
		t.Fatal(err)
	}
	rendered("127.0.0.1:8081;")
	if err := a.Server().RPC(structs.ServiceRegistrationDeleteByAllocID, &structs.ServiceRegistrationDelByAllocIDsRequest{
		AllocIDs: []string{alloc.ID}, WriteRequest: structs.WriteRequest{AuthToken: secret}}, &structs.ServiceRegistrationDelResponse{}); err != nil {
		t.Fatal(err)
	}
	rendered("")
	if list, _, err := c.Services().List(nil); err != nil || len(list) != 0 {
		t.Fatalf("list after deletes: %+v %v", list, err)
	}
}

// TestServicesLeaveWithAllocAndNode: on a real server, an allocation its
// client reports complete (Node.UpdateAlloc) loses its registrations, and
// a node whose heartbeat TTL runs out loses all of its own, each in the
// write that changes the allocation or the node; the official client's
// blocking Get sees both.
func TestServicesLeaveWithAllocAndNode(t *testing.T) {
	cfg := config.DevConfig()
	cfg.Name = "svc-down"
	cfg.Ports = config.Ports{}
	cfg.Client.Enabled = false
	cfg.Server.MinHeartbeatTTL, cfg.Server.HeartbeatGrace = time.Second, time.Second
	a, err := New(cfg, hclog.New(&hclog.LoggerOptions{Name: "agent", Level: hclog.Info, Output: t.Output()}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Shutdown() })
	c, err := api.NewClient(&api.Config{Address: "http://" + a.HTTPAddr()})
	if err != nil {
		t.Fatal(err)
	}
	node := structstest.Node(structs.GenerateUUID())
	node.Status = structs.NodeStatusReady
	waitFor(t, 10*time.Second, "a leader taking the node", func() error {
		return a.Server().RPC("Node.Register", &structs.NodeRegisterRequest{Node: node,
			WriteRequest: structs.WriteRequest{AuthToken: node.SecretID}}, &structs.NodeUpdateResponse{})
	})
	// Heartbeat as a client would until the last step.
	stopBeats, beatsDone := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(beatsDone)
		for {
			_ = a.Server().RPC("Node.UpdateStatus", &structs.NodeUpdateStatusRequest{NodeID: node.ID, Status: structs.NodeStatusReady,
				WriteRequest: structs.WriteRequest{AuthToken: node.SecretID}}, &structs.NodeUpdateResponse{})
			select {
			case <-stopBeats:
				return
			case <-time.After(200 * time.Millisecond):
			}
		}
	}()
	t.Cleanup(func() {
		select {
		case <-stopBeats:
		default:
			close(stopBeats)
		}
		<-beatsDone
	})
	job := api.NewServiceJob("two", "two", "global", 50)
	job.Datacenters = []string{"dc1"}
	job.AddTaskGroup(api.NewTaskGroup("g", 2).AddTask(api.NewTask("t", "raw_exec").SetConfig("command", "/bin/sleep")))
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	var allocs []*api.AllocationListStub
	waitFor(t, 10*time.Second, "two allocations placed", func() error {
		allocs, _, err = c.Jobs().Allocations("two", false, nil)
		if err != nil || len(allocs) != 2 {
			return fmt.Errorf("allocs %d: %v", len(allocs), err)
		}
		return nil
	})
	var regs []*structs.ServiceRegistration
	for i, al := range allocs {
		regs = append(regs, &structs.ServiceRegistration{ID: "_nomad-task-" + al.ID + "-g-web-http", ServiceName: "web",
			Namespace: "default", NodeID: node.ID, Datacenter: "dc1", JobID: "two", AllocID: al.ID, Address: "10.0.0.1", Port: 8000 + i})
	}
	if err := a.Server().RPC(structs.ServiceRegistrationUpsertRPC, &structs.ServiceRegistrationUpsertRequest{Services: regs,
		WriteRequest: structs.WriteRequest{AuthToken: node.SecretID}}, &structs.ServiceRegistrationUpsertResponse{}); err != nil {
		t.Fatal(err)
	}
	got, qm, err := c.Services().Get("web", nil)
	if err != nil || len(got) != 2 {
		t.Fatalf("registered: %+v %v", got, err)
	}

	// The client reports one allocation complete: its registration goes.
	if err := a.Server().RPC("Node.UpdateAlloc", &structs.AllocUpdateRequest{Alloc: []*structs.Allocation{{ID: allocs[0].ID,
		ClientStatus: structs.AllocClientStatusComplete}}, WriteRequest: structs.WriteRequest{AuthToken: node.SecretID}},
		&structs.GenericResponse{}); err != nil {
		t.Fatal(err)
	}
	got, qm2, err := c.Services().Get("web", &api.QueryOptions{WaitIndex: qm.LastIndex, WaitTime: time.Minute})
	if err != nil || len(got) != 1 || got[0].AllocID != allocs[1].ID || qm2.LastIndex <= qm.LastIndex {
		t.Fatalf("after the alloc completed: %+v %v", got, err)
	}

	// No more heartbeats: the node goes down and its registrations with it.
	close(stopBeats)
	<-beatsDone
	got, _, err = c.Services().Get("web", &api.QueryOptions{WaitIndex: qm2.LastIndex, WaitTime: time.Minute})
	if err != nil || len(got) != 0 {
		t.Fatalf("after the node went down: %+v %v", got, err)
	}
	if n, _, err := c.Nodes().Info(node.ID, nil); err != nil || n.Status != "down" {
		t.Fatalf("node: %+v %v", n, err)
	}
}
