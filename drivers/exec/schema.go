package exec

import (
	"github.com/nomadish/nomadish/drivers/internal/execdriver"
	"github.com/nomadish/nomadish/drivers/schema"
)

// Schema is the task config (command, args), shared with the other
// process driver (drivers/internal/execdriver/schema.go).
var Schema *schema.Schema = execdriver.Schema
