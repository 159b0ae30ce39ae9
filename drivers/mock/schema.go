package mock

import "github.com/nomadish/nomadish/drivers/schema"

// Schema is the mock_driver task config (see the package doc), as
// parseConfig reads it (and checks a config it accepted against).
// TestSchemaAgreesWithParser keeps the two equal; jobspec and the server
// check jobs against it at submission.
var Schema = &schema.Schema{Fields: []schema.Field{
	{Name: "run_for", Kind: schema.Duration},
	{Name: "exit_code", Kind: schema.Number},
	{Name: "stdout_string", Kind: schema.String},
	{Name: "stderr_string", Kind: schema.String},
	{Name: "kill_after", Kind: schema.Duration},
	{Name: "start_error", Kind: schema.String},
}}
