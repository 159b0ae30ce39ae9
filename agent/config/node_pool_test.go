package config

import (
	"strings"
	"testing"
)

// TestClientNodePool: client { node_pool } is read, and a bad or "all" pool
// is refused naming file:line:col.
func TestClientNodePool(t *testing.T) {
	head := "data_dir = \"/d\"\nserver { enabled = true }\nclient {\n  enabled = true\n  "
	c, err := loadString(t, head+"node_pool = \"gpu\"\n}\n")
	if err != nil {
		t.Fatal(err)
	}
	m := DefaultConfig().Merge(c)
	if err := m.Validate(); err != nil || m.Client.NodePool != "gpu" {
		t.Fatalf("node_pool %q: %v", m.Client.NodePool, err)
	}
	for body, want := range map[string]string{
		`node_pool = "all"`:     `c.hcl:5:3: client.node_pool: a node can not be in the "all" node pool`,
		`node_pool = "bad/one"`: `c.hcl:5:3: client.node_pool: invalid node pool name "bad/one"`,
		`node_pol = "gpu"`:      `node_pool`, // "Did you mean"
	} {
		c, err := loadString(t, head+body+"\n}\n")
		if err == nil {
			err = DefaultConfig().Merge(c).Validate()
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error = %v, want %q", body, err, want)
		}
	}
}
