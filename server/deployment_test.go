package server

import (
	"testing"
	"time"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

// reportHealth sends, as the client would, a health verdict for every
// live alloc of the job's latest deployment that has none yet; it returns
// how many it reported.
func reportHealth(t *testing.T, s *Server, jobID string, healthy bool) int {
	t.Helper()
	st := s.State()
	d, _ := st.LatestDeploymentByJobID(nil, "default", jobID)
	if d == nil {
		return 0
	}
	var updates []*structs.Allocation
	for _, a := range runningAllocs(st, nil, jobID) {
		if a.DeploymentID != d.ID || a.DeploymentStatus.IsHealthy() || a.DeploymentStatus.IsUnhealthy() {
			continue
		}
		h := healthy
		updates = append(updates, &structs.Allocation{ID: a.ID, NodeID: a.NodeID, ClientStatus: structs.AllocClientStatusRunning,
			DeploymentID: d.ID, DeploymentStatus: &structs.AllocDeploymentStatus{Healthy: &h, Timestamp: time.Now()}})
	}
	if len(updates) == 0 {
		return 0
	}
	var resp structs.GenericResponse
	if err := updateAllocsAsNodes(s, updates, &resp); err != nil {
		t.Fatal(err)
	}
	return len(updates)
}

func rollingJob(id string, count int, up *structs.UpdateStrategy) *structs.Job {
	j := structstest.Job(id)
	j.TaskGroups[0].Count = count
	j.TaskGroups[0].Update = up
	return j
}

func deployJob(t *testing.T, s *Server, j *structs.Job) {
	t.Helper()
	var resp structs.JobRegisterResponse
	if err := s.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: j}, &resp); err != nil {
		t.Fatal(err)
	}
}

func latestDeployment(st *state.StateStore, ws memdb.WatchSet, jobID string) *structs.Deployment {
	d, _ := st.LatestDeploymentByJobID(ws, "default", jobID)
	return d
}

// versionAllocs counts the live allocs running the given job version.
func versionAllocs(st *state.StateStore, ws memdb.WatchSet, jobID string, version uint64) int {
	n := 0
	for _, a := range runningAllocs(st, ws, jobID) {
		if a.Job.Version == version {
			n++
		}
	}
	return n
}

func TestDeploymentRollingUpdate(t *testing.T) {
	s := testServer(t, nil)
	registerNode(t, s, "n1")
	up := structs.DefaultUpdateStrategy()
	up.MinHealthyTime, up.HealthyDeadline = time.Second, 30*time.Second
	job := rollingJob("web", 3, up)
	deployJob(t, s, job)
	waitState(t, s, "first deployment placed", func(st *state.StateStore, ws memdb.WatchSet) bool {
		d := latestDeployment(st, ws, "web")
		return d != nil && d.TaskGroups["web"].PlacedAllocs == 3
	})
	reportHealth(t, s, "web", true)
	waitState(t, s, "first deployment successful, job stable", func(st *state.StateStore, ws memdb.WatchSet) bool {
		d := latestDeployment(st, ws, "web")
		j, _ := st.JobByID(ws, "default", "web")
		return d.Status == structs.DeploymentStatusSuccessful && j.Stable
	})

	job = rollingJob("web", 3, up)
	job.TaskGroups[0].Tasks[0].Config = map[string]any{"command": "/bin/true"}
	deployJob(t, s, job)
	for step := 1; step <= 3; step++ {
		waitState(t, s, "one more new alloc", func(st *state.StateStore, ws memdb.WatchSet) bool {
			return versionAllocs(st, ws, "web", 1) == step
		})
		if got := versionAllocs(s.State(), nil, "web", 0); got != 3-step {
			t.Fatalf("step %d: %d old allocs live, want %d (max_parallel 1)", step, got, 3-step)
		}
		if n := reportHealth(t, s, "web", true); n != 1 {
			t.Fatalf("step %d: %d allocs in flight, want 1", step, n)
		}
	}
	waitState(t, s, "second deployment successful", func(st *state.StateStore, ws memdb.WatchSet) bool {
		d := latestDeployment(st, ws, "web")
		return d.JobVersion == 1 && d.Status == structs.DeploymentStatusSuccessful && d.TaskGroups["web"].HealthyAllocs == 3
	})
}

