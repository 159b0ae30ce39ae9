package endpoints

import (
	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// migrateTokens returns, for each of allocs that should fetch its previous
// allocation's data from another node (shouldMigrate), the migrate token
// of that previous allocation keyed by its holding node's secret
// (structs.GenerateMigrateToken), by the replacement's ID; nil when there
// is none. Tokens are computed whether or not ACLs are on (a holding agent
// with ACLs off serves the snapshot to anyone anyway). A previous
// allocation or node that is gone has no token: there is no data to fetch.
// Called inside Node.GetClientAllocs' blocking query with its snapshot;
// the lookups add nothing to its watch set (a previous allocation's
// updates must not wake the node's watch; its node and secret do not
// change while it migrates).
func migrateTokens(st *state.StateSnapshot, allocs []*structs.Allocation) (map[string]string, error) {
	var out map[string]string
	for _, a := range allocs {
		if !shouldMigrate(a) {
			continue
		}
		prev, err := st.AllocByID(nil, a.PreviousAllocation)
		if err != nil {
			return nil, err
		}
		if prev == nil || prev.NodeID == "" || prev.NodeID == a.NodeID {
			continue // gone, or on this node: moved locally, no token needed
		}
		node, err := st.NodeByID(nil, prev.NodeID)
		if err != nil {
			return nil, err
		}
		if node == nil || node.SecretID == "" {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[a.ID] = structs.GenerateMigrateToken(prev.ID, node.SecretID)
	}
	return out, nil
}

// shouldMigrate reports whether a replaces an allocation and its group's
// ephemeral disk migrates, and it is still meant to run (as Nomad's
// Allocation.ShouldMigrate).
func shouldMigrate(a *structs.Allocation) bool {
	if a.PreviousAllocation == "" || a.TerminalStatus() || a.ClientTerminalStatus() || a.Job == nil {
		return false
	}
	tg := a.Job.LookupTaskGroup(a.TaskGroup)
	return tg != nil && tg.EphemeralDisk != nil && tg.EphemeralDisk.Migrate
}
