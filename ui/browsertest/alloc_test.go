package browsertest

import (
	"testing"

	"github.com/chromedp/chromedp"
)

// The allocation page of a running raw_exec task shows its state, its
// allocated memory, its stdout (followed live), and runs a command typed
// into the exec terminal.
func TestAllocPageLogsStateResourcesExec(t *testing.T) {
	id := UniqueID("ui-alloc")
	marker := UniqueID("marker")
	dev.RunJob(t, sleeperJob(id, marker))
	allocs := dev.WaitRunning(t, id)
	t.Cleanup(func() { dev.CLIResult(t, "job", "stop", "-purge", id) })

	p := OpenPage(t, "/ui/allocations/"+allocs[0])
	p.WaitText("#main h1", allocs[0][:8])
	p.WaitText(".task-card h3", "running")
	p.WaitText(".task-card .events", "Started")
	p.WaitText(".alloc-resources tr", "64 MB") // sleeperJob's memory = 64
	p.WaitText(".log-view", marker)
	p.WaitText("#main .facts", id)

	p.WaitText("#exec-task option", "sleep")
	p.Click(".alloc-exec button.primary")
	p.WaitText(".alloc-exec .live", "Connected")
	p.Run(chromedp.SendKeys("#exec-input", "echo exec-$((6*7))-"+marker+"\n", chromedp.ByQuery))
	p.WaitText(".exec-view", "exec-42-"+marker) // the shell's answer, not the echo of what was typed
	p.Screenshot("allocation")
	p.Run(chromedp.SendKeys("#exec-input", "exit 3\n", chromedp.ByQuery))
	p.WaitText(".alloc-exec .live", "exited with code 3")
}

// Stop on the allocation page (after the confirm) stops the allocation.
func TestAllocPageStop(t *testing.T) {
	id := UniqueID("ui-alloc-stop")
	dev.RunJob(t, sleeperJob(id, "stop-me"))
	allocs := dev.WaitRunning(t, id)
	t.Cleanup(func() { dev.CLIResult(t, "job", "stop", "-purge", id) })

	p := OpenPage(t, "/ui/allocations/"+allocs[0])
	p.WaitText(".task-card h3", "running")
	p.Click(".alloc-actions button.danger")
	p.WaitText(".alloc-actions p", "done")
	p.WaitText("#main .facts", "stop")
	var a struct{ DesiredStatus string }
	dev.GetJSON(t, "/v1/allocation/"+allocs[0], &a)
	if a.DesiredStatus != "stop" {
		t.Fatalf("DesiredStatus = %q after Stop, want stop", a.DesiredStatus)
	}
}
