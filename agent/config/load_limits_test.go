package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadFileLimits: an agent config nesting deeper than the parser's
// limit, or whose for expressions would build a huge value, is an error
// naming path:line:col, not a crash.
func TestLoadFileLimits(t *testing.T) {
	list := "[" + strings.Repeat("0, ", 1000) + "]"
	for _, tc := range []struct{ name, src, want string }{
		{"80000 parens", "datacenter = " + strings.Repeat("(", 80000) + `"dc1"` + strings.Repeat(")", 80000) + "\n",
			"c.hcl:1:270: Nesting too deep; This nests deeper than 256 levels"},
		{"deep blocks", strings.Repeat("client {\n", 300) + strings.Repeat("}\n", 300), "c.hcl:257:8: Nesting too deep"},
		{"deep template", "name = \"" + strings.Repeat("${\"", 300) + strings.Repeat("\"}", 300) + "\"\n", "c.hcl:1:"},
		{"nested for", "name = [for a in " + list + ": [for b in " + list + ": [for c in " + list + ": c]]]\n",
			`c.hcl:1:`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "c.hcl")
			if err := os.WriteFile(path, []byte(tc.src), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := LoadFile(path)
			if err == nil {
				t.Fatal("no error")
			}
			msg := strings.ReplaceAll(err.Error(), path, "c.hcl")
			if !strings.HasPrefix(msg, tc.want) {
				t.Fatalf("error:\n%.400s\nwant prefix:\n%s", msg, tc.want)
			}
			if tc.name == "nested for" && !strings.Contains(msg, "evaluation limit: ") {
				t.Fatalf("error:\n%.400s\nwant an evaluation limit", msg)
			}
		})
	}
}

// FuzzLoadConfig: no agent configuration crashes the loader; what it
// accepts validates or fails with an error.
func FuzzLoadConfig(f *testing.F) {
	if src, err := os.ReadFile("testdata/full.hcl"); err == nil {
		f.Add(src)
	}
	f.Add([]byte("datacenter = " + strings.Repeat("(", 80000) + `"dc1"` + strings.Repeat(")", 80000) + "\n"))
	f.Add([]byte("name = \"${length(setproduct(range(300),range(300),range(300)))}\"\n"))
	f.Add([]byte("name = [for a in [1, 2]: [for b in [3, 4]: a * b]]\nserver {\n  enabled = true\n}\n"))
	f.Add([]byte("plugin \"docker\" {\n  config {\n    volumes { enabled = true }\n  }\n}\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		c, err := loadSource(src, "f.hcl")
		if err == nil && c == nil {
			t.Fatal("no config and no error")
		}
		if err == nil {
			_ = DefaultConfig().Merge(c).Validate()
		}
	})
}
