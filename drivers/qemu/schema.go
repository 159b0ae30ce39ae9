package qemu

import "github.com/nomadish/nomadish/drivers/schema"

// Schema is the qemu task config, with Nomad's qemu names. parseTaskConfig
// (config.go) refuses keys outside it and checks a config it accepted
// against it; TestSchemaAgreesWithParser keeps the two equal. jobspec and
// the server check jobs against it at submission.
var Schema = &schema.Schema{
	Fields: []schema.Field{
		{Name: "image_path", Kind: schema.String},
		{Name: "accelerator", Kind: schema.String},
		{Name: "kernel", Kind: schema.String},
		{Name: "initrd", Kind: schema.String},
		{Name: "append", Kind: schema.String},
		{Name: "args", Kind: schema.List, Elem: schema.String},
		{Name: "port_map", Kind: schema.Map, Elem: schema.Scalar}, // label -> guest port (a number, or its text)
		{Name: "graceful_shutdown", Kind: schema.Bool},
		{Name: "drive_interface", Kind: schema.String},
	},
	AnyOf: [][]string{{"image_path", "kernel"}},
}
