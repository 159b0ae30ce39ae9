// Package cli is nomadish's command line: `agent` starts an agent in this
// process, `plugin` (hidden) serves a driver plugin, and every other command
// is a thin client of the agent's HTTP API (what the CLI does, curl can do).
// Run dispatches os.Args to one command per file family (job_*.go, alloc.go,
// node.go, eval.go, ...); apiclient.go is the HTTP client and format.go the
// tables and relative times.
package cli
