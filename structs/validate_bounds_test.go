package structs

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

func boundsJob() *Job {
	j := &Job{ID: "web", TaskGroups: []*TaskGroup{{Name: "g", Count: 2, Tasks: []*Task{{Name: "t", Driver: "raw_exec"}}}}}
	j.Canonicalize()
	return j
}

// TestJobValidateBounds: each bad ID, name or size is refused with an error
// naming the place and the field; a job at the ceilings passes.
func TestJobValidateBounds(t *testing.T) {
	task := func(j *Job) *Task { return j.TaskGroups[0].Tasks[0] }
	group := func(j *Job) *TaskGroup { return j.TaskGroups[0] }
	for _, c := range []struct {
		name string
		mod  func(*Job)
		want string // "" = valid
	}{
		{"valid", func(*Job) {}, ""},
		{"at the ceilings", func(j *Job) {
			r := task(j).Resources
			r.CPU, r.MemoryMB, r.MemoryMaxMB, r.DiskMB = MaxCPU, MaxMemoryMB, MaxMemoryMB, MaxDiskMB
			group(j).EphemeralDisk.SizeMB = MaxDiskMB
			j.ID = strings.Repeat("a", MaxJobIDLength)
		}, ""},
		{"child job ID", func(j *Job) { j.ID = "batch/periodic-1700000000" }, ""},
		{"unicode names", func(j *Job) { j.ID, group(j).Name = "café", "grüße" }, ""},
		{"cpu 2^63-1", func(j *Job) { task(j).Resources.CPU = math.MaxInt64 }, `group "g": task "t": cpu 9223372036854775807 MHz is over the limit of 67108864 MHz`},
		{"memory huge", func(j *Job) { task(j).Resources.MemoryMB = math.MaxInt64 }, `group "g": task "t": memory 9223372036854775807 MB is over the limit`},
		{"memory_max huge", func(j *Job) { task(j).Resources.MemoryMaxMB = MaxMemoryMB + 1 }, `task "t": memory_max 134217729 MB is over the limit`},
		{"cores huge", func(j *Job) { task(j).Resources.CPU, task(j).Resources.Cores = 0, MaxCores+1 }, `task "t": cores 8193 is over the limit of 8192`},
		{"disk huge", func(j *Job) { task(j).Resources.DiskMB = MaxDiskMB + 1 }, `task "t": disk 1073741825 MB is over the limit`},
		{"ephemeral disk huge", func(j *Job) { group(j).EphemeralDisk.SizeMB = math.MaxInt64 }, `group "g": ephemeral_disk size 9223372036854775807 MB out of range`},
		{"ephemeral disk negative", func(j *Job) { group(j).EphemeralDisk.SizeMB = -1 }, `group "g": ephemeral_disk size -1 MB out of range`},
		{"mbits huge", func(j *Job) { group(j).Networks = []*NetworkResource{{MBits: math.MaxInt64}} }, `group "g": network mbits 9223372036854775807 out of range`},
		{"dynamic port value", func(j *Job) {
			group(j).Networks = []*NetworkResource{{DynamicPorts: []Port{{Label: "http", Value: 70000}}}}
		}, `group "g": port "http": value 70000 out of range`},
		{"job ID with NUL", func(j *Job) { j.ID = "web\x00x" }, "job ID contains a null character"},
		{"job ID of a million bytes", func(j *Job) { j.ID = strings.Repeat("x", 1<<20) }, "job ID is 1048576 bytes long, over the limit of 256"},
		{"job ID control char", func(j *Job) { j.ID = "a\x1bb" }, "job ID contains the non-printable character U+001B"},
		{"job ID invalid UTF-8", func(j *Job) { j.ID = "a\xffb" }, "job ID is not valid UTF-8"},
		{"job ID traversal", func(j *Job) { j.ID = "../../etc" }, `job ID has an empty, "." or ".." path segment`},
		{"job ID leading slash", func(j *Job) { j.ID = "/abs" }, `job ID has an empty, "." or ".." path segment`},
		{"job name NUL", func(j *Job) { j.Name = "n\x00" }, "job name contains a null character"},
		{"namespace", func(j *Job) { j.Namespace = "a b" }, `namespace "a b" must be 1-128 letters, digits or dashes`},
		{"region", func(j *Job) { j.Region = "r\x00" }, "region contains a null character"},
		{"datacenter empty", func(j *Job) { j.Datacenters = []string{""} }, "datacenter names can't be empty"},
		{"datacenter space", func(j *Job) { j.Datacenters = []string{"dc 1"} }, `datacenter "dc 1" contains a space`},
		{"node pool", func(j *Job) { j.NodePool = "p/q" }, `node pool "p/q" must be`},
		{"group name slash", func(j *Job) { group(j).Name = "a/b" }, `group "a/b": name contains a slash`},
		{"group name dotdot", func(j *Job) { group(j).Name = ".." }, `group "..": name can't be ".."`},
		{"group name NUL", func(j *Job) { group(j).Name = "g\x00" }, `name contains a null character`},
		{"task name backslash", func(j *Job) { task(j).Name = `a\b` }, `group "g": task "a\\b": name contains a slash`},
		{"task name dot", func(j *Job) { task(j).Name = "." }, `group "g": task ".": name can't be "."`},
		{"job meta key NUL", func(j *Job) { j.Meta = map[string]string{"k\x00": "v"} }, `meta key "k\x00" contains a null character`},
		{"group meta key empty", func(j *Job) { group(j).Meta = map[string]string{"": "v"} }, `group "g": meta key can't be empty`},
		{"task meta value NUL", func(j *Job) { task(j).Meta = map[string]string{"k": "v\x00"} }, `task "t": meta "k": value contains a null character`},
		{"meta value huge", func(j *Job) { j.Meta = map[string]string{"k": strings.Repeat("v", MaxMetaValueLength+1)} }, `meta "k": value is 65537 bytes long`},
		{"too many groups", func(j *Job) {
			for i := range MaxTaskGroups {
				j.TaskGroups = append(j.TaskGroups, &TaskGroup{Name: "g" + strconv.Itoa(i), Tasks: []*Task{{Name: "t", Driver: "raw_exec", Resources: DefaultResources()}}})
			}
		}, "job has 1001 task groups, over the limit of 1000"},
		{"too many tasks", func(j *Job) {
			for i := range MaxTasksPerGroup {
				group(j).Tasks = append(group(j).Tasks, &Task{Name: "t" + strconv.Itoa(i), Driver: "raw_exec", Resources: DefaultResources()})
			}
		}, `group "g": has 1001 tasks, over the limit of 1000`},
	} {
		t.Run(c.name, func(t *testing.T) {
			j := boundsJob()
			c.mod(j)
			err := j.Validate()
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("valid job refused: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("error %v, want one containing %q", truncate(err), c.want)
			case err != nil && len(err.Error()) > 4096:
				t.Fatalf("error is %d bytes: it echoes the input", len(err.Error()))
			}
		})
	}
}

