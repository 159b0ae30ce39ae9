package endpoints

import (
	"github.com/hashicorp/go-memdb"
	"github.com/nomadish/nomadish/acl"

	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// Operator serves the Operator.* RPCs.
type Operator struct{ d *Deps }

// SchedulerGetConfiguration reads the scheduler configuration (the default
// one, indexes 0, until one is written); blocking.
func (o *Operator) SchedulerGetConfiguration(args *structs.GenericRequest, reply *structs.SchedulerConfigurationResponse) error {
	if err := o.d.allowLevel(args.AuthToken, "operator read", (*acl.ACL).AllowOperatorRead); err != nil {
		return err
	}
	return o.d.blockingRPC(&args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateSnapshot) (uint64, error) {
		cfg, err := st.SchedulerConfig(ws)
		if err != nil {
			return 0, err
		}
		reply.SchedulerConfig = cfg.Copy()
		return st.Index(state.TableSchedulerConfig)
	})
}

// SchedulerSetConfiguration writes the scheduler configuration through raft.
// An unknown algorithm is a bad request; with CAS, Updated is false when the
// stored configuration's ModifyIndex is not args.Config.ModifyIndex.
func (o *Operator) SchedulerSetConfiguration(args *structs.SchedulerSetConfigRequest, reply *structs.SchedulerSetConfigurationResponse) error {
	if err := o.d.allowLevel(args.AuthToken, "operator write", (*acl.ACL).AllowOperatorWrite); err != nil {
		return err
	}
	if err := args.Config.Validate(); err != nil {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "%v", err)
	}
	index, resp, err := o.d.Apply(structs.SchedulerConfigRequestType, args)
	if err != nil {
		return err
	}
	reply.Updated, _ = resp.(bool)
	reply.Index = index
	return nil
}
