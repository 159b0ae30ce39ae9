package execdriver

import "github.com/nomadish/nomadish/drivers/schema"

// Schema is the task config of exec and raw_exec: command and args, as
// parseTaskConfig reads them (and checks a config it accepted against).
// TestSchemaAgreesWithParser keeps the two equal; jobspec and the server
// check jobs against it at submission.
var Schema = &schema.Schema{Fields: []schema.Field{
	{Name: "command", Kind: schema.String, Required: true},
	{Name: "args", Kind: schema.List, Elem: schema.Scalar},
}}
