// Package acl is Nomad's access control model, pure: Parse reads a policy
// written in Nomad's HCL policy language (namespace, node_pool, host_volume,
// agent, node, operator, quota and plugin rules) into a Policy, and NewACL
// compiles a set of policies into an ACL that answers "may this token do X?"
// (AllowNamespaceOperation, AllowNodeWrite, …). It holds no state and does
// no I/O: the server resolves a token's policies and hands them here.
package acl
