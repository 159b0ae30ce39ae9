package acl

import (
	"testing"

	"github.com/nomadish/nomadish/internal/depstest"
)

// TestDepsACL keeps the policy model pure: HCL to parse, nothing of the
// server, the agent or the network.
func TestDepsACL(t *testing.T) {
	depstest.OnlyImports(t, ".", "github.com/hashicorp/hcl/v2", "github.com/hashicorp/hcl/v2/hclsyntax",
		"github.com/zclconf/go-cty/cty", "github.com/nomadish/nomadish/internal/hclutil",
		"github.com/nomadish/nomadish/internal/suggest")
}
