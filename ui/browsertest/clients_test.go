package browsertest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/nomadish/nomadish/client/fingerprint/sysfstest"
	"github.com/nomadish/nomadish/internal/testbin"
)

// pinnedJob is an exec task reserving one whole core (as e2e's cores job).
func pinnedJob(id string) string {
	return fmt.Sprintf(`job %q {
  datacenters = ["*"]
  group "g" {
    task "pinned" {
      driver       = "exec"
      kill_timeout = "1s"
      config {
        command = "/bin/sh"
        args    = ["-c", "while true; do sleep 1; done"]
      }
      resources {
        cores  = 1
        memory = 32
      }
    }
  }
}
`, id)
}

// The client page's topology map shows the core the scheduler gave a task
// held by that allocation and task; the clients list shows the node with
// both its allocated and its used figures.
func TestClientTopologyMapShowsHeldCore(t *testing.T) {
	id := UniqueID("ui-cores")
	dev.RunJob(t, pinnedJob(id))
	t.Cleanup(func() { dev.CLIResult(t, "job", "stop", "-purge", id) })
	allocID := dev.WaitRunning(t, id)[0]
	var alloc struct {
		NodeID, NodeName   string
		AllocatedResources struct {
			Tasks map[string]struct {
				Cpu struct {
					CpuShares     int
					ReservedCores []int
				}
			}
		}
	}
	dev.GetJSON(t, "/v1/allocation/"+allocID, &alloc)
	task := alloc.AllocatedResources.Tasks["pinned"]
	if len(task.Cpu.ReservedCores) != 1 {
		t.Fatalf("allocation %s reserved cores %v, want one", allocID, task.Cpu.ReservedCores)
	}
	core := task.Cpu.ReservedCores[0]

	p := OpenPage(t, "/ui/clients/"+alloc.NodeID)
	cell := fmt.Sprintf(`document.querySelector('.numa-map [data-core="%d"]')`, core)
	p.poll("core cell held by the allocation", fmt.Sprintf(`%s?.dataset.alloc === %q`, cell, allocID))
	var got struct{ Task, State, Label, Link string }
	p.Eval(fmt.Sprintf(`(() => { const c = %s; return {Task: c.dataset.task, State: c.dataset.state,
		Label: c.getAttribute("aria-label"), Link: c.querySelector("a")?.getAttribute("href") || ""}; })()`, cell), &got)
	if got.Task != "pinned" || got.State != "held" || got.Link != "/ui/allocations/"+allocID {
		t.Fatalf("core %d cell: %+v, want held by task pinned of %s", core, got, allocID)
	}
	p.WaitText(".numa-summary", "held by")
	p.WaitText("#main table", id) // the allocations table
	// The cpu meter counts the core's MHz among the allocated.
	p.poll("cpu meter with the allocation's MHz and the host's use", fmt.Sprintf(
		`(() => { const m = document.querySelector('[data-dim="cpu"] .meter'); return !!m && Number(m.dataset.allocated) >= %d && m.dataset.used !== ""; })()`,
		task.Cpu.CpuShares))
	p.Screenshot("client")

	list := OpenPage(t, "/ui/clients")
	row := fmt.Sprintf(`tr[data-node=%q]`, alloc.NodeID)
	list.WaitText(row, alloc.NodeName)
	for _, dim := range []string{"cpu", "memory"} {
		list.poll(dim+" allocated and used in the list", fmt.Sprintf(
			`(() => { const m = document.querySelector('%s [data-dim="%s"] .meter'); return !!m && Number(m.dataset.allocated) > 0 && m.dataset.used !== "" && Number(m.dataset.capacity) > 0; })()`,
			row, dim))
	}
	list.WaitText(row, "alloc")
	list.WaitText(row, "used")
	list.Screenshot("clients")

	// Live: once the job is stopped, the node's page frees the core.
	dev.CLI(t, "job", "stop", "-purge", id)
	p.poll("core freed after the job stopped", fmt.Sprintf(`%s?.dataset.alloc !== %q && %s?.dataset.state === "free"`, cell, allocID, cell))
}

