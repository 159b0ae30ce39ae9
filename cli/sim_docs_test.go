package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// workedExample is the heading of website/sim.md's capacity-planning
// example, whose `nomadish sim` commands TestSimDocsWorkedExample runs.
const workedExample = "## A worked example: how many nodes?"

// docCommands returns the `nomadish sim ...` commands of the ``` blocks
// of website/sim.md's section under heading, continuation lines joined,
// each split into its arguments (after "nomadish").
func docCommands(t *testing.T, heading string) [][]string {
	t.Helper()
	_, self, _, _ := runtime.Caller(0)
	src, err := os.ReadFile(filepath.Join(filepath.Dir(self), "..", "website", "sim.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(src), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("website/sim.md has no section %q", heading)
	}
	if i := strings.Index(sec, "\n## "); i >= 0 {
		sec = sec[:i]
	}
	var out [][]string
	inBlock, cmd := false, ""
	for _, l := range strings.Split(sec, "\n") {
		switch {
		case strings.HasPrefix(l, "```"):
			inBlock = !inBlock
		case inBlock && (cmd != "" || strings.HasPrefix(l, "nomadish sim ")):
			cmd += " " + strings.TrimSuffix(strings.TrimSpace(l), `\`)
			if !strings.HasSuffix(l, `\`) {
				out = append(out, strings.Fields(cmd)[1:])
				cmd = ""
			}
		}
	}
	return out
}

// scaleDown is a documented command made small enough for a unit test:
// node counts (-nodes N, nodes=N) divided by ten (the generated trace
// shrinks with them), a -report written under dir.
func scaleDown(t *testing.T, args []string, dir string) []string {
	out := append([]string(nil), args...)
	tenth := func(s string) string {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("%v: node count %q: %v", args, s, err)
		}
		return strconv.Itoa(max(1, n/10))
	}
	for i := 0; i < len(out); i++ {
		switch {
		case out[i] == "-nodes" && i+1 < len(out):
			out[i+1] = tenth(out[i+1])
		case out[i] == "-report" && i+1 < len(out):
			out[i+1] = filepath.Join(dir, filepath.Base(out[i+1]))
		case out[i] == "-compare" && i+1 < len(out):
			var kvs []string
			for _, kv := range strings.Split(out[i+1], ",") {
				if n, ok := strings.CutPrefix(kv, "nodes="); ok {
					kv = "nodes=" + tenth(n)
				}
				kvs = append(kvs, kv)
			}
			out[i+1] = strings.Join(kvs, ",")
		}
	}
	return out
}

// TestSimDocsWorkedExample runs the worked example's commands at a tenth
// of the nodes, so the documented commands
// keep working: each exits 0, and where it compares node counts, the
// larger cluster rejects fewer placements on the same trace.
func TestSimDocsWorkedExample(t *testing.T) {
	cmds := docCommands(t, workedExample)
	if len(cmds) < 2 {
		t.Fatalf("the worked example has %d sim commands; want at least 2", len(cmds))
	}
	dir := t.TempDir()
	for _, doc := range cmds {
		args := scaleDown(t, doc, dir)
		code, out, errOut := runCLI(nil, args...)
		if code != 0 {
			t.Fatalf("%v (documented as %v): exit %d: %s", args, doc, code, errOut)
		}
		if !strings.Contains(strings.Join(args, " "), "nodes=") {
			continue
		}
		code, out, errOut = runCLI(nil, append(args, "-json")...)
		if code != 0 {
			t.Fatalf("%v -json: exit %d: %s", args, code, errOut)
		}
		var cmp simCompareJSON
		if err := json.Unmarshal([]byte(out), &cmp); err != nil {
			t.Fatalf("%v -json: %v", args, err)
		}
		if cmp.A.Rejections == 0 || cmp.B.Rejections >= cmp.A.Rejections {
			t.Errorf("%v: %d then %d rejections; want the smaller cluster to reject and the larger fewer",
				args, cmp.A.Rejections, cmp.B.Rejections)
		}
	}
}
