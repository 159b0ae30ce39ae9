package browsertest

import (
	"strings"
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

// The job page links its allocations here; Stop on the allocation page
// (after the confirm) stops the allocation.
func TestAllocPageStop(t *testing.T) {
	id := UniqueID("ui-alloc-stop")
	dev.RunJob(t, sleeperJob(id, "stop-me"))
	allocs := dev.WaitRunning(t, id)
	t.Cleanup(func() { dev.CLIResult(t, "job", "stop", "-purge", id) })

	// Reached from the job page's allocation link.
	p := OpenPage(t, "/ui/jobs/"+id)
	p.Click(`a[href="/ui/allocations/` + allocs[0] + `"]`)
	p.WaitText("#main h1", "Allocation "+allocs[0][:8])
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

// The stdout/stderr switch shows the other stream; Restart and Signal
// of one task go through the client API and show up in
// the task's event timeline.
func TestAllocPageRestartAndSignal(t *testing.T) {
	id := UniqueID("ui-alloc-ctl")
	// The task prints a line on SIGUSR1 instead of dying of it.
	dev.RunJob(t, strings.Replace(sleeperJob(id, "ctl"), "exec sleep 600",
		"echo err-ctl >&2; trap 'echo got-usr1' USR1; while true; do sleep 1; done", 1))
	allocs := dev.WaitRunning(t, id)
	t.Cleanup(func() { dev.CLIResult(t, "job", "stop", "-purge", id) })

	p := OpenPage(t, "/ui/allocations/"+allocs[0])
	p.WaitText(".task-card h3", "running")
	p.WaitText("#alloc-action-task option", "sleep")
	p.Run(chromedp.SetValue("#alloc-action-task", "sleep", chromedp.ByQuery),
		chromedp.SetValue("#alloc-action-signal", "SIGUSR1", chromedp.ByQuery))
	p.Click(".alloc-actions button:nth-of-type(2)") // Send signal
	p.WaitText(".alloc-actions p", "Sending SIGUSR1 to task sleep: done")
	p.WaitText(".task-card .events", "Signaling")
	p.WaitText(".log-view", "got-usr1")
	p.Run(chromedp.SetValue("#logs-type", "stderr", chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector("#logs-type").dispatchEvent(new Event("change"))`, nil))
	p.WaitText(".log-view", "err-ctl")
	p.WaitGone(".log-view", "got-usr1")

	p.Click(".alloc-actions button:nth-of-type(1)") // Restart
	p.WaitText(".alloc-actions p", "Restarting task sleep: done")
	p.WaitText(".task-card .events", "Restart Signaled")
	p.WaitText(".task-card h3", "running")
}
