package jobspec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse: no job file crashes the parser or runs away with it; it
// returns a job or an *Error. Seeded with the testdata jobs and the inputs
// of the hardening issue (deep nesting, a huge setproduct).
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.nomad.hcl")
	for _, name := range files {
		if src, err := os.ReadFile(name); err == nil {
			f.Add(src)
		}
	}
	f.Add([]byte("job \"x\" {\n  priority = " + parens(80000) + "\n}\n"))
	f.Add([]byte("locals {\n  x = length(setproduct(range(300), range(300), range(300)))\n}\n" + tinyJob))
	f.Add([]byte("locals {\n  x = [for a in range(100): format(\"%9999d\", a)]\n}\n" + tinyJob))
	f.Add([]byte("job \"x\" {\n  meta {\n    a = \"%{for x in [1]}${x}%{endfor}\"\n  }\n}\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		job, err := Parse(&ParseConfig{Path: "f.hcl", Body: src})
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			if strings.TrimSpace(err.Error()) == "" {
				t.Fatal("an error with no message")
			}
			return
		}
		if job == nil {
			t.Fatal("no job and no error")
		}
	})
}