func TestDeploymentFailsAndReverts(t *testing.T) {
	s := testServer(t, nil)
	registerNode(t, s, "n1")
	up := structs.DefaultUpdateStrategy()
	up.MinHealthyTime, up.AutoRevert = time.Second, true
	deployJob(t, s, rollingJob("api", 2, up))
	waitState(t, s, "placed", func(st *state.StateStore, ws memdb.WatchSet) bool {
		d := latestDeployment(st, ws, "api")
		return d != nil && d.TaskGroups["web"].PlacedAllocs == 2
	})
	reportHealth(t, s, "api", true)
	waitState(t, s, "stable", func(st *state.StateStore, ws memdb.WatchSet) bool {
		j, _ := st.JobByID(ws, "default", "api")
		return j.Stable
	})
	bad := rollingJob("api", 2, up)
	bad.TaskGroups[0].Tasks[0].Config = map[string]any{"command": "/bin/false"}
	deployJob(t, s, bad)
	waitState(t, s, "new version placed", func(st *state.StateStore, ws memdb.WatchSet) bool {
		return versionAllocs(st, ws, "api", 1) == 1
	})
	reportHealth(t, s, "api", false)
	waitState(t, s, "failed and reverted to version 0's spec as version 2", func(st *state.StateStore, ws memdb.WatchSet) bool {
		ds, _ := st.DeploymentsByJobID(ws, "default", "api")
		j, _ := st.JobByID(ws, "default", "api")
		var failed bool
		for _, d := range ds {
			failed = failed || (d.JobVersion == 1 && d.Status == structs.DeploymentStatusFailed)
		}
		return failed && j.Version == 2 && j.TaskGroups[0].Tasks[0].Config["command"] != "/bin/false"
	})
}

func TestDeploymentCanaryPromote(t *testing.T) {
	s := testServer(t, nil)
	registerNode(t, s, "n1")
	up := structs.DefaultUpdateStrategy()
	up.MinHealthyTime, up.MaxParallel = time.Second, 2
	deployJob(t, s, rollingJob("c", 2, up))
	waitState(t, s, "placed", func(st *state.StateStore, ws memdb.WatchSet) bool {
		d := latestDeployment(st, ws, "c")
		return d != nil && d.TaskGroups["web"].PlacedAllocs == 2
	})
	reportHealth(t, s, "c", true)
	up2 := *up
	up2.Canary = 1
	job := rollingJob("c", 2, &up2)
	job.TaskGroups[0].Tasks[0].Config = map[string]any{"command": "/bin/true"}
	deployJob(t, s, job)
	waitState(t, s, "canary placed beside the old allocs", func(st *state.StateStore, ws memdb.WatchSet) bool {
		return versionAllocs(st, ws, "c", 1) == 1 && versionAllocs(st, ws, "c", 0) == 2
	})
	reportHealth(t, s, "c", true)
	d := latestDeployment(s.State(), nil, "c")
	var resp structs.DeploymentUpdateResponse
	waitState(t, s, "canary healthy", func(st *state.StateStore, ws memdb.WatchSet) bool {
		d = latestDeployment(st, ws, "c")
		return d.TaskGroups["web"].HealthyAllocs == 1
	})
	if d.Status != structs.DeploymentStatusRunning || !d.RequiresPromotion() {
		t.Fatalf("deployment %s %q, want running and waiting for promotion", d.Status, d.StatusDescription)
	}
	if err := s.RPC(structs.DeploymentPromoteRPC, &structs.DeploymentPromoteRequest{DeploymentID: d.ID, All: true}, &resp); err != nil {
		t.Fatal(err)
	}
	waitState(t, s, "rollout after promotion", func(st *state.StateStore, ws memdb.WatchSet) bool {
		return versionAllocs(st, ws, "c", 1) == 2 && versionAllocs(st, ws, "c", 0) == 0
	})
	reportHealth(t, s, "c", true)
	waitState(t, s, "successful", func(st *state.StateStore, ws memdb.WatchSet) bool {
		return latestDeployment(st, ws, "c").Status == structs.DeploymentStatusSuccessful
	})
}
