package execdriver

import (
	"testing"

	"github.com/nomadish/nomadish/drivers/schema/schematest"
)

// TestSchemaAgreesWithParser: every key of Schema is read by
// parseTaskConfig, and it ignores any other.
func TestSchemaAgreesWithParser(t *testing.T) {
	schematest.Agree(t, Schema, func(c map[string]any) (any, error) {
		command, args, err := parseTaskConfig(c)
		return [2]any{command, args}, err
	}, schematest.Options{IgnoresUnknown: true})
}
