package docker

import "github.com/nomadish/nomadish/drivers/schema"

// Schema is the docker task config: every key parseTaskConfig (config.go,
// security.go, mounts.go) reads, with Nomad's names. parseTaskConfig checks
// a config it accepted against it, and TestSchemaAgreesWithParser keeps the
// two equal; jobspec and the server check jobs against it at submission.
var Schema = &schema.Schema{Fields: []schema.Field{
	{Name: "image", Kind: schema.String, Required: true},
	{Name: "command", Kind: schema.String},
	{Name: "args", Kind: schema.List, Elem: schema.String},
	{Name: "entrypoint", Kind: schema.List, Elem: schema.String},
	{Name: "labels", Kind: schema.Map, Elem: schema.Scalar},
	{Name: "volumes", Kind: schema.List, Elem: schema.String},
	{Name: "mount", Kind: schema.Blocks, Block: mountSchema},
	{Name: "mounts", Kind: schema.Blocks, Block: mountSchema}, // Nomad's older list form
	{Name: "network_mode", Kind: schema.String},
	{Name: "ports", Kind: schema.List, Elem: schema.String},
	{Name: "cpu_hard_limit", Kind: schema.Bool},
	{Name: "force_pull", Kind: schema.Bool},
	{Name: "auth_soft_fail", Kind: schema.Bool},
	{Name: "auth", Kind: schema.Block, Block: &schema.Schema{Fields: []schema.Field{
		{Name: "username", Kind: schema.Scalar},
		{Name: "password", Kind: schema.Scalar},
		{Name: "server_address", Kind: schema.Scalar},
	}}},
	// security.go
	{Name: "privileged", Kind: schema.Bool},
	{Name: "cap_add", Kind: schema.List, Elem: schema.String},
	{Name: "cap_drop", Kind: schema.List, Elem: schema.String},
	{Name: "devices", Kind: schema.Blocks, Block: &schema.Schema{Fields: []schema.Field{
		{Name: "host_path", Kind: schema.Scalar, Required: true},
		{Name: "container_path", Kind: schema.Scalar},
		{Name: "cgroup_permissions", Kind: schema.Scalar},
	}}},
	{Name: "security_opt", Kind: schema.List, Elem: schema.String},
	{Name: "pid_mode", Kind: schema.String},
	{Name: "ipc_mode", Kind: schema.String},
	{Name: "uts_mode", Kind: schema.String},
	{Name: "userns_mode", Kind: schema.String},
	{Name: "sysctl", Kind: schema.Map, Elem: schema.Scalar},
	{Name: "runtime", Kind: schema.String},
}}

// mountSchema is a mount block (mounts.go parseMount).
var mountSchema = &schema.Schema{Fields: []schema.Field{
	{Name: "type", Kind: schema.String},
	{Name: "source", Kind: schema.String},
	{Name: "target", Kind: schema.String, Required: true},
	{Name: "readonly", Kind: schema.Bool},
	{Name: "tmpfs_options", Kind: schema.Block, Block: &schema.Schema{Fields: []schema.Field{
		{Name: "size", Kind: schema.Number},
	}}},
	{Name: "volume_options", Kind: schema.Block, Block: &schema.Schema{Fields: []schema.Field{
		{Name: "no_copy", Kind: schema.Bool},
		{Name: "labels", Kind: schema.Map, Elem: schema.Scalar},
		{Name: "driver_config", Kind: schema.Block, Block: &schema.Schema{Fields: []schema.Field{
			{Name: "name", Kind: schema.String},
			{Name: "options", Kind: schema.Map, Elem: schema.Scalar},
		}}},
	}}},
	{Name: "bind_options", Kind: schema.Any}, // accepted for compatibility with Nomad, not applied
}}
