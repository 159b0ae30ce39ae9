package cli

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strings"

	"github.com/nomadish/nomadish/internal/tlsutil"
)

// Default file names of `tls ca create`, as Nomad's.
const (
	caCertFile = "nomad-agent-ca.pem"
	caKeyFile  = "nomad-agent-ca-key.pem"
)

func tlsCACreateCommand(m *Meta, args []string) int {
	f := m.newLocalFlags("tls ca create", "[options]")
	days := f.Int("days", tlsutil.DefaultCADays, "days the CA is valid")
	cn := f.String("common-name", "", "common name of the CA (default \"Nomad Agent CA\")")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		return m.wrongArgs(f, "no arguments")
	}
	ca, err := tlsutil.GenerateCA(*cn, *days)
	if err != nil {
		return m.errorf("creating the CA: %v", err)
	}
	if err := writeNew(caCertFile, ca.Cert, 0o644); err != nil {
		return m.errorf("saving: %v", err)
	}
	if err := writeNew(caKeyFile, ca.Key, 0o600); err != nil {
		return m.errorf("saving: %v", err)
	}
	fmt.Fprintf(m.Out, "==> CA certificate saved to: %s\n==> CA certificate key saved to: %s\n", caCertFile, caKeyFile)
	return exitOK
}

func tlsCertCreateCommand(m *Meta, args []string) int {
	f := m.newLocalFlags("tls cert create", "-server|-client|-cli [options]")
	server := f.Bool("server", false, "a server certificate (server.<region>.nomad)")
	client := f.Bool("client", false, "a client certificate (client.<region>.nomad)")
	cli := f.Bool("cli", false, "a certificate for the CLI (cli.<region>.nomad)")
	region := f.String("region", "global", "region the certificate is for")
	caPath := f.String("ca", caCertFile, "PEM CA certificate")
	keyPath := f.String("key", caKeyFile, "PEM CA key")
	days := f.Int("days", tlsutil.DefaultCertDays, "days the certificate is valid")
	var dns, ips stringList
	f.Var(&dns, "additional-dnsname", "another DNS name (repeatable)")
	f.Var(&ips, "additional-ipaddress", "another IP address (repeatable)")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		return m.wrongArgs(f, "no arguments")
	}
	role, err := certRole(*server, *client, *cli)
	if err != nil {
		return m.errorf("choosing the certificate's role: %v", err)
	}
	req := tlsutil.CertRequest{Role: role, Region: *region, Days: *days, DNS: dns}
	for _, s := range ips {
		ip := net.ParseIP(s)
		if ip == nil {
			return m.errorf("-additional-ipaddress: %q is not an IP address", s)
		}
		req.IPs = append(req.IPs, ip)
	}
	if req.CA, err = readCA(*caPath, *keyPath); err != nil {
		return m.errorf("reading the CA: %v", err)
	}
	pair, err := tlsutil.GenerateCert(req)
	if err != nil {
		return m.errorf("creating the certificate: %v", err)
	}
	base := fmt.Sprintf("%s-%s-nomad", *region, role)
	if err := writeNew(base+".pem", pair.Cert, 0o644); err != nil {
		return m.errorf("saving: %v", err)
	}
	if err := writeNew(base+"-key.pem", pair.Key, 0o600); err != nil {
		return m.errorf("saving: %v", err)
	}
	names, addrs := req.Names()
	fmt.Fprintf(m.Out, "==> Using CA file %s and CA key %s\n==> Certificate for %s (IPs %v)\n==> Certificate saved to: %s.pem\n==> Certificate key saved to: %s-key.pem\n",
		*caPath, *keyPath, strings.Join(names, ", "), addrs, base, base)
	return exitOK
}

// errOneRole: tls cert create needs exactly one of -server, -client, -cli.
var errOneRole = errors.New("give exactly one of -server, -client or -cli")

func certRole(server, client, cli bool) (tlsutil.Role, error) {
	n := 0
	role := tlsutil.RoleServer
	for r, on := range map[tlsutil.Role]bool{tlsutil.RoleServer: server, tlsutil.RoleClient: client, tlsutil.RoleCLI: cli} {
		if on {
			n, role = n+1, r
		}
	}
	if n != 1 {
		return "", errOneRole
	}
	return role, nil
}

func readCA(certPath, keyPath string) (*tlsutil.PEMPair, error) {
	c, err := os.ReadFile(certPath)
	if err != nil {
		return nil, err
	}
	k, err := os.ReadFile(keyPath)
	if err != nil {
		return nil, err
	}
	return &tlsutil.PEMPair{Cert: c, Key: k}, nil
}

// writeNew writes a file that must not exist yet (certificates are never
// overwritten silently).
func writeNew(path string, data []byte, perm os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Close()
}
