package reconcile

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/structs"
)

func TestClassifyUpdate(t *testing.T) {
	base := func() *structs.Job {
		j := testJob("service", 2)
		j.JobModifyIndex = 1
		j.TaskGroups[0].Tasks[0].Config = map[string]any{"command": "sleep"}
		return j
	}
	cases := []struct {
		name   string
		change func(j *structs.Job)
		want   updateKind
	}{
		{"same job modify index", func(j *structs.Job) { j.JobModifyIndex = 1 }, updateIgnore},
		{"count only", func(j *structs.Job) { j.TaskGroups[0].Count = 5 }, updateInPlace},
		{"priority", func(j *structs.Job) { j.Priority = 90 }, updateInPlace},
		{"restart policy", func(j *structs.Job) { j.TaskGroups[0].RestartPolicy.Attempts = 9 }, updateInPlace},
		{"update block", func(j *structs.Job) { j.TaskGroups[0].Update.MaxParallel = 3 }, updateInPlace},
		{"kill timeout", func(j *structs.Job) { j.TaskGroups[0].Tasks[0].KillTimeout = time.Minute }, updateInPlace},
		{"task config", func(j *structs.Job) { j.TaskGroups[0].Tasks[0].Config["command"] = "true" }, updateDestructive},
		{"task env", func(j *structs.Job) { j.TaskGroups[0].Tasks[0].Env = map[string]string{"A": "1"} }, updateDestructive},
		{"task driver", func(j *structs.Job) { j.TaskGroups[0].Tasks[0].Driver = "exec" }, updateDestructive},
		{"task user", func(j *structs.Job) { j.TaskGroups[0].Tasks[0].User = "nobody" }, updateDestructive},
		{"task artifact", func(j *structs.Job) {
			j.TaskGroups[0].Tasks[0].Artifacts = []*structs.TaskArtifact{{GetterSource: "https://example.com/a.tgz"}}
		}, updateDestructive},
		{"task memory (fit checked by InPlaceFits)", func(j *structs.Job) { j.TaskGroups[0].Tasks[0].Resources.MemoryMB = 999 }, updateInPlace},
		{"task cpu", func(j *structs.Job) { j.TaskGroups[0].Tasks[0].Resources.CPU = 999 }, updateInPlace},
		{"task memory_max", func(j *structs.Job) { j.TaskGroups[0].Tasks[0].Resources.MemoryMaxMB = 2048 }, updateInPlace},
		{"task cores", func(j *structs.Job) {
			j.TaskGroups[0].Tasks[0].Resources.CPU, j.TaskGroups[0].Tasks[0].Resources.Cores = 0, 2
		}, updateDestructive},
		{"task disk", func(j *structs.Job) { j.TaskGroups[0].Tasks[0].Resources.DiskMB = 50 }, updateDestructive},
		{"group ephemeral disk", func(j *structs.Job) { j.TaskGroups[0].EphemeralDisk = &structs.EphemeralDisk{SizeMB: 500} }, updateDestructive},
		{"group volumes", func(j *structs.Job) {
			j.TaskGroups[0].Volumes = map[string]*structs.VolumeRequest{"v": {Name: "v", Type: "host", Source: "s"}}
		}, updateDestructive},
		{"task volume mounts", func(j *structs.Job) {
			j.TaskGroups[0].Tasks[0].VolumeMounts = []*structs.VolumeMount{{Volume: "v", Destination: "/v"}}
		}, updateDestructive},
		{"job meta (tasks do not see it)", func(j *structs.Job) { j.Meta = map[string]string{"a": "b"} }, updateInPlace},
		{"group meta", func(j *structs.Job) { j.TaskGroups[0].Meta = map[string]string{"a": "b"} }, updateInPlace},
		{"task meta", func(j *structs.Job) { j.TaskGroups[0].Tasks[0].Meta = map[string]string{"a": "b"} }, updateInPlace},
		{"network ports (chosen at placement)", func(j *structs.Job) {
			j.TaskGroups[0].Networks = []*structs.NetworkResource{{DynamicPorts: []structs.Port{{Label: "http"}}}}
		}, updateDestructive},
		{"task added", func(j *structs.Job) {
			j.TaskGroups[0].Tasks = append(j.TaskGroups[0].Tasks, &structs.Task{Name: "u", Driver: "mock"})
		}, updateDestructive},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			old, cur := base(), base()
			cur.JobModifyIndex = 2
			c.change(cur)
			if got := classifyUpdate(old, cur, cur.TaskGroups[0]); got != c.want {
				t.Errorf("classifyUpdate = %d, want %d", got, c.want)
			}
		})
	}
}

