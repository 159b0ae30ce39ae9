package endpoints

import (
	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/acl"
	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// AutopilotHealther is the optional part of Cluster that reports the
// servers' health against an autopilot configuration (on the leader).
type AutopilotHealther interface {
	ServerHealth(cfg *structs.AutopilotConfig) (*structs.OperatorHealthReply, error)
}

// RaftStatser is the optional part of Cluster that reports this server's
// own raft progress.
type RaftStatser interface {
	RaftStats() structs.RaftStats
}

// AutopilotGetConfiguration reads the autopilot configuration (the default
// one, indexes 0, until one is written); blocking.
func (o *Operator) AutopilotGetConfiguration(args *structs.GenericRequest, reply *structs.AutopilotConfigResponse) error {
	if err := o.d.allowLevel(args.AuthToken, "operator read", (*acl.ACL).AllowOperatorRead); err != nil {
		return err
	}
	return o.d.blockingRPC(&args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateSnapshot) (uint64, error) {
		cfg, err := st.AutopilotConfig(ws)
		if err != nil {
			return 0, err
		}
		reply.Config = cfg.Copy()
		return st.Index(state.TableAutopilotConfig)
	})
}

// AutopilotSetConfiguration writes the autopilot configuration through
// raft. Negative durations are a bad request; with CAS, Updated is false
// when the stored configuration's ModifyIndex is not args.Config.ModifyIndex.
func (o *Operator) AutopilotSetConfiguration(args *structs.AutopilotSetConfigRequest, reply *structs.AutopilotSetConfigResponse) error {
	if err := o.d.allowLevel(args.AuthToken, "operator write", (*acl.ACL).AllowOperatorWrite); err != nil {
		return err
	}
	if err := args.Config.Validate(); err != nil {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "%v", err)
	}
	index, resp, err := o.d.Apply(structs.AutopilotConfigRequestType, args)
	if err != nil {
		return err
	}
	reply.Updated, _ = resp.(bool)
	reply.Index = index
	return nil
}

// ServerHealth reports every raft server's health against the stored
// autopilot configuration (served by the leader: it knows the others'
// progress).
func (o *Operator) ServerHealth(args *structs.GenericRequest, reply *structs.OperatorHealthReply) error {
	if err := o.d.allowLevel(args.AuthToken, "operator read", (*acl.ACL).AllowOperatorRead); err != nil {
		return err
	}
	h, ok := o.d.Cluster.(AutopilotHealther)
	if !ok {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "this server reports no autopilot health")
	}
	cfg, err := o.d.State().Snapshot().AutopilotConfig(nil)
	if err != nil {
		return err
	}
	out, err := h.ServerHealth(cfg)
	if err != nil {
		return err
	}
	*reply = *out
	return nil
}

// RaftStats answers this server's own raft progress (Status.RaftStats is
// served locally: the leader asks each peer for the health report). Any
// caller that reaches the RPC port may ask; it tells nothing secret.
func (e *Status) RaftStats(args *structs.GenericRequest, reply *structs.RaftStats) error {
	if s, ok := e.d.Cluster.(RaftStatser); ok {
		*reply = s.RaftStats()
	}
	return nil
}
