package fsm

import (
	"fmt"
	"sync"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// FSM applies committed raft entries to the state store (CONVENTIONS 9, 10):
// it only mutates the store. What the server must learn of a write (the
// broker enqueues pending evals, blocked evals unblock when capacity
// changes) reaches it through the store's state.Notifier, which the store
// calls after each commit; the FSM keeps that notifier across restores.
// Raft calls Apply, Snapshot and Restore (it implements raft.FSM); any
// goroutine may call State.
type FSM struct {
	logger hclog.Logger

	mu    sync.RWMutex
	state *state.StateStore // replaced by Restore; guarded by mu
}

var _ raft.FSM = (*FSM)(nil)

// New returns an FSM over a new, empty state store whose change events go
// to notifier (nil: none; the server's leader duties in production).
func New(logger hclog.Logger, notifier state.Notifier) (*FSM, error) {
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	st, err := state.New(logger)
	if err != nil {
		return nil, err
	}
	if notifier != nil {
		st.SetNotifier(notifier)
	}
	return &FSM{logger: logger.Named("fsm"), state: st}, nil
}

// State returns the current store (it changes after a snapshot restore).
func (f *FSM) State() *state.StateStore {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.state
}

// Apply decodes one entry: a structs.MessageType byte, then msgpack. It
// returns nil or an error (the raft future's Response).
func (f *FSM) Apply(l *raft.Log) any {
	if l.Type != raft.LogCommand || len(l.Data) == 0 {
		return nil
	}
	msgType := structs.MessageType(l.Data[0])
	buf, index := l.Data[1:], l.Index
	switch msgType {
	case structs.NodeRegisterRequestType:
		return f.applyNodeRegister(buf, index)
	case structs.NodeDeregisterRequestType:
		return f.applyNodeDeregister(buf, index)
	case structs.NodeUpdateStatusRequestType:
		return f.applyNodeUpdateStatus(buf, index)
	case structs.JobRegisterRequestType:
		return f.applyJobRegister(buf, index)
	case structs.JobDeregisterRequestType:
		return f.applyJobDeregister(buf, index)
	case structs.EvalUpdateRequestType:
		return f.applyEvalUpdate(buf, index)
	case structs.EvalDeleteRequestType:
		return f.applyEvalDelete(buf, index)
	case structs.AllocUpdateRequestType:
		return f.applyAllocUpdate(buf, index)
	case structs.AllocClientUpdateRequestType:
		return f.applyAllocClientUpdate(buf, index)
	case structs.ApplyPlanResultsRequestType:
		return f.applyPlanResults(buf, index)
	case structs.DeploymentStatusUpdateRequestType:
		return f.applyDeploymentStatusUpdate(buf, index)
	case structs.DeploymentPromoteRequestType:
		return f.applyDeploymentPromote(buf, index)
	case structs.JobStabilityRequestType:
		return f.applyJobStability(buf, index)
	case structs.NodeUpdateDrainRequestType:
		return f.applyNodeUpdateDrain(buf, index)
	case structs.NodeUpdateEligibilityRequestType:
		return f.applyNodeUpdateEligibility(buf, index)
	case structs.AllocUpdateDesiredTransitionRequestType:
		return f.applyAllocDesiredTransition(buf, index)
	case structs.SchedulerConfigRequestType:
		return f.applySchedulerConfig(buf, index)
	case structs.AutopilotConfigRequestType:
		return f.applyAutopilotConfig(buf, index)
	case structs.NamespaceUpsertRequestType:
		return f.applyNamespaceUpsert(buf, index)
	case structs.NamespaceDeleteRequestType:
		return f.applyNamespaceDelete(buf, index)
	case structs.NodePoolUpsertRequestType:
		return f.applyNodePoolUpsert(buf, index)
	case structs.NodePoolDeleteRequestType:
		return f.applyNodePoolDelete(buf, index)
	case structs.ACLPolicyUpsertRequestType:
		return f.applyACLPolicyUpsert(buf, index)
	case structs.ACLPolicyDeleteRequestType:
		return f.applyACLPolicyDelete(buf, index)
	case structs.ACLTokenUpsertRequestType:
		return f.applyACLTokenUpsert(buf, index)
	case structs.ACLTokenDeleteRequestType:
		return f.applyACLTokenDelete(buf, index)
	case structs.ACLTokenBootstrapRequestType:
		return f.applyACLTokenBootstrap(buf, index)
	case structs.ACLRoleUpsertRequestType:
		return f.applyACLRoleUpsert(buf, index)
	case structs.ACLRoleDeleteRequestType:
		return f.applyACLRoleDelete(buf, index)
	case structs.VarApplyStateRequestType:
		return f.applyVarApply(buf, index)
	case structs.RootKeyMetaUpsertRequestType:
		return f.applyRootKeyMetaUpsert(buf, index)
	case structs.PeriodicLaunchRequestType:
		return f.applyPeriodicLaunch(buf, index)
	case structs.ServiceRegistrationUpsertRequestType:
		return f.applyServiceRegistrationUpsert(buf, index)
	case structs.ServiceRegistrationDeleteByIDRequestType:
		return f.applyServiceRegistrationDeleteByID(buf, index)
	case structs.ServiceRegistrationDeleteByAllocIDsRequestType:
		return f.applyServiceRegistrationDeleteByAllocIDs(buf, index)
	case structs.GCReapRequestType:
		return f.applyGCReap(buf, index)
	case structs.JobSummaryReconcileRequestType:
		return f.applyJobSummaryReconcile(buf, index)
	}
	if msgType&structs.IgnoreUnknownTypeFlag != 0 {
		f.logger.Warn("ignoring unknown raft message type", "type", msgType, "index", index)
		return nil
	}
	// A committed entry this server cannot apply would make its state
	// diverge from the other servers' forever: a broken invariant (the
	// entry was written by newer code without the ignore flag).
	panic(fmt.Sprintf("server: fsm: unknown raft message type %d at index %d", msgType, index))
}

// decode decodes an entry body; an undecodable committed entry is a broken
// invariant (CONVENTIONS 14): every server would fail on it alike.
func decode(buf []byte, out any, index uint64) {
	if err := structs.Decode(buf, out); err != nil {
		panic(fmt.Sprintf("server: fsm: decoding %T at index %d: %v", out, index, err))
	}
}
