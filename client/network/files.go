package network

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/nomadish/nomadish/structs"
)

// HostsFile returns the /etc/hosts of a group with a hostname: localhost
// and the hostname on the allocation's address (127.0.1.1 without one).
// Pure.
func HostsFile(hostname, addr string) []byte {
	if addr == "" {
		addr = "127.0.1.1"
	}
	var b strings.Builder
	b.WriteString("# written by nomadish for the allocation's network namespace\n")
	b.WriteString("127.0.0.1\tlocalhost\n")
	b.WriteString("::1\tlocalhost ip6-localhost ip6-loopback\n")
	b.WriteString("fe00::0\tip6-localnet\nff00::0\tip6-mcastprefix\nff02::1\tip6-allnodes\nff02::2\tip6-allrouters\n")
	fmt.Fprintf(&b, "%s\t%s\n", addr, hostname)
	return []byte(b.String())
}

// ResolvConf returns the resolv.conf of a dns block. Pure.
func ResolvConf(dns *structs.DNSConfig) []byte {
	var b strings.Builder
	b.WriteString("# written by nomadish from the group's dns block\n")
	for _, s := range dns.Servers {
		fmt.Fprintf(&b, "nameserver %s\n", s)
	}
	if len(dns.Searches) > 0 {
		fmt.Fprintf(&b, "search %s\n", strings.Join(dns.Searches, " "))
	}
	if len(dns.Options) > 0 {
		fmt.Fprintf(&b, "options %s\n", strings.Join(dns.Options, " "))
	}
	return []byte(b.String())
}

// WriteFiles writes the group's hosts (when it has a hostname) and
// resolv.conf (when it has a dns block) into dir and records their paths
// in rec.
func WriteFiles(dir string, rec *Record, hostname string, dns *structs.DNSConfig) error {
	if hostname == "" && dns == nil {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	if hostname != "" {
		addr := ""
		if rec.Status != nil {
			addr = rec.Status.Address
		}
		p := filepath.Join(dir, "hosts")
		if err := os.WriteFile(p, HostsFile(hostname, addr), 0o644); err != nil {
			return fmt.Errorf("writing hosts file: %w", err)
		}
		rec.HostsPath = p
	}
	if dns != nil {
		p := filepath.Join(dir, "resolv.conf")
		if err := os.WriteFile(p, ResolvConf(dns), 0o644); err != nil {
			return fmt.Errorf("writing resolv.conf: %w", err)
		}
		rec.ResolvConfPath = p
		if rec.Status != nil {
			rec.Status.DNS = dns
		}
	}
	return nil
}