// The map draws every NUMA node of a two-socket topology with SMT
// siblings, a client-reserved core, a disabled one and two allocations'
// tasks (the dev machine has one NUMA node): numa-map.js on a node JSON.
func TestNUMAMapTwoSockets(t *testing.T) {
	p := OpenPage(t, "/ui/clients")
	var ok bool
	p.Eval(`(() => {
		const core = (id, numa, sib, extra) => Object.assign({ID: id, NodeID: numa, SocketID: numa, Siblings: sib, BaseSpeed: 2000}, extra);
		const node = {ID: "n", NodeResources: {Cpu: {CpuShares: 16000, TotalCpuCores: 8, ReservableCpuCores: [0,1,2,3,4,5,6]},
			Processors: {Topology: {Nodes: btoa(String.fromCharCode(0, 1)), Distances: [[10, 21], [21, 10]], NodeMemoryMB: [4096, 4096],
				Cores: [core(0,0,[0,4]), core(4,0,[0,4]), core(1,0,[1,5]), core(5,0,[1,5]), core(2,1,[2,6]), core(6,1,[2,6]), core(3,1,[3,7]), core(7,1,[3,7], {Disable: true})]}}},
			ReservedResources: {Cpu: {ReservedCpuCores: [3]}}};
		const alloc = (id, task, cores) => ({ID: id, JobID: "j-" + id, TaskGroup: "g", DesiredStatus: "run", ClientStatus: "running",
			AllocatedResources: {Tasks: {[task]: {Cpu: {ReservedCores: cores}}}}});
		const allocs = [alloc("aaaaaaaa-1", "web", [0, 4]), alloc("bbbbbbbb-2", "db", [6]),
			Object.assign(alloc("cccccccc-3", "old", [1]), {ClientStatus: "complete"})];
		import("/ui/assets/numa-map.js").then((m) => {
			const box = document.createElement("div"); box.id = "numa-fixture";
			box.append(m.numaMap({node, allocs})); document.body.append(box);
		});
		return true; })()`, &ok)
	p.poll("fixture map drawn", `!!document.querySelector("#numa-fixture .numa-map")`)
	var cells map[string]string
	p.Eval(`Object.fromEntries(Array.from(document.querySelectorAll("#numa-fixture [data-core]")).map((c) =>
		[c.dataset.core, [c.closest("[data-numa]").dataset.numa, c.dataset.state, c.dataset.alloc || "", c.dataset.task || ""].join(" ")]))`, &cells)
	want := map[string]string{
		"0": "0 held aaaaaaaa-1 web", "4": "0 held aaaaaaaa-1 web", "1": "0 free  ", "5": "0 free  ",
		"2": "1 free  ", "6": "1 held bbbbbbbb-2 db", "3": "1 reserved  ", "7": "1 disabled  ",
	}
	for k, w := range want {
		if cells[k] != w {
			t.Errorf("core %s: %q, want %q (all: %v)", k, cells[k], w, cells)
		}
	}
	var phys, legend int
	p.Eval(`document.querySelectorAll("#numa-fixture .phys").length`, &phys)
	p.Eval(`document.querySelectorAll("#numa-fixture .numa-legend a").length`, &legend)
	if phys != 4 || legend != 2 {
		t.Errorf("%d physical-core groups (want 4), %d allocations in the legend (want 2)", phys, legend)
	}
	p.WaitText("#numa-fixture .numa-summary", "2 NUMA nodes, 8 cores: 3 held by 2 allocations, 1 reserved, 1 disabled, 3 free.")
	p.WaitText(`#numa-fixture [data-numa="1"] h3`, "distances 21 10")
}

// The client page's eligibility button marks the node ineligible through
// the API and back.
func TestClientEligibilityToggle(t *testing.T) {
	var nodes []struct{ ID, SchedulingEligibility string }
	dev.GetJSON(t, "/v1/nodes", &nodes)
	if len(nodes) == 0 {
		t.Fatal("no nodes")
	}
	n := nodes[0]
	t.Cleanup(func() { dev.CLIResult(t, "node", "eligibility", "-enable", n.ID) })
	p := OpenPage(t, "/ui/clients/"+n.ID)
	p.WaitText(`[data-fact="eligibility"]`, "eligible")
	p.Click(".actions button") // the eligibility button comes first
	p.WaitText(`[data-fact="eligibility"]`, "ineligible")
	var after struct{ SchedulingEligibility string }
	dev.GetJSON(t, "/v1/node/"+n.ID, &after)
	if after.SchedulingEligibility != "ineligible" {
		t.Fatalf("node eligibility %q after the click, want ineligible", after.SchedulingEligibility)
	}
	p.WaitText(".actions button", "Mark eligible")
	p.Click(".actions button")
	p.WaitGone(`[data-fact="eligibility"]`, "ineligible")
	p.WaitText("#events-h + table", "eligib") // the node's events record the change
	dev.GetJSON(t, "/v1/node/"+n.ID, &after)
	if after.SchedulingEligibility != "eligible" {
		t.Fatalf("node eligibility %q after the second click, want eligible", after.SchedulingEligibility)
	}
}

