package server

import (
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

// rpcCode runs an RPC and returns its error's code (0 for nil) and message.
func rpcCode(s *Server, method string, args, reply any) (int, string) {
	err := s.RPC(method, args, reply)
	if err == nil {
		return 0, ""
	}
	return structs.ErrorCode(err)
}

func TestNamespaceLifecycleRPC(t *testing.T) {
	s := testServer(t, nil)
	var gr structs.GenericResponse

	// "default" exists without being written, and can't be deleted.
	var list structs.NamespaceListResponse
	if err := s.RPC(structs.NamespaceListRPC, &structs.NamespaceListRequest{}, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Namespaces) != 1 || list.Namespaces[0].Name != "default" || list.Index == 0 {
		t.Fatalf("list: %+v index %d", list.Namespaces, list.Index)
	}
	if code, msg := rpcCode(s, structs.NamespaceDeleteRPC, &structs.NamespaceDeleteRequest{Namespaces: []string{"default"}}, &gr); code != 400 {
		t.Fatalf("delete default: %d %s", code, msg)
	}

	// A job in an unknown namespace is refused at register and plan.
	job := structstest.Job("web")
	job.Namespace = "team-a"
	var jr structs.JobRegisterResponse
	if code, msg := rpcCode(s, structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: job}, &jr); code != 400 || msg != `namespace "team-a" does not exist` {
		t.Fatalf("register in unknown namespace: %d %q", code, msg)
	}
	var pr structs.JobPlanResponse
	if code, _ := rpcCode(s, structs.JobPlanRPC, &structs.JobPlanRequest{Job: job}, &pr); code != 400 {
		t.Fatalf("plan in unknown namespace: %d", code)
	}

	// Bad names are refused and change nothing.
	before, _ := s.State().LatestIndex(nil)
	if code, _ := rpcCode(s, structs.NamespaceUpsertRPC, &structs.NamespaceUpsertRequest{Namespaces: []*structs.Namespace{{Name: "bad name!"}}}, &gr); code != 400 {
		t.Fatalf("bad name: %d", code)
	}
	if after, _ := s.State().LatestIndex(nil); after != before {
		t.Fatalf("state changed on a refused upsert")
	}

	ns := &structs.Namespace{Name: "team-a", Description: "Team A", Meta: map[string]string{"owner": "a"}}
	if err := s.RPC(structs.NamespaceUpsertRPC, &structs.NamespaceUpsertRequest{Namespaces: []*structs.Namespace{ns}}, &gr); err != nil {
		t.Fatal(err)
	}
	var one structs.SingleNamespaceResponse
	if err := s.RPC(structs.NamespaceGetRPC, &structs.NamespaceSpecificRequest{Name: "team-a"}, &one); err != nil {
		t.Fatal(err)
	}
	if one.Namespace == nil || one.Namespace.Description != "Team A" || one.Namespace.CreateIndex != gr.Index || one.Namespace.Meta["owner"] != "a" {
		t.Fatalf("get: %+v", one.Namespace)
	}

	// Now the job registers; the namespace can't be deleted while it lives.
	if err := s.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: job}, &jr); err != nil {
		t.Fatal(err)
	}
	code, msg := rpcCode(s, structs.NamespaceDeleteRPC, &structs.NamespaceDeleteRequest{Namespaces: []string{"team-a"}}, &gr)
	if code != 400 || !strings.Contains(msg, "non-terminal job") || !strings.Contains(msg, "web") {
		t.Fatalf("delete with a job: %d %q", code, msg)
	}

	// Lists across namespaces with "*"; "default" sees nothing of team-a.
	var jobs structs.JobListResponse
	if err := s.RPC(structs.JobListRPC, &structs.JobListRequest{QueryOptions: structs.QueryOptions{Namespace: "*"}}, &jobs); err != nil {
		t.Fatal(err)
	}
	if len(jobs.Jobs) != 1 || jobs.Jobs[0].ID != "web" {
		t.Fatalf("jobs in *: %+v", jobs.Jobs)
	}
	if err := s.RPC(structs.JobListRPC, &structs.JobListRequest{QueryOptions: structs.QueryOptions{Namespace: "default"}}, &jobs); err != nil {
		t.Fatal(err)
	}
	if len(jobs.Jobs) != 0 {
		t.Fatalf("jobs in default: %+v", jobs.Jobs)
	}

	// Purged, the namespace goes.
	var dr structs.JobDeregisterResponse
	dreq := &structs.JobDeregisterRequest{JobID: "web", Purge: true}
	dreq.Namespace = "team-a"
	if err := s.RPC(structs.JobDeregisterRPC, dreq, &dr); err != nil {
		t.Fatal(err)
	}
	if err := s.RPC(structs.NamespaceDeleteRPC, &structs.NamespaceDeleteRequest{Namespaces: []string{"team-a"}}, &gr); err != nil {
		t.Fatal(err)
	}
	if code, _ := rpcCode(s, structs.NamespaceDeleteRPC, &structs.NamespaceDeleteRequest{Namespaces: []string{"team-a"}}, &gr); code != 404 {
		t.Fatalf("delete unknown: %d", code)
	}
}

