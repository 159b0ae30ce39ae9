// Package agent runs a nomadish agent: it wires the server (when enabled),
// the client (when enabled) and the HTTP API that speaks Nomad's v1 API
// (paths and JSON shapes of github.com/hashicorp/nomad/api).
//
// agent.go starts and stops the parts; http.go holds the one request wrapper
// (JSON encoding, coded errors to statuses, blocking-query parameters and
// index headers); http_<resource>.go hold one resource's handlers each.
// Client endpoints for allocations of other nodes are reverse-proxied to
// their clients (http_client_forward.go, over node tunnels: agent_tunnel.go).
package agent
