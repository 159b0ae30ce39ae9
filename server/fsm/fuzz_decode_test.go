package fsm

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

// raftMessages returns a fresh value of every raft message type the FSM
// applies, as its applyX decodes it (TestRaftMessagesCoverFSM keeps the
// list complete).
func raftMessages() map[structs.MessageType]any {
	return map[structs.MessageType]any{
		structs.NodeRegisterRequestType:                        &structs.NodeRegisterRequest{},
		structs.NodeDeregisterRequestType:                      &structs.NodeSpecificRequest{},
		structs.NodeUpdateStatusRequestType:                    &structs.NodeUpdateStatusRequest{},
		structs.JobRegisterRequestType:                         &structs.JobRegisterRequest{},
		structs.JobDeregisterRequestType:                       &structs.JobDeregisterEntry{},
		structs.EvalUpdateRequestType:                          &structs.EvalUpdateRequest{},
		structs.EvalDeleteRequestType:                          &structs.EvalDeleteEntry{},
		structs.AllocUpdateRequestType:                         &structs.AllocUpdateRequest{},
		structs.AllocClientUpdateRequestType:                   &structs.AllocUpdateRequest{},
		structs.ApplyPlanResultsRequestType:                    &structs.ApplyPlanResultsRequest{},
		structs.NodeUpdateDrainRequestType:                     &structs.NodeUpdateDrainRequest{},
		structs.NodeUpdateEligibilityRequestType:               &structs.NodeUpdateEligibilityRequest{},
		structs.AllocUpdateDesiredTransitionRequestType:        &structs.AllocUpdateDesiredTransitionRequest{},
		structs.DeploymentStatusUpdateRequestType:              &structs.DeploymentStatusUpdateRequest{},
		structs.DeploymentPromoteRequestType:                   &structs.DeploymentPromoteRequest{},
		structs.SchedulerConfigRequestType:                     &structs.SchedulerSetConfigRequest{},
		structs.JobStabilityRequestType:                        &structs.JobStabilityRequest{},
		structs.NamespaceUpsertRequestType:                     &structs.NamespaceUpsertRequest{},
		structs.NamespaceDeleteRequestType:                     &structs.NamespaceDeleteRequest{},
		structs.NodePoolUpsertRequestType:                      &structs.NodePoolUpsertRequest{},
		structs.NodePoolDeleteRequestType:                      &structs.NodePoolDeleteRequest{},
		structs.ACLPolicyUpsertRequestType:                     &structs.ACLPolicyUpsertRequest{},
		structs.ACLPolicyDeleteRequestType:                     &structs.ACLPolicyDeleteRequest{},
		structs.ACLTokenUpsertRequestType:                      &structs.ACLTokenUpsertRequest{},
		structs.ACLTokenDeleteRequestType:                      &structs.ACLTokenDeleteRequest{},
		structs.ACLTokenBootstrapRequestType:                   &structs.ACLTokenBootstrapRequest{},
		structs.ACLRoleUpsertRequestType:                       &structs.ACLRolesUpsertRequest{},
		structs.ACLRoleDeleteRequestType:                       &structs.ACLRolesDeleteByIDRequest{},
		structs.VarApplyStateRequestType:                       &structs.VarApplyStateRequest{},
		structs.RootKeyMetaUpsertRequestType:                   &structs.RootKeyMetaUpsertRequest{},
		structs.PeriodicLaunchRequestType:                      &structs.PeriodicLaunchRequest{},
		structs.ServiceRegistrationUpsertRequestType:           &structs.ServiceRegistrationUpsertRequest{},
		structs.ServiceRegistrationDeleteByIDRequestType:       &structs.ServiceRegistrationDelByIDRequest{},
		structs.ServiceRegistrationDeleteByAllocIDsRequestType: &structs.ServiceRegistrationDelByAllocIDsRequest{},
		structs.GCReapRequestType:                              &structs.GCReapRequest{},
		structs.JobSummaryReconcileRequestType:                 &structs.JobSummaryReconcileRequest{},
		structs.AutopilotConfigRequestType:                     &structs.AutopilotSetConfigRequest{},
	}
}

