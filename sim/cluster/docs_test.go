package cluster

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// The cluster files website/sim.md shows ("Cluster shapes": one in JSON,
// the same in HCL) load, and say the same thing.
func TestDocsClusterFiles(t *testing.T) {
	doc, err := os.ReadFile("../../website/sim.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := map[string]string{}
	re := regexp.MustCompile("(?s)```(json|hcl)\n(\\{\"nodes\".*?|nodes\\s*=.*?)```")
	for _, m := range re.FindAllStringSubmatch(string(doc), -1) {
		if _, ok := blocks[m[1]]; !ok {
			blocks[m[1]] = m[2]
		}
	}
	if len(blocks) != 2 {
		t.Fatalf("found %d cluster file examples in website/sim.md, want a JSON one and an HCL one", len(blocks))
	}
	var specs []Spec
	for _, ext := range []string{"json", "hcl"} {
		path := filepath.Join(t.TempDir(), "cluster."+ext)
		if err := os.WriteFile(path, []byte(blocks[ext]), 0o644); err != nil {
			t.Fatal(err)
		}
		spec, err := LoadFile(path)
		if err != nil {
			t.Fatalf("the %s example: %v", ext, err)
		}
		specs = append(specs, spec)
	}
	j, h := specs[0], specs[1]
	if j.Nodes != h.Nodes || j.Racks != h.Racks || len(j.Classes) != len(h.Classes) || len(j.Datacenters) != len(h.Datacenters) {
		t.Fatalf("the JSON and HCL examples differ:\n%+v\n%+v", j, h)
	}
	for i := range j.Classes {
		a, b := j.Classes[i], h.Classes[i]
		if a.Name != b.Name || a.Weight != b.Weight || a.LogicalCPUs() != b.LogicalCPUs() || a.MemoryMB != b.MemoryMB || a.MHz != b.MHz {
			t.Errorf("class %d: JSON %+v, HCL %+v", i, a, b)
		}
	}
}
