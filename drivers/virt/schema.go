package virt

import "github.com/nomadish/nomadish/drivers/schema"

// Schema is the virt task config. parseTaskConfig (config.go) checks a
// config against it first, then decodes it; TestSchemaAgreesWithParser
// keeps the two equal. jobspec and the server check jobs against it.
var Schema = &schema.Schema{
	Fields: []schema.Field{
		{Name: "image", Kind: schema.String},
		{Name: "use_thin_copy", Kind: schema.Bool},
		{Name: "primary_disk_size", Kind: schema.Number}, // MiB
		{Name: "accelerator", Kind: schema.String},
		{Name: "os", Kind: schema.Block, Block: &schema.Schema{Fields: []schema.Field{
			{Name: "arch", Kind: schema.String},
			{Name: "machine", Kind: schema.String},
		}}},
		{Name: "kernel", Kind: schema.String},
		{Name: "initrd", Kind: schema.String},
		{Name: "cmdline", Kind: schema.String},
		{Name: "cloud_init", Kind: schema.Block, Block: &schema.Schema{Fields: []schema.Field{
			{Name: "user_data", Kind: schema.String},
			{Name: "meta_data", Kind: schema.String},
			{Name: "network_config", Kind: schema.String},
		}}},
		{Name: "user_data", Kind: schema.String},
		{Name: "default_user_authorized_ssh_key", Kind: schema.String},
		{Name: "default_user_password", Kind: schema.String},
		{Name: "cmds", Kind: schema.List, Elem: schema.String},
		{Name: "hostname", Kind: schema.String},
		{Name: "network_interface", Kind: schema.Blocks, Block: &schema.Schema{Fields: []schema.Field{
			{Name: "bridge", Kind: schema.Block, Block: &schema.Schema{Fields: []schema.Field{
				{Name: "name", Kind: schema.String, Required: true},
				{Name: "ports", Kind: schema.List, Elem: schema.String},
			}}},
		}}},
		{Name: "port_map", Kind: schema.Map, Elem: schema.Scalar}, // user-mode: label -> guest port
		{Name: "graceful_shutdown_timeout", Kind: schema.Duration},
	},
	AnyOf: [][]string{{"image", "kernel"}},
}
