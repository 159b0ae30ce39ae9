package browsertest

import (
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// The topology page shows the cluster's nodes in its summary and a job's
// allocation on the selected node, in the map's text alternative.
func TestTopologyShowsNodesAndAllocs(t *testing.T) {
	id := UniqueID("ui-topo")
	dev.RunJob(t, sleeperJob(id, "topo"))
	allocs := dev.WaitRunning(t, id)
	t.Cleanup(func() { dev.CLIResult(t, "job", "stop", "-purge", id) })

	p := OpenPage(t, "/ui/topology")
	p.WaitText(".topo-summary tfoot", "All")
	var nodes int
	p.Eval(`(() => { const c = document.querySelector(".topo-summary tfoot td.num"); return c ? parseInt(c.textContent.split("/")[1], 10) : 0; })()`, &nodes)
	if nodes < 1 {
		t.Fatalf("summary shows %d nodes; page: %s", nodes, p.Text("#main"))
	}
	// The dev agent has one node, selected first: its allocations are listed.
	p.WaitText(`.topo-selected tr[data-job="`+id+`"]`, allocs[0][:8])
	p.WaitText(".topo-legend", id)
	p.poll("the map drawn", `Number(document.querySelector(".topo-canvas")?.dataset.drawnNodes || 0) >= 1`)
	p.Screenshot("topology")
	// Memory vs cpu sizing is a toggle kept in the URL.
	p.Click("#topo-by-cpu")
	var loc string
	p.Eval(`location.search`, &loc)
	if !strings.Contains(loc, "by=cpu") {
		t.Fatalf("location.search = %q after choosing by cpu", loc)
	}
}

// synthCluster replaces, in the page, the answers of the topology page's
// two lists with n synthesized nodes in 3 datacenters and per allocations
// each (4 jobs, sizes varying), then routes to /ui/topology. The page's
// own code runs unchanged; only window.fetch answers for the agent.
const synthCluster = `((n, per) => {
  const nodes = [], allocs = [];
  for (let i = 0; i < n; i++) {
    const id = "00000000-0000-4000-8000-" + String(i).padStart(12, "0");
    nodes.push({ ID: id, Name: "sim-" + String(i).padStart(5, "0"), Datacenter: "dc" + (1 + i % 3), NodePool: i % 7 ? "default" : "gpu",
      Status: i % 97 ? "ready" : "down", SchedulingEligibility: i % 53 ? "eligible" : "ineligible",
      NodeResources: { Cpu: { CpuShares: 16000 }, Memory: { MemoryMB: 32768 } }, ReservedResources: { Cpu: { CpuShares: 500 }, Memory: { MemoryMB: 512 } } });
    for (let k = 0; k < per; k++) {
      const j = (i + k) % 4;
      allocs.push({ ID: id.slice(0, 24) + String(k).padStart(12, "a"), Name: "job" + j + ".g[" + k + "]", NodeID: id, JobID: "synth-job-" + j,
        Namespace: "default", TaskGroup: "g", ClientStatus: "running", DesiredStatus: "run",
        AllocatedResources: { Tasks: { t: { Cpu: { CpuShares: 500 * (j + 1) }, Memory: { MemoryMB: 1024 * (j + 1) } } } } });
    }
  }
  const real = window.fetch;
  window.fetch = (url, opts) => {
    const u = String(url);
    const body = u.startsWith("/v1/nodes?resources=true") ? nodes : u.startsWith("/v1/allocations?resources=true") ? allocs : null;
    if (!body) return real(url, opts);
    if (u.includes("index=")) { // the blocking query: nothing changes
      return new Promise((_, reject) => opts?.signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError"))));
    }
    return Promise.resolve(new Response(JSON.stringify(body), { headers: { "Content-Type": "application/json", "X-Nomad-Index": "7" } }));
  };
  history.pushState(null, "", "/ui/topology");
  dispatchEvent(new PopStateEvent("popstate"));
  return true;
})`

// With thousands of nodes (synthesized in the page: 2000 nodes, 6000
// allocations) the map draws only what is on screen, and hover and click
// find the node and the allocation under the pointer. The draw times are
// logged (not asserted: machines differ).
func TestTopologyThousandsOfNodes(t *testing.T) {
	p := OpenPage(t, "/ui/settings/tokens")
	var ok bool
	p.Eval(synthCluster+`(2000, 3)`, &ok)
	p.WaitText(".topo-summary tfoot", "All")
	p.WaitText(".live", "2000 nodes, 6000 live allocations")
	p.poll("the map drawn", `Number(document.querySelector(".topo-canvas")?.dataset.drawnNodes || 0) > 0`)
	var m struct {
		DrawMs, UpdateMs string
		Drawn            string
	}
	p.Eval(`({ DrawMs: document.querySelector(".topo-canvas").dataset.drawMs, Drawn: document.querySelector(".topo-canvas").dataset.drawnNodes,
		UpdateMs: document.querySelector(".live").dataset.updateMs })`, &m)
	t.Logf("2000 nodes, 6000 allocs: first draw %s ms (%s nodes on screen); model + summary + draw %s ms", m.DrawMs, m.Drawn, m.UpdateMs)
	if n := atoi(m.Drawn); n <= 0 || n >= 2000 {
		t.Fatalf("drew %s nodes: want only the visible ones", m.Drawn)
	}
	p.Screenshot("topology-2000")

	// Scrolling to the middle redraws only what is then on screen.
	p.Eval(`(() => { document.querySelector(".topo-canvas").dataset.drawMs = "x"; const s = document.querySelector(".topo-scroll"); s.scrollTop = s.scrollHeight / 2; s.dispatchEvent(new Event("scroll")); return true; })()`, &ok)
	p.poll("the map redrawn after scrolling", `!document.querySelector(".topo-canvas").dataset.drawMs.startsWith("x")`)
	var scrolled string
	p.Eval(`document.querySelector(".topo-canvas").dataset.drawMs`, &scrolled)
	t.Logf("draw after scrolling: %s ms", scrolled)

	// Keyboard: the map is focusable; End selects the last node, listed below.
	p.Run(chromedp.Focus(".topo-canvas", chromedp.ByQuery), chromedp.KeyEvent(kb.End))
	p.WaitText(".topo-selected h2", "sim-01")
	// Hover the first block of the first node row: the tooltip names its node.
	p.Eval(`(() => { const s = document.querySelector(".topo-scroll"); s.scrollTop = 0; s.dispatchEvent(new Event("scroll"));
		const r = document.querySelector(".topo-canvas").getBoundingClientRect();
		document.querySelector(".topo-canvas").dispatchEvent(new MouseEvent("mousemove", { clientX: r.left + 8 + 20, clientY: r.top + 8 + 30 + 10, bubbles: true }));
		return true; })()`, &ok)
	p.WaitText(".topo-tip", "sim-00003") // dc1, pool default: i%3 == 0, i%7 != 0
	// A click on an allocation's segment opens the allocation.
	p.Eval(`(() => { const r = document.querySelector(".topo-canvas").getBoundingClientRect();
		document.querySelector(".topo-canvas").dispatchEvent(new MouseEvent("click", { clientX: r.left + 8 + 5 + 3, clientY: r.top + 8 + 30 + 30, bubbles: true }));
		return true; })()`, &ok)
	p.poll("the allocation page", `location.pathname.startsWith("/ui/allocations/00000000-0000-4000-8000-")`)
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
