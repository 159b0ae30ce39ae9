package docker

import (
	"testing"

	"github.com/nomadish/nomadish/drivers/schema/schematest"
)

// TestSchemaAgreesWithParser: every key parseTaskConfig accepts is in
// Schema, and every key of Schema (nested ones too) is read by it.
func TestSchemaAgreesWithParser(t *testing.T) {
	schematest.Agree(t, Schema, func(c map[string]any) (any, error) { return parseTaskConfig(c) }, schematest.Options{
		Samples: map[string]any{"mount.type": "tmpfs", "mounts.type": "tmpfs"},
		Base:    map[string]map[string]any{"mount": {"source": "/src"}, "mounts": {"source": "/src"}},
	})
}
