package fsm

import (
	"bytes"
	"io"
	"reflect"
	"testing"
	"time"

	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/server/state/statetest"
	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

// fillEveryTable writes at least one row of every state table through FSM
// entries: jobs (two versions), job versions, nodes, evals, allocs, a
// deployment and the scheduler configuration (the index table follows).
func fillEveryTable(t *testing.T, f *FSM) {
	t.Helper()
	job := structstest.Job("web")
	job.Canonicalize()
	job.Meta = map[string]string{"v": "1"}
	eval := &structs.Evaluation{ID: structs.GenerateUUID(), Namespace: "default", JobID: "web", Type: "service", Status: structs.EvalStatusPending}
	job2 := job.Copy()
	job2.Meta = map[string]string{"v": "2"}
	job2.Version = 1
	dep := &structs.Deployment{ID: structs.GenerateUUID(), Namespace: "default", JobID: "web", JobVersion: 1,
		Status: structs.DeploymentStatusRunning, TaskGroups: map[string]*structs.DeploymentState{
			"web": {DesiredTotal: 1, ProgressDeadline: time.Minute, RequireProgressBy: time.Unix(1700000000, 0).UTC()}}}
	alloc := &structs.Allocation{ID: structs.GenerateUUID(), Namespace: "default", JobID: "web", NodeID: "n1", EvalID: eval.ID,
		TaskGroup: "web", DeploymentID: dep.ID, DesiredStatus: structs.AllocDesiredStatusRun, ClientStatus: structs.AllocClientStatusPending}
	sched := structs.SchedulerSetConfigRequest{Config: structs.SchedulerConfiguration{SchedulerAlgorithm: "spread"}}
	for i, e := range []struct {
		mt  structs.MessageType
		msg any
	}{
		{structs.NodeRegisterRequestType, &structs.NodeRegisterRequest{Node: structstest.Node("n1")}},
		{structs.JobRegisterRequestType, &structs.JobRegisterRequest{Job: job, Eval: eval}},
		{structs.JobRegisterRequestType, &structs.JobRegisterRequest{Job: job2}},
		{structs.ApplyPlanResultsRequestType, &structs.ApplyPlanResultsRequest{Job: job2, AllocsPlaced: []*structs.Allocation{alloc}, EvalID: eval.ID, Deployment: dep, UpdatedAt: 42}},
		{structs.AllocClientUpdateRequestType, &structs.AllocUpdateRequest{Alloc: []*structs.Allocation{{ID: alloc.ID, ClientStatus: structs.AllocClientStatusRunning}}, UpdatedAt: 99}},
		{structs.SchedulerConfigRequestType, &sched},
		{structs.AutopilotConfigRequestType, &structs.AutopilotSetConfigRequest{Config: structs.AutopilotConfig{MaxTrailingLogs: 7, MinQuorum: 3}}},
		{structs.NamespaceUpsertRequestType, &structs.NamespaceUpsertRequest{Namespaces: []*structs.Namespace{{Name: "team-a", Meta: map[string]string{"o": "a"}}}}},
		{structs.NodePoolUpsertRequestType, &structs.NodePoolUpsertRequest{NodePools: []*structs.NodePool{{Name: "gpu", Description: "GPUs"}}}},
		{structs.ACLPolicyUpsertRequestType, &structs.ACLPolicyUpsertRequest{Policies: []*structs.ACLPolicy{{Name: "p", Rules: `node { policy = "read" }`}}}},
		{structs.ACLTokenBootstrapRequestType, &structs.ACLTokenBootstrapRequest{Token: &structs.ACLToken{AccessorID: "a1", SecretID: "s1", Type: structs.ACLManagementToken}}},
		{structs.ACLTokenUpsertRequestType, &structs.ACLTokenUpsertRequest{Tokens: []*structs.ACLToken{{AccessorID: "a2", SecretID: "s2", Type: structs.ACLClientToken, Policies: []string{"p"}}}}},
		{structs.ACLRoleUpsertRequestType, &structs.ACLRolesUpsertRequest{ACLRoles: []*structs.ACLRole{{ID: "r1", Name: "role", Policies: []*structs.ACLRolePolicyLink{{Name: "p"}}}}}},
		{structs.RootKeyMetaUpsertRequestType, &structs.RootKeyMetaUpsertRequest{RootKeyMeta: &structs.RootKeyMeta{KeyID: "k1", State: structs.RootKeyStateActive}}},
		{structs.VarApplyStateRequestType, &structs.VarApplyStateRequest{Op: structs.VarOpSet, Now: 5, Var: &structs.VariableEncrypted{
			VariableMetadata: structs.VariableMetadata{Namespace: "default", Path: "a/b"}, VariableData: structs.VariableData{Data: []byte{1, 2}, KeyID: "k1"}}}},
		{structs.PeriodicLaunchRequestType, &structs.PeriodicLaunchRequest{Launch: &structs.PeriodicLaunch{ID: "cron", Namespace: "default", Launch: time.Unix(1700000000, 0).UTC()}}},
		{structs.ServiceRegistrationUpsertRequestType, &structs.ServiceRegistrationUpsertRequest{Services: []*structs.ServiceRegistration{{
			ID: "_nomad-task-" + alloc.ID + "-web-web-http", ServiceName: "web", Namespace: "default", NodeID: "n1", Datacenter: "dc1",
			JobID: "web", AllocID: alloc.ID, Tags: []string{"a"}, Address: "10.0.0.1", Port: 8080}}}},
	} {
		if r := applyMsg(t, f, uint64(i+1), e.mt, e.msg); r != nil {
			if _, isErr := r.(error); isErr {
				t.Fatalf("entry %d (type %d): %v", i+1, e.mt, r)
			}
		}
	}
}

// TestFSMSnapshotRoundTripsEveryTable fills every table, persists an FSM
// snapshot, restores it into a fresh FSM and compares the stores read
// back table by table (state.TestPersistCoversEveryTable holds that no
// table of the schema is left out of snapshots).
func TestFSMSnapshotRoundTripsEveryTable(t *testing.T) {
	f := testFSM(t)
	fillEveryTable(t, f)
	want := statetest.DumpState(t, f.State())
	if len(want.Jobs) != 1 || len(want.JobVersions) != 1 || len(want.JobVersions[0]) != 2 || len(want.Nodes) != 1 ||
		len(want.Evals) != 1 || len(want.Allocs) != 1 || len(want.Deployments) != 1 || want.Scheduler.SchedulerAlgorithm != "spread" ||
		len(want.Namespaces) != 2 || len(want.NodePools) != 3 ||
		len(want.ACLPolicies) != 1 || len(want.ACLTokens) != 2 || len(want.ACLRoles) != 1 ||
		len(want.Variables) != 1 || len(want.RootKeys) != 1 || len(want.Periodic) != 1 || len(want.Services) != 1 ||
		want.Autopilot.MaxTrailingLogs != 7 {
		t.Fatalf("fill left a table empty: %+v", want)
	}
	tables := map[string]bool{}
	for _, ie := range want.Indexes {
		tables[ie.Key] = true
	}
	for _, name := range []string{state.TableJobs, state.TableNodes, state.TableAllocs, state.TableEvals,
		state.TableJobVersions, state.TableSchedulerConfig, state.TableDeployments, state.TableNamespaces, state.TableNodePools,
		state.TableACLPolicies, state.TableACLTokens, state.TableACLRoles, "acl_token_bootstrap", state.TableVariables, state.TableRootKeys, state.TablePeriodicLaunch, state.TableServiceRegistrations, state.TableAutopilotConfig} {
		if !tables[name] {
			t.Errorf("no index entry for table %q after the fill: %v", name, tables)
		}
	}

	snap, err := f.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	sink := &memSink{}
	if err := snap.Persist(sink); err != nil {
		t.Fatal(err)
	}
	snap.Release()
	f2 := testFSM(t)
	if err := f2.Restore(io.NopCloser(bytes.NewReader(sink.Bytes()))); err != nil {
		t.Fatal(err)
	}
	got := statetest.DumpState(t, f2.State())
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("restored state differs:\n got %#v\nwant %#v", got, want)
	}
	// The restored FSM keeps applying entries after the snapshot's index.
	applyMsg(t, f2, 7, structs.NodeRegisterRequestType, &structs.NodeRegisterRequest{Node: structstest.Node("n2")})
	if n, _ := f2.State().NodeByID(nil, "n2"); n == nil {
		t.Fatal("entry after restore not applied")
	}
}
