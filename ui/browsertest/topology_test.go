package browsertest

import (
	"strings"
	"testing"
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
