package tlsutil

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
)

// Sentinel errors.
var (
	// ErrMissingFile means the tls block enables TLS without one of
	// ca_file, cert_file, key_file.
	ErrMissingFile = errors.New("tlsutil: ca_file, cert_file and key_file are required when TLS is enabled")
	// ErrNoCACerts means the CA file holds no PEM certificate.
	ErrNoCACerts = errors.New("tlsutil: no CA certificate found")
	// ErrPeerName means a peer's verified certificate is not valid for
	// any name the connection accepts (another role or another region).
	ErrPeerName = errors.New("tlsutil: peer certificate not valid for the expected name")
	// ErrNoPeerCert means the peer presented no certificate.
	ErrNoPeerCert = errors.New("tlsutil: peer presented no certificate")
)

// Config is the agent's tls block (Nomad's keys).
type Config struct {
	HTTP                 bool   // http: serve the HTTP API over HTTPS
	RPC                  bool   // rpc: mutual TLS on the RPC port (RPC and raft)
	CAFile               string // ca_file: PEM CA that signed every agent
	CertFile             string // cert_file: this agent's PEM certificate
	KeyFile              string // key_file: its PEM private key
	VerifyServerHostname bool   // verify_server_hostname: check role names
	VerifyHTTPSClient    bool   // verify_https_client: HTTPS requires a client cert
}

// Enabled reports whether HTTP or RPC TLS is on.
func (c *Config) Enabled() bool { return c != nil && (c.HTTP || c.RPC) }

// Role is the kind of agent a certificate names.
type Role string

// Roles, as the first label of the certificate's name.
const (
	RoleServer Role = "server"
	RoleClient Role = "client"
	RoleCLI    Role = "cli"
)

// Name returns the DNS name of role in region: "server.global.nomad".
func (r Role) Name(region string) string { return string(r) + "." + region + ".nomad" }

// loaded is the certificate and CA pool of a Config.
type loaded struct {
	cert tls.Certificate
	pool *x509.CertPool
}

func (c *Config) load() (*loaded, error) {
	if c.CAFile == "" || c.CertFile == "" || c.KeyFile == "" {
		return nil, ErrMissingFile
	}
	cert, err := tls.LoadX509KeyPair(c.CertFile, c.KeyFile)
	if err != nil {
		return nil, fmt.Errorf("tlsutil: loading cert_file %s / key_file %s: %w", c.CertFile, c.KeyFile, err)
	}
	pool, err := LoadCAPool(c.CAFile)
	if err != nil {
		return nil, err
	}
	return &loaded{cert: cert, pool: pool}, nil
}

// LoadCAPool reads a PEM file of CA certificates.
func LoadCAPool(path string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tlsutil: reading ca_file: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%w in %s", ErrNoCACerts, path)
	}
	return pool, nil
}

// RPC holds the TLS configs of the RPC port: Incoming for the listener
// (servers), Outgoing for dialers (clients, servers dialing servers).
type RPC struct {
	Incoming *tls.Config
	Outgoing *tls.Config
}

// NewRPC builds the RPC TLS configs of an agent in region, nil when c.RPC
// is off. Both sides require and verify the peer's certificate against the
// CA (mutual TLS). With VerifyServerHostname, a dialer accepts only a server
// certificate valid for "server.<region>.nomad", and the listener accepts
// only peers valid for "server.<region>.nomad" or "client.<region>.nomad".
func NewRPC(c *Config, region string) (*RPC, error) {
	if c == nil || !c.RPC {
		return nil, nil
	}
	l, err := c.load()
	if err != nil {
		return nil, err
	}
	in := &tls.Config{
		Certificates: []tls.Certificate{l.cert},
		ClientCAs:    l.pool,
		ClientAuth:   tls.RequireAndVerifyClientCert,
		MinVersion:   tls.VersionTLS12,
	}
	out := &tls.Config{
		Certificates: []tls.Certificate{l.cert},
		RootCAs:      l.pool,
		MinVersion:   tls.VersionTLS12,
	}
	if c.VerifyServerHostname {
		in.VerifyConnection = verifyPeerNames(RoleServer.Name(region), RoleClient.Name(region))
		out.ServerName = RoleServer.Name(region)
	} else {
		// Check the chain against the CA but not the name (Nomad's
		// behaviour without verify_server_hostname).
		out.InsecureSkipVerify = true
		out.VerifyConnection = verifyChain(l.pool)
	}
	return &RPC{Incoming: in, Outgoing: out}, nil
}

// HTTPServer builds the HTTPS listener config, nil when c.HTTP is off.
// With VerifyHTTPSClient every request needs a certificate signed by the CA.
func HTTPServer(c *Config) (*tls.Config, error) {
	if c == nil || !c.HTTP {
		return nil, nil
	}
	l, err := c.load()
	if err != nil {
		return nil, err
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{l.cert}, MinVersion: tls.VersionTLS12}
	if c.VerifyHTTPSClient {
		cfg.ClientCAs = l.pool
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
	}
	return cfg, nil
}

// HTTPSelf builds the config an agent calls its own HTTPS API with (the
// client fetching a migrating allocation's data), nil when c.HTTP is off:
// it presents the agent's certificate (for verify_https_client) and
// verifies the agent's chain against the CA, not its name (the address is
// the agent's advertised one, whatever names its certificate holds).
func HTTPSelf(c *Config) (*tls.Config, error) {
	if c == nil || !c.HTTP {
		return nil, nil
	}
	l, err := c.load()
	if err != nil {
		return nil, err
	}
	return &tls.Config{Certificates: []tls.Certificate{l.cert}, RootCAs: l.pool, MinVersion: tls.VersionTLS12,
		InsecureSkipVerify: true, VerifyConnection: verifyChain(l.pool)}, nil
}

// HTTPClient builds the config of an HTTPS API client (the CLI): caFile
// (may be empty: the system roots) verifies the agent, certFile and keyFile
// (both or neither) are presented when the agent asks.
func HTTPClient(caFile, certFile, keyFile string) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if caFile != "" {
		pool, err := LoadCAPool(caFile)
		if err != nil {
			return nil, err
		}
		cfg.RootCAs = pool
	}
	if certFile != "" || keyFile != "" {
		cert, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return nil, fmt.Errorf("tlsutil: loading client cert %s / key %s: %w", certFile, keyFile, err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

// verifyPeerNames accepts a connection whose (already chain-verified) peer
// certificate is valid for one of names.
func verifyPeerNames(names ...string) func(tls.ConnectionState) error {
	return func(cs tls.ConnectionState) error {
		if len(cs.PeerCertificates) == 0 {
			return ErrNoPeerCert
		}
		leaf := cs.PeerCertificates[0]
		for _, n := range names {
			if leaf.VerifyHostname(n) == nil {
				return nil
			}
		}
		return fmt.Errorf("%w: has %v, want one of %v", ErrPeerName, leaf.DNSNames, names)
	}
}

// verifyChain checks the peer's chain against pool, ignoring names.
func verifyChain(pool *x509.CertPool) func(tls.ConnectionState) error {
	return func(cs tls.ConnectionState) error {
		if len(cs.PeerCertificates) == 0 {
			return ErrNoPeerCert
		}
		inter := x509.NewCertPool()
		for _, c := range cs.PeerCertificates[1:] {
			inter.AddCert(c)
		}
		_, err := cs.PeerCertificates[0].Verify(x509.VerifyOptions{Roots: pool, Intermediates: inter,
			KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}})
		return err
	}
}
