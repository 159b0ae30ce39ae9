package browsertest

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// sleeper is a raw_exec service job that prints a marker and sleeps.
func sleeperJob(id, marker string) string {
	return fmt.Sprintf(`job %q {
  datacenters = ["*"]
  group "web" {
    task "sleep" {
      driver = "raw_exec"
      config {
        command = "/bin/sh"
        args    = ["-c", "echo %s; exec sleep 600"]
      }
      resources {
        cpu    = 100
        memory = 64
      }
    }
  }
}
`, id, marker)
}

// The jobs page lists a job just run, with its status, and the harness
// sees no console error on it.
func TestHarnessJobsPageListsAJobJustRun(t *testing.T) {
	id := UniqueID("ui-smoke")
	dev.RunJob(t, sleeperJob(id, "hello"))
	dev.WaitRunning(t, id)
	p := OpenPage(t, "/ui/jobs")
	p.WaitText("#main table", id)
	p.WaitText("#main table tr", "running")
	dev.CLI(t, "job", "stop", "-purge", id)
	p.WaitGone("#main table", id)
}

// A script error, a console.error or a CSP violation on a page fails the
// test that opened it: the harness's
// own check, so that "no console errors" cannot pass by not listening.
func TestHarnessCatchesConsoleErrors(t *testing.T) {
	p := OpenPage(t, "/ui/jobs")
	var ignored any
	p.Eval(`setTimeout(() => { throw new Error("boom-from-test"); }, 0); console.error("console-from-test");
		const s = document.createElement("script"); s.textContent = "window.inlineRan = true"; document.body.append(s); true`, &ignored)
	var sawThrow, sawConsole, sawCSP bool
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && !(sawThrow && sawConsole && sawCSP); time.Sleep(20 * time.Millisecond) {
		for _, pr := range p.Problems() {
			sawThrow = sawThrow || strings.Contains(pr, "boom-from-test")
			sawConsole = sawConsole || strings.Contains(pr, "console-from-test")
			sawCSP = sawCSP || strings.Contains(pr, "Content Security Policy")
		}
	}
	if !sawThrow || !sawConsole || !sawCSP {
		t.Fatalf("problems seen %q: want the thrown error, the console.error and the CSP violation of an inline script", p.Problems())
	}
	// They were this test's own doing: clear them before the cleanup's check.
	p.mu.Lock()
	p.problems = nil
	p.mu.Unlock()
}