// startSysfsAgent starts a second dev agent whose client fingerprints the
// fake machine m through sysfs_root, with extra client configuration;
// stopped at t's cleanup.
func startSysfsAgent(t *testing.T, m sysfstest.Machine, clientExtra string) *Agent {
	t.Helper()
	dir := t.TempDir()
	ports, err := testbin.FreePorts(3)
	if err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf("data_dir = %q\nbind_addr = \"127.0.0.1\"\nports {\n  http = %d\n  rpc  = %d\n  serf = %d\n}\nclient {\n  sysfs_root = %q\n%s\n}\n",
		filepath.Join(dir, "data"), ports[0], ports[1], ports[2], sysfstest.Temp(t, m), clientExtra)
	cfgPath := filepath.Join(dir, "agent.hcl")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	a := &Agent{Addr: fmt.Sprintf("http://127.0.0.1:%d", ports[0]), logPath: filepath.Join(dir, "agent.log"), done: make(chan struct{})}
	logf, err := os.Create(a.logPath)
	if err != nil {
		t.Fatal(err)
	}
	a.cmd = exec.Command(bin, "agent", "-dev", "-config", cfgPath)
	a.cmd.Stdout, a.cmd.Stderr = logf, logf
	a.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := a.cmd.Start(); err != nil {
		logf.Close()
		t.Fatal(err)
	}
	go func() { _ = a.cmd.Wait(); logf.Close(); close(a.done) }()
	t.Cleanup(a.stop)
	if err := a.waitReady(30 * time.Second); err != nil {
		t.Fatalf("%v\nagent log:\n%s", err, a.logTail())
	}
	return a
}

// A client that fingerprints a two-socket machine with SMT (a fake sysfs
// tree) and reserves a core in its configuration: its page draws both NUMA
// nodes with their cores, the siblings grouped, the reserved core marked.
func TestClientMapFromFakeSysfs(t *testing.T) {
	// cpu0-3 are the first threads (node 0: cpu0, cpu1; node 1: cpu2,
	// cpu3), cpu4-7 their siblings.
	a := startSysfsAgent(t, sysfstest.Machine{Sockets: 2, CoresPerNode: 2, ThreadsPerCore: 2, NodeMemMiB: []int64{2048, 1024}, BaseKHz: 2000000},
		"  reserved {\n    cores = \"1\"\n  }")
	var nodes []struct{ ID string }
	a.GetJSON(t, "/v1/nodes", &nodes)
	p := OpenPage(t, "/ui/jobs")
	p.Run(chromedp.Navigate(a.Addr + "/ui/clients/" + nodes[0].ID))
	p.WaitText(".numa-summary", "2 NUMA nodes, 8 cores: 0 held by 0 allocations, 1 reserved, 0 disabled, 7 free.")
	var layout map[string]string
	p.Eval(`Object.fromEntries(Array.from(document.querySelectorAll("[data-numa]")).map((n) =>
		[n.dataset.numa, Array.from(n.querySelectorAll(".phys")).map((g) =>
			Array.from(g.querySelectorAll("[data-core]")).map((c) => c.dataset.core + (c.dataset.state === "free" ? "" : ":" + c.dataset.state)).join("+")).join(" ")]))`, &layout)
	want := map[string]string{"0": "0+4 1:reserved+5", "1": "2+6 3+7"}
	if len(layout) != 2 || layout["0"] != want["0"] || layout["1"] != want["1"] {
		t.Fatalf("NUMA nodes and their physical cores %v, want %v", layout, want)
	}
	p.WaitText(`[data-numa="0"] h3`, "2,048 MB")
	p.WaitText(`[data-numa="1"] h3`, "socket 1")
	p.Screenshot("client-numa")
}
