package hclutil

import (
	"os"
	"strings"
	"testing"
)

// BenchmarkCheckDepth scans a job file repeated to about 8 MiB (the HTTP
// body limit); b.SetBytes reports the throughput.
func BenchmarkCheckDepth(b *testing.B) {
	job, err := os.ReadFile("../../jobspec/testdata/full.nomad.hcl")
	if err != nil {
		b.Skip(err)
	}
	src := []byte(strings.Repeat(string(job), 8<<20/len(job)))
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		CheckDepth(src, "b.hcl", 0)
	}
}
