package mock

import (
	"testing"

	"github.com/nomadish/nomadish/drivers/schema/schematest"
)

// TestSchemaAgreesWithParser: every key parseConfig accepts is in Schema,
// and every key of Schema is read by it.
func TestSchemaAgreesWithParser(t *testing.T) {
	schematest.Agree(t, Schema, func(c map[string]any) (any, error) { return parseConfig(c) }, schematest.Options{})
}
