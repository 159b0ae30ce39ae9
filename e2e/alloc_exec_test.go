package e2e

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// startExecJob runs a service job from hcl and returns its one running
// allocation's full ID.
func startExecJob(t *testing.T, id, hcl string) string {
	t.Helper()
	path := writeFile(t, id+".nomad.hcl", hcl)
	if r := nomadish(t, "job", "run", path); r.code != 0 || !createdAlloc.MatchString(r.out) {
		t.Fatalf("job run: %v", r)
	}
	allocs := waitAllocs(t, id, 1, "running", func(a allocRow) bool { return a.ClientStatus == "running" })
	return allocs[0].ID
}

// checkCLIExec drives `alloc exec` against a running alloc: output and exit
// code, stdin, a terminal, and refusals.
func checkCLIExec(t *testing.T, allocID string) {
	t.Helper()
	short := allocID[:8]
	if r := nomadishIn(t, "", "alloc", "exec", short, "sh", "-c", "echo in-task; echo to-err >&2; exit 7"); r.code != 7 ||
		!strings.Contains(r.out, "in-task") || !strings.Contains(r.errOut, "to-err") {
		t.Fatalf("alloc exec exit 7: %v", r)
	}
	if r := nomadishIn(t, "piped-line\n", "alloc", "exec", "-i", short, "cat"); r.code != 0 || r.out != "piped-line\n" {
		t.Fatalf("alloc exec with stdin: %v", r)
	}
	if r := nomadishIn(t, "", "alloc", "exec", "-t", "-task", "t", allocID, "sh", "-c", "test -t 0 && echo has-tty"); r.code != 0 ||
		!strings.Contains(r.out, "has-tty") {
		t.Fatalf("alloc exec -t: %v", r)
	}
	if r := nomadishIn(t, "", "alloc", "exec", "-task", "nope", short, "true"); r.code != 1 || !strings.Contains(r.errOut, `task "nope" not found`) {
		t.Fatalf("alloc exec unknown task: %v", r)
	}
	if r := nomadishIn(t, "", "alloc", "exec", short); r.code != 1 || !strings.Contains(r.errOut, "the command to run") {
		t.Fatalf("alloc exec without command: %v", r)
	}
	// raw_exec refuses (exit 1, the agent's reason); docker runs the exec
	// and reports the engine's 126 with its message, as `docker exec`.
	if r := nomadishIn(t, "", "alloc", "exec", short, "no-such-program-xyz"); r.code == 0 || !strings.Contains(r.out+r.errOut, "no-such-program-xyz") {
		t.Fatalf("alloc exec of a missing program: %v", r)
	}
}

// `alloc exec` into a raw_exec service task through the CLI.
func TestAllocExecRawExec(t *testing.T) {
	id := uniqueID("e2e-exec-raw")
	t.Cleanup(func() { nomadish(t, "job", "stop", "-purge", id) })
	allocID := startExecJob(t, id, rawExecJob(id, "service", "/bin/sh", []string{"-c", "while true; do sleep 0.1; done"}, 32))
	checkCLIExec(t, allocID)
}

// `alloc exec` into a docker container through the CLI.
func TestAllocExecDocker(t *testing.T) {
	ensureTestImage(t)
	id := uniqueID("e2e-exec-docker")
	t.Cleanup(func() {
		nomadish(t, "job", "stop", "-purge", id)
		removeJobContainers(t, id)
	})
	allocID := startExecJob(t, id, dockerJob(id, "service", "", "", "while true; do sleep 0.1; done"))
	checkCLIExec(t, allocID)
}

// The official client's Allocations().Exec works against nomadish, with
// and without a terminal; an exec into a stopped alloc is refused.
func TestAllocExecOfficialClient(t *testing.T) {
	id := uniqueID("e2e-exec-api")
	t.Cleanup(func() { nomadish(t, "job", "stop", "-purge", id) })
	allocID := startExecJob(t, id, rawExecJob(id, "service", "/bin/sh", []string{"-c", "while true; do sleep 0.1; done"}, 32))
	c, err := api.NewClient(&api.Config{Address: dev.addr})
	if err != nil {
		t.Fatal(err)
	}
	alloc, _, err := c.Allocations().Info(allocID, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out, errb bytes.Buffer
	code, err := c.Allocations().Exec(ctx, alloc, "t", false, []string{"sh", "-c", "echo via-api; cat; exit 4"},
		strings.NewReader("from-stdin\n"), &out, &errb, nil, nil)
	if err != nil || code != 4 || out.String() != "via-api\nfrom-stdin\n" {
		t.Fatalf("Exec: code %d, err %v, stdout %q, stderr %q", code, err, out.String(), errb.String())
	}
	sizes := make(chan api.TerminalSize, 1)
	sizes <- api.TerminalSize{Height: 20, Width: 70}
	out.Reset()
	code, err = c.Allocations().Exec(ctx, alloc, "t", true, []string{"sh", "-c", "test -t 1 && echo tty-yes"},
		strings.NewReader(""), &out, &errb, sizes, nil)
	if err != nil || code != 0 || !strings.Contains(out.String(), "tty-yes") {
		t.Fatalf("Exec with tty: code %d, err %v, stdout %q", code, err, out.String())
	}

	nomadish(t, "job", "stop", id)
	waitAllocs(t, id, 1, "complete", func(a allocRow) bool { return a.ClientStatus == "complete" })
	_, err = c.Allocations().Exec(ctx, alloc, "t", false, []string{"true"}, strings.NewReader(""), &out, &errb, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "400") {
		t.Fatalf("Exec into a stopped alloc: %v", err)
	}
}
