// Package tlsutil builds the *tls.Config of an agent's RPC (servers and
// clients, mutual TLS) and HTTP listeners from the agent's tls block, and
// generates the CA and agent certificates of `nomadish tls ca|cert create`.
//
// Role names follow Nomad: a server's certificate is valid for
// "server.<region>.nomad", a client's for "client.<region>.nomad"; with
// verify_server_hostname the RPC listener accepts only peers holding one of
// the two for its own region, and dialers check the server's name.
package tlsutil
