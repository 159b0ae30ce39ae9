// Package statetest holds test helpers over a real server/state store.
package statetest

import (
	"testing"

	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// Dump is every table of a store, read through its public readers.
type Dump struct {
	Jobs        []*structs.Job
	JobVersions [][]*structs.Job
	Nodes       []*structs.Node
	Evals       []*structs.Evaluation
	Allocs      []*structs.Allocation
	Deployments []*structs.Deployment
	Scheduler   *structs.SchedulerConfiguration
	Autopilot   *structs.AutopilotConfig
	Namespaces  []*structs.Namespace
	NodePools   []*structs.NodePool
	ACLPolicies []*structs.ACLPolicy
	ACLTokens   []*structs.ACLToken
	ACLRoles    []*structs.ACLRole
	Variables   []*structs.VariableEncrypted
	RootKeys    []*structs.RootKeyMeta
	Periodic    []*structs.PeriodicLaunch
	Services    []*structs.ServiceRegistration
	Indexes     []*state.IndexEntry
}

// DumpState reads every table of st; a read error fails t.
func DumpState(t testing.TB, st *state.StateStore) Dump {
	t.Helper()
	var d Dump
	var err error
	must := func(e error) {
		if e != nil {
			t.Fatal(e)
		}
	}
	d.Jobs, err = st.Jobs(nil, "*")
	must(err)
	for _, j := range d.Jobs {
		vs, err := st.JobVersionsByID(nil, j.Namespace, j.ID)
		must(err)
		d.JobVersions = append(d.JobVersions, vs)
	}
	d.Nodes, err = st.Nodes(nil)
	must(err)
	d.Evals, err = st.Evals(nil)
	must(err)
	d.Allocs, err = st.Allocs(nil)
	must(err)
	d.Deployments, err = st.Deployments(nil, "*")
	must(err)
	d.Autopilot, err = st.AutopilotConfig(nil)
	must(err)
	d.Scheduler, err = st.SchedulerConfig(nil)
	must(err)
	d.Namespaces, err = st.Namespaces()
	must(err)
	d.NodePools, err = st.NodePools()
	must(err)
	d.ACLPolicies, err = st.ACLPolicies(nil)
	must(err)
	d.ACLTokens, err = st.ACLTokens(nil)
	must(err)
	d.ACLRoles, err = st.ACLRoles(nil)
	must(err)
	d.Variables, err = st.VarsByPrefix(structs.AllNamespaces, "")
	must(err)
	d.RootKeys, err = st.RootKeyMetas(nil)
	must(err)
	d.Periodic, err = st.PeriodicLaunches(nil)
	must(err)
	d.Services, err = st.ServiceRegistrations(nil, structs.AllNamespaces)
	must(err)
	d.Indexes, err = st.Indexes()
	must(err)
	return d
}
