package qemu

import (
	"testing"

	"github.com/nomadish/nomadish/drivers/schema/schematest"
)

// TestSchemaAgreesWithParser: every key parseTaskConfig accepts is in
// Schema, and every key of Schema is read by it.
func TestSchemaAgreesWithParser(t *testing.T) {
	schematest.Agree(t, Schema, func(c map[string]any) (any, error) { return parseTaskConfig(c, true) }, schematest.Options{
		Samples: map[string]any{"accelerator": "tcg", "port_map": map[string]any{"ssh": int64(22)}},
		Base:    map[string]map[string]any{"": {"kernel": "vmlinuz"}},
	})
}
