package server

import (
	"math"
	"strings"
	"testing"

	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

// wantBadRequest checks err is a 400 whose message holds want.
func wantBadRequest(t *testing.T, what string, err error, want string) {
	t.Helper()
	code, msg := structs.ErrorCode(err)
	if err == nil || code != structs.ErrCodeBadRequest || !strings.Contains(msg, want) {
		t.Fatalf("%s: error %v, want a 400 containing %q", what, err, want)
	}
}

// TestJobMaxCountOnRegisterScaleAndPlan: Config.JobMaxCount bounds the
// summed counts on Job.Register, Job.Scale and Job.Plan with a 400 naming
// job_max_count, and a refused request writes nothing.
func TestJobMaxCountOnRegisterScaleAndPlan(t *testing.T) {
	s := testServer(t, func(c *Config) { c.JobMaxCount = 5 })
	two := structstest.Job("two")
	two.TaskGroups = append(two.TaskGroups, &structs.TaskGroup{Name: "side", Count: 3, Tasks: two.TaskGroups[0].Tasks})
	two.TaskGroups[0].Count = 2 // 2 + 3 = 5: at the limit
	var reg structs.JobRegisterResponse
	if err := s.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: two}, &reg); err != nil {
		t.Fatal(err)
	}
	before, _ := s.State().Index(state.TableJobs) // the eval of "two" may still write elsewhere

	over := structstest.Job("over")
	over.TaskGroups[0].Count = 10000000
	err := s.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: over}, &reg)
	wantBadRequest(t, "register", err, `job "over" asks for 10000000 allocations (group "web": 10000000), over the server's job_max_count of 5`)
	var plan structs.JobPlanResponse
	err = s.RPC(structs.JobPlanRPC, &structs.JobPlanRequest{Job: over}, &plan)
	wantBadRequest(t, "plan", err, "job_max_count of 5")
	three := int64(3)
	err = s.RPC(structs.JobScaleRPC, &structs.JobScaleRequest{JobID: "two", Target: map[string]string{"Group": "web"}, Count: &three}, &reg)
	wantBadRequest(t, "scale", err, `asks for 6 allocations (group "web": 3, group "side": 3), over the server's job_max_count of 5`)

	if after, _ := s.State().Index(state.TableJobs); after != before {
		t.Fatalf("refused requests wrote jobs: index %d -> %d", before, after)
	}
	job, _ := s.State().JobByID(nil, "default", "two")
	if job == nil || job.TaskGroups[0].Count != 2 || job.Version != 0 {
		t.Fatalf("job after the refused scale: %+v", job)
	}
	if j, _ := s.State().JobByID(nil, "default", "over"); j != nil {
		t.Fatal("the refused job was registered")
	}
}

// TestJobMaxCountDefault: without a setting, 10000 allocations pass and
// 10001 are refused.
func TestJobMaxCountDefault(t *testing.T) {
	s := testServer(t, nil)
	var plan structs.JobPlanResponse
	job := structstest.Job("many")
	job.TaskGroups[0].Count = structs.DefaultJobMaxCount + 1
	err := s.RPC(structs.JobPlanRPC, &structs.JobPlanRequest{Job: job}, &plan)
	wantBadRequest(t, "plan", err, "job_max_count of 10000")
}

// TestRegisterRefusesOutOfBoundsInput: resources over the ceilings, IDs
// with NUL or a million bytes, and nodes advertising impossible resources
// are refused with a 400 naming the field, and nothing is written.
func TestRegisterRefusesOutOfBoundsInput(t *testing.T) {
	s := testServer(t, nil)
	before, _ := s.State().LatestIndex(nil)
	for _, c := range []struct {
		mod  func(*structs.Job)
		want string
	}{
		{func(j *structs.Job) { j.TaskGroups[0].Tasks[0].Resources.CPU = math.MaxInt64 }, `group "web": task "t": cpu 9223372036854775807 MHz is over the limit`},
		{func(j *structs.Job) { j.TaskGroups[0].Tasks[0].Resources.MemoryMB = math.MaxInt64 }, `task "t": memory 9223372036854775807 MB is over the limit`},
		{func(j *structs.Job) { j.ID = "bad\x00id" }, "job ID contains a null character"},
		{func(j *structs.Job) { j.ID = strings.Repeat("x", 1<<20) }, "job ID is 1048576 bytes long, over the limit of 256"},
		{func(j *structs.Job) { j.TaskGroups[0].Tasks[0].Name = "../../x" }, `name contains a slash`},
	} {
		job := structstest.Job("bounds")
		c.mod(job)
		var reg structs.JobRegisterResponse
		wantBadRequest(t, c.want, s.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: job}, &reg), c.want)
	}
	for _, c := range []struct {
		mod  func(*structs.Node)
		want string
	}{
		{func(n *structs.Node) { n.NodeResources.Memory.MemoryMB = math.MaxInt64 }, "NodeResources.Memory.MemoryMB 9223372036854775807 out of range"},
		{func(n *structs.Node) { n.NodeResources.Cpu.CpuShares = -1 }, "NodeResources.Cpu.CpuShares -1 out of range"},
		{func(n *structs.Node) { n.Name = "n\x00" }, "node name contains a null character"},
	} {
		n := structstest.Node("11111111-2222-3333-4444-555555555555")
		c.mod(n)
		var resp structs.NodeUpdateResponse
		wantBadRequest(t, c.want, s.RPC(structs.NodeRegisterRPC, &structs.NodeRegisterRequest{Node: n}, &resp), c.want)
	}
	if after, _ := s.State().LatestIndex(nil); after != before {
		t.Fatalf("refused requests wrote: index %d -> %d", before, after)
	}
}
