package execdriver

import "github.com/nomadish/nomadish/drivers/schema"

// Schema is the task config of exec and raw_exec: command and args, as
// parseTaskConfig reads them. TestSchemaAgreesWithParser keeps the two
// equal; jobspec and the server check jobs against it at submission.
// parseTaskConfig itself ignores other keys at start, as it always has (the
// plugin wire carries any config: TestPluginRawExecRoundTrip).
var Schema = &schema.Schema{Fields: []schema.Field{
	{Name: "command", Kind: schema.String, Required: true},
	{Name: "args", Kind: schema.List, Elem: schema.Scalar},
}}