// rollout is a small simulated cluster for the rolling tests: it applies
// Reconcile results as the scheduler and the plan applier would, and marks
// allocations healthy as a client would.
type rollout struct {
	t      *testing.T
	job    *structs.Job
	allocs []*structs.Allocation
	d      *structs.Deployment
	next   uint64
}

func newRollout(t *testing.T, count int, update *structs.UpdateStrategy) *rollout {
	j := testJob("service", count)
	j.CreateIndex, j.JobModifyIndex = 1, 1
	j.TaskGroups[0].Update = update
	r := &rollout{t: t, job: j, next: 10}
	for i := 0; i < count; i++ {
		a := alloc(uint(i), "n", "", r.next)
		a.Job = j
		r.allocs = append(r.allocs, a)
	}
	return r
}

// bump registers a new job version with changed task config.
func (r *rollout) bump(destructive bool) {
	j := r.job.Copy()
	j.Version++
	j.JobModifyIndex = r.next
	if destructive {
		j.TaskGroups[0].Tasks[0].Config = map[string]any{"v": j.Version}
	} else {
		j.Priority++
	}
	r.job = j
}

// eval reconciles and applies the result; it returns a summary.
func (r *rollout) eval() string {
	r.next++
	res := Reconcile(Input{Job: r.job, Allocs: r.allocs, Now: time.Unix(1000, 0), Deployment: r.d})
	if res.DeploymentCreated {
		r.d = res.Deployment
	}
	var out []string
	for _, st := range res.Stop {
		st.Alloc.DesiredStatus = structs.AllocDesiredStatusStop
		out = append(out, fmt.Sprintf("stop %d", st.Alloc.Index()))
	}
	for _, a := range res.InPlace {
		a.Job, a.DeploymentID, a.DeploymentStatus = r.job, r.d.ID, nil
		out = append(out, fmt.Sprintf("inplace %d", a.Index()))
	}
	for _, p := range res.Place {
		a := alloc(p.Index, "n", "", r.next)
		a.ID = fmt.Sprintf("a%d-%d-%d", p.Index, r.next, len(r.allocs))
		a.Job = r.job
		if r.d != nil {
			a.DeploymentID = r.d.ID
		}
		kind := "place"
		if p.Canary {
			a.DeploymentStatus = &structs.AllocDeploymentStatus{Canary: true}
			kind = "canary"
		}
		r.allocs = append(r.allocs, a)
		out = append(out, fmt.Sprintf("%s %d", kind, p.Index))
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// healthy marks every live alloc of the deployment healthy (or unhealthy).
func (r *rollout) healthy(ok bool) {
	for _, a := range r.allocs {
		if isLive(a) && a.DeploymentID == r.d.ID && (a.DeploymentStatus == nil || a.DeploymentStatus.Healthy == nil) {
			a.DeploymentStatus = &structs.AllocDeploymentStatus{Healthy: &ok, Canary: a.DeploymentStatus.IsCanary()}
		}
	}
}

func (r *rollout) expect(step, got, want string) {
	r.t.Helper()
	if got != want {
		r.t.Errorf("%s: got %q, want %q", step, got, want)
	}
}

func TestReconcileRollingMaxParallel(t *testing.T) {
	up := structs.DefaultUpdateStrategy()
	up.MaxParallel = 2
	r := newRollout(t, 5, up)
	r.bump(true)
	r.expect("first eval", r.eval(), "place 0, place 1, stop 0, stop 1")
	if r.d == nil || r.d.TaskGroups["g"].DesiredTotal != 5 {
		t.Fatalf("deployment not created: %+v", r.d)
	}
	r.expect("nothing healthy yet", r.eval(), "")
	r.healthy(true)
	r.expect("after health", r.eval(), "place 2, place 3, stop 2, stop 3")
	r.healthy(true)
	r.expect("last one", r.eval(), "place 4, stop 4")
	r.healthy(true)
	r.expect("done", r.eval(), "")
}

func TestReconcileRollingUnhealthyStops(t *testing.T) {
	r := newRollout(t, 3, structs.DefaultUpdateStrategy())
	r.bump(true)
	r.expect("first eval", r.eval(), "place 0, stop 0")
	r.healthy(false)
	r.expect("unhealthy alloc halts the rollout", r.eval(), "")
	r.d.Status = structs.DeploymentStatusFailed
	r.expect("failed deployment", r.eval(), "")
}

func TestReconcileInPlaceAndNewDeployment(t *testing.T) {
	r := newRollout(t, 2, structs.DefaultUpdateStrategy())
	r.bump(false)
	r.expect("in-place, all at once", r.eval(), "inplace 0, inplace 1")
	first := r.d
	r.healthy(true)
	r.bump(true)
	r.expect("new version", r.eval(), "place 0, stop 0")
	if r.d == first {
		t.Fatal("no new deployment for the new version")
	}
}

func TestReconcileCancelsOlderDeployment(t *testing.T) {
	r := newRollout(t, 2, structs.DefaultUpdateStrategy())
	r.bump(true)
	r.eval()
	old := r.d
	r.bump(true)
	res := Reconcile(Input{Job: r.job, Allocs: r.allocs, Now: time.Unix(1000, 0), Deployment: old})
	if len(res.DeploymentUpdates) != 1 || res.DeploymentUpdates[0].Status != structs.DeploymentStatusCancelled {
		t.Fatalf("older deployment not cancelled: %+v", res.DeploymentUpdates)
	}
	if !res.DeploymentCreated {
		t.Fatal("no deployment for the new version")
	}
}

func TestReconcileNoUpdateBlockAllAtOnce(t *testing.T) {
	r := newRollout(t, 3, &structs.UpdateStrategy{MaxParallel: 0})
	r.bump(true)
	r.expect("all at once", r.eval(), "place 0, place 1, place 2, stop 0, stop 1, stop 2")
	if r.d != nil {
		t.Fatal("deployment created without rolling updates")
	}
}

func TestReconcileCanaries(t *testing.T) {
	up := structs.DefaultUpdateStrategy()
	up.Canary = 1
	r := newRollout(t, 3, up)
	r.bump(true)
	r.expect("canary first", r.eval(), "canary 0")
	if s := r.d.TaskGroups["g"]; s.DesiredCanaries != 1 || s.Promoted {
		t.Fatalf("deployment state %+v", s)
	}
	r.expect("canary placed: waits", r.eval(), "")
	r.healthy(true)
	r.expect("healthy canary, not promoted: waits", r.eval(), "")
	r.d.TaskGroups["g"].Promoted = true
	r.expect("promoted: the replaced alloc stops, rollout goes on", r.eval(), "place 1, stop 0, stop 1")
	r.healthy(true)
	r.expect("last", r.eval(), "place 2, stop 2")
	r.healthy(true)
	r.expect("done", r.eval(), "")
	live := 0
	for _, a := range r.allocs {
		if isLive(a) {
			live++
		}
	}
	if live != 3 {
		t.Fatalf("%d live allocs, want 3", live)
	}
}
