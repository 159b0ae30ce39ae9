package scheduler_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the expected output in testdata/*.txt")

// TestScenarios runs every testdata/*.txt file. A file is a list of blocks:
//
//	# comment
//	<command> <args...>
//	----
//	<expected output, no blank lines>
//	<blank line>
//
// Commands are listed in scenario_cmds_test.go. With -rewrite the files are
// regenerated from the actual output; review them as a diff.
func TestScenarios(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no testdata/*.txt scenarios")
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) { runScenarioFile(t, f) })
	}
}

type block struct {
	comments []string // lines before the command
	cmd      string
	line     int
	expected string
}

func parseScenario(t *testing.T, path string) []block {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	var blocks []block
	var cur block
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			cur.comments = append(cur.comments, l)
			continue
		}
		cur.cmd, cur.line = l, i+1
		if i+1 >= len(lines) || lines[i+1] != "----" {
			t.Fatalf("%s:%d: command %q not followed by ----", path, i+1, l)
		}
		i += 2
		var out []string
		for ; i < len(lines) && lines[i] != ""; i++ {
			out = append(out, lines[i])
		}
		cur.expected = strings.Join(out, "\n")
		blocks = append(blocks, cur)
		cur = block{}
	}
	if len(cur.comments) > 0 {
		blocks = append(blocks, cur) // trailing comments
	}
	return blocks
}

func runScenarioFile(t *testing.T, path string) {
	blocks := parseScenario(t, path)
	sc := newScenario(t)
	var out strings.Builder
	for _, b := range blocks {
		for _, c := range b.comments {
			out.WriteString(c + "\n")
		}
		if b.cmd == "" {
			continue
		}
		got := strings.TrimRight(sc.run(b.cmd), "\n")
		if strings.Contains(got, "\n\n") || strings.HasPrefix(got, "\n") {
			t.Fatalf("%s:%d: output of %q has a blank line", path, b.line, b.cmd)
		}
		fmt.Fprintf(&out, "%s\n----\n", b.cmd)
		if got != "" {
			out.WriteString(got + "\n")
		}
		out.WriteString("\n")
		if !*rewrite && got != b.expected {
			t.Errorf("%s:%d: %s\n--- want:\n%s\n--- got:\n%s", path, b.line, b.cmd, b.expected, got)
		}
	}
	if *rewrite {
		text := strings.TrimRight(out.String(), "\n") + "\n"
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