func truncate(err error) string {
	if err == nil {
		return "<nil>"
	}
	s := err.Error()
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}

func TestJobValidateCount(t *testing.T) {
	j := boundsJob()
	j.TaskGroups = append(j.TaskGroups, &TaskGroup{Name: "h", Count: 5})
	if err := j.ValidateCount(7); err != nil {
		t.Fatalf("7 allocations under a limit of 7: %v", err)
	}
	err := j.ValidateCount(6)
	if err == nil || err.Error() != `job "web" asks for 7 allocations (group "g": 2, group "h": 5), over the server's job_max_count of 6` {
		t.Fatalf("error: %v", err)
	}
	j.TaskGroups[0].Count = 10000000
	if err := j.ValidateCount(0); err == nil || !strings.Contains(err.Error(), "over the server's job_max_count of 10000") {
		t.Fatalf("count 10000000 under the default limit: %v", err)
	}
	j.TaskGroups[0].Count, j.TaskGroups[1].Count = math.MaxInt, math.MaxInt // the sum saturates, never wraps
	if err := j.ValidateCount(MaxJobMaxCount); err == nil {
		t.Fatal("two groups of MaxInt passed")
	}
}

func TestNodeValidateBounds(t *testing.T) {
	good := func() *Node {
		return &Node{ID: "9f1c2a9e-1111-2222-3333-444455556666", SecretID: "s", Name: "node-1", Datacenter: "dc1", NodePool: "default",
			NodeResources: &NodeResources{Cpu: NodeCpuResources{CpuShares: 4000, TotalCpuCores: 4}, Memory: NodeMemoryResources{MemoryMB: 8192},
				Disk: NodeDiskResources{DiskMB: 100000}, Networks: []*NetworkResource{{MBits: 1000}}, MinDynamicPort: 20000, MaxDynamicPort: 32000},
			ReservedResources: &NodeReservedResources{Cpu: NodeReservedCpuResources{CpuShares: 100}}}
	}
	for _, c := range []struct {
		name string
		mod  func(*Node)
		want string
	}{
		{"valid", func(*Node) {}, ""},
		{"cpu huge", func(n *Node) { n.NodeResources.Cpu.CpuShares = math.MaxInt64 }, "NodeResources.Cpu.CpuShares 9223372036854775807 out of range [0, 67108864]"},
		{"memory negative", func(n *Node) { n.NodeResources.Memory.MemoryMB = -1 }, "NodeResources.Memory.MemoryMB -1 out of range"},
		{"disk huge", func(n *Node) { n.NodeResources.Disk.DiskMB = math.MaxInt64 }, "NodeResources.Disk.DiskMB 9223372036854775807 out of range"},
		{"mbits", func(n *Node) { n.NodeResources.Networks[0].MBits = -5 }, "NodeResources.Networks[0].MBits -5 out of range"},
		{"cores", func(n *Node) { n.NodeResources.Cpu.TotalCpuCores = MaxCores + 1 }, "NodeResources.Cpu.TotalCpuCores 8193 out of range"},
		{"reservable core", func(n *Node) { n.NodeResources.Cpu.ReservableCpuCores = []uint16{9000} }, "ReservableCpuCores: core 9000 out of range"},
		{"port range", func(n *Node) { n.NodeResources.MaxDynamicPort = 70000 }, "NodeResources.MaxDynamicPort 70000 out of range"},
		{"reserved negative", func(n *Node) { n.ReservedResources.Cpu.CpuShares = -1 << 40 }, "ReservedResources.Cpu.CpuShares -1099511627776 out of range"},
		{"reserved memory huge", func(n *Node) { n.ReservedResources.Memory.MemoryMB = math.MaxInt64 }, "ReservedResources.Memory.MemoryMB"},
		{"ID NUL", func(n *Node) { n.ID = "n\x00" }, "node ID contains a null character"},
		{"ID slash", func(n *Node) { n.ID = "../n" }, "node ID contains a slash"},
		{"ID long", func(n *Node) { n.ID = strings.Repeat("n", 1<<20) }, "node ID is 1048576 bytes long"},
		{"name NUL", func(n *Node) { n.Name = "a\x00" }, "node name contains a null character"},
		{"datacenter", func(n *Node) { n.Datacenter = "dc\n1" }, "node datacenter contains the non-printable character U+000A"},
		{"meta key", func(n *Node) { n.Meta = map[string]string{"a b": "1"} }, `node meta key "a b" contains a space`},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := good()
			c.mod(n)
			err := n.ValidateBounds()
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("valid node refused: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("error %v, want one containing %q", truncate(err), c.want)
			}
		})
	}
}