func TestNodePoolLifecycleRPC(t *testing.T) {
	s := testServer(t, nil)
	var gr structs.GenericResponse
	var list structs.NodePoolListResponse
	if err := s.RPC(structs.NodePoolListRPC, &structs.NodePoolListRequest{}, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.NodePools) != 2 || list.NodePools[0].Name != "all" || list.NodePools[1].Name != "default" {
		t.Fatalf("built-in pools: %+v", list.NodePools)
	}
	for _, name := range []string{"all", "default"} {
		if code, _ := rpcCode(s, structs.NodePoolUpsertRPC, &structs.NodePoolUpsertRequest{NodePools: []*structs.NodePool{{Name: name}}}, &gr); code != 400 {
			t.Fatalf("modify %s: %d", name, code)
		}
		if code, _ := rpcCode(s, structs.NodePoolDeleteRPC, &structs.NodePoolDeleteRequest{Names: []string{name}}, &gr); code != 400 {
			t.Fatalf("delete %s: %d", name, code)
		}
	}
	bad := &structs.NodePool{Name: "gpu", SchedulerConfiguration: &structs.NodePoolSchedulerConfiguration{SchedulerAlgorithm: "random"}}
	if code, _ := rpcCode(s, structs.NodePoolUpsertRPC, &structs.NodePoolUpsertRequest{NodePools: []*structs.NodePool{bad}}, &gr); code != 400 {
		t.Fatalf("bad algorithm: %d", code)
	}

	// A job naming an unknown pool is refused.
	job := structstest.Job("train")
	job.NodePool = "gpu"
	var jr structs.JobRegisterResponse
	if code, msg := rpcCode(s, structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: job}, &jr); code != 400 || !strings.Contains(msg, `node pool "gpu" does not exist`) {
		t.Fatalf("unknown pool: %d %q", code, msg)
	}

	// A node registering in an unknown pool creates it.
	node := structstest.Node("n1")
	node.NodePool = "gpu"
	var nr structs.NodeUpdateResponse
	if err := s.RPC(structs.NodeRegisterRPC, &structs.NodeRegisterRequest{Node: node}, &nr); err != nil {
		t.Fatal(err)
	}
	var one structs.SingleNodePoolResponse
	if err := s.RPC(structs.NodePoolGetRPC, &structs.NodePoolSpecificRequest{Name: "gpu"}, &one); err != nil || one.NodePool == nil {
		t.Fatalf("pool created by node: %+v %v", one.NodePool, err)
	}
	if err := s.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: job}, &jr); err != nil {
		t.Fatal(err)
	}
	var nodes structs.NodePoolNodesResponse
	if err := s.RPC(structs.NodePoolListNodesRPC, &structs.NodePoolSpecificRequest{Name: "gpu"}, &nodes); err != nil || len(nodes.Nodes) != 1 {
		t.Fatalf("pool nodes: %+v %v", nodes.Nodes, err)
	}
	if err := s.RPC(structs.NodePoolListNodesRPC, &structs.NodePoolSpecificRequest{Name: "default"}, &nodes); err != nil || len(nodes.Nodes) != 0 {
		t.Fatalf("default pool nodes: %+v %v", nodes.Nodes, err)
	}
	if err := s.RPC(structs.NodePoolListNodesRPC, &structs.NodePoolSpecificRequest{Name: "all"}, &nodes); err != nil || len(nodes.Nodes) != 1 {
		t.Fatalf("all pool nodes: %+v %v", nodes.Nodes, err)
	}
	var jobs structs.NodePoolJobsResponse
	if err := s.RPC(structs.NodePoolListJobsRPC, &structs.NodePoolSpecificRequest{Name: "gpu"}, &jobs); err != nil || len(jobs.Jobs) != 1 {
		t.Fatalf("pool jobs: %+v %v", jobs.Jobs, err)
	}
	code, msg := rpcCode(s, structs.NodePoolDeleteRPC, &structs.NodePoolDeleteRequest{Names: []string{"gpu"}}, &gr)
	if code != 400 || !strings.Contains(msg, "in use") {
		t.Fatalf("delete in use: %d %q", code, msg)
	}

	// Updating keeps CreateIndex and stores the scheduler configuration.
	on := true
	upd := &structs.NodePool{Name: "gpu", Description: "GPUs", SchedulerConfiguration: &structs.NodePoolSchedulerConfiguration{SchedulerAlgorithm: "spread", MemoryOversubscriptionEnabled: &on}}
	if err := s.RPC(structs.NodePoolUpsertRPC, &structs.NodePoolUpsertRequest{NodePools: []*structs.NodePool{upd}}, &gr); err != nil {
		t.Fatal(err)
	}
	created := one.NodePool.CreateIndex
	if err := s.RPC(structs.NodePoolGetRPC, &structs.NodePoolSpecificRequest{Name: "gpu"}, &one); err != nil {
		t.Fatal(err)
	}
	if p := one.NodePool; p.CreateIndex != created || p.ModifyIndex != gr.Index || p.SchedulerConfiguration.SchedulerAlgorithm != "spread" {
		t.Fatalf("updated: %+v", p)
	}
}

// TestNamespaceListBlocks: a list blocked at the current index returns
// once a namespace is written, with the new index.
func TestNamespaceListBlocks(t *testing.T) {
	s := testServer(t, nil)
	var first structs.NamespaceListResponse
	if err := s.RPC(structs.NamespaceListRPC, &structs.NamespaceListRequest{}, &first); err != nil {
		t.Fatal(err)
	}
	done := make(chan structs.NamespaceListResponse, 1)
	go func() {
		var r structs.NamespaceListResponse
		req := &structs.NamespaceListRequest{QueryOptions: structs.QueryOptions{MinQueryIndex: first.Index, MaxQueryTime: 10 * time.Second}}
		if err := s.RPC(structs.NamespaceListRPC, req, &r); err != nil {
			t.Error(err)
		}
		done <- r
	}()
	var gr structs.GenericResponse
	if err := s.RPC(structs.NamespaceUpsertRPC, &structs.NamespaceUpsertRequest{Namespaces: []*structs.Namespace{{Name: "late"}}}, &gr); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-done:
		if r.Index != gr.Index || len(r.Namespaces) != 2 {
			t.Fatalf("woke with index %d (write %d): %+v", r.Index, gr.Index, r.Namespaces)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("blocked list did not wake on the write")
	}
}
