package execdriver

import (
	"testing"

	"github.com/nomadish/nomadish/drivers/schema/schematest"
)

// TestSchemaAgreesWithParser: every key parseTaskConfig accepts is in
// Schema, and every key of Schema is read by it.
func TestSchemaAgreesWithParser(t *testing.T) {
	schematest.Agree(t, Schema, func(c map[string]any) (any, error) {
		command, args, err := parseTaskConfig(c)
		return [2]any{command, args}, err
	}, schematest.Options{})
}