// TestRaftMessagesCoverFSM: every type the FSM applies is in raftMessages
// (the FSM panics with "unknown raft message type" for the others).
func TestRaftMessagesCoverFSM(t *testing.T) {
	f, err := New(hclog.NewNullLogger(), nil)
	if err != nil {
		t.Fatal(err)
	}
	known := raftMessages()
	for i := 0; i < int(structs.IgnoreUnknownTypeFlag); i++ {
		mt := structs.MessageType(i)
		msg := func() (msg string) {
			defer func() { msg = fmt.Sprint(recover()) }()
			f.Apply(&raft.Log{Type: raft.LogCommand, Index: 1, Data: []byte{byte(mt)}})
			return ""
		}()
		_, listed := known[mt]
		if unknown := strings.Contains(msg, "unknown raft message type"); unknown == listed {
			t.Errorf("type %d: listed %v, FSM says %q", mt, listed, msg)
		}
	}
}

// fsmSeed encodes one raft entry (type byte + msgpack).
func fsmSeed(f *testing.F, t structs.MessageType, msg any) {
	buf, err := structs.Encode(t, msg)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(buf)
}

// FuzzFSMDecode: every raft message type decoded from arbitrary bytes
// gives a value or an error, never a panic, and the nil-member check
// (CheckDecoded) copes with whatever decoded. Seeded with the issue's
// inputs: a job with a nil task group and a client update with a nil
// alloc, as raft entries.
func FuzzFSMDecode(f *testing.F) {
	nilGroup := structstest.Job("j")
	nilGroup.TaskGroups = append(nilGroup.TaskGroups, nil)
	fsmSeed(f, structs.JobRegisterRequestType, &structs.JobRegisterRequest{Job: nilGroup})
	fsmSeed(f, structs.JobRegisterRequestType, &structs.JobRegisterRequest{Job: structstest.Job("ok"), Eval: &structs.Evaluation{ID: "e"}})
	fsmSeed(f, structs.AllocClientUpdateRequestType, &structs.AllocUpdateRequest{Alloc: []*structs.Allocation{nil}})
	fsmSeed(f, structs.AllocClientUpdateRequestType, &structs.AllocUpdateRequest{Alloc: []*structs.Allocation{{ID: "a", ClientStatus: "failed"}}})
	fsmSeed(f, structs.ApplyPlanResultsRequestType, &structs.ApplyPlanResultsRequest{Job: structstest.Job("p"), AllocsPlaced: []*structs.Allocation{{ID: "a", Job: structstest.Job("p")}, nil}})
	fsmSeed(f, structs.NodeRegisterRequestType, &structs.NodeRegisterRequest{Node: &structs.Node{ID: "n", Attributes: map[string]string{"a": "b"}}})
	fsmSeed(f, structs.EvalDeleteRequestType, &structs.EvalDeleteEntry{Evals: []string{"e"}})
	fsmSeed(f, structs.ServiceRegistrationUpsertRequestType, &structs.ServiceRegistrationUpsertRequest{Services: []*structs.ServiceRegistration{{ID: "s", AllocID: "a"}, nil}})
	fsmSeed(f, structs.GCReapRequestType, &structs.GCReapRequest{Jobs: []structs.NamespacedID{{ID: "j", Namespace: "default"}}, Evals: []string{"e"}, Allocs: []string{"a"}})
	f.Add([]byte{byte(structs.JobRegisterRequestType), 0xdd, 0xff, 0xff, 0xff, 0xff})  // an array claiming 4G members
	f.Add([]byte{byte(structs.NodeRegisterRequestType), 0xdf, 0x7f, 0xff, 0xff, 0xff}) // a map claiming 2G entries
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		for _, msg := range raftMessages() {
			if structs.Decode(data[1:], msg) == nil {
				_ = structs.CheckDecoded(msg)
			}
		}
	})
}
