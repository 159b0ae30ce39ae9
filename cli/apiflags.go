package cli

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/nomadish/nomadish/internal/tlsutil"
)

// apiOption is one of the options every command talking to an agent's HTTP
// API takes, Nomad's "general options": a flag, else the environment
// variable NOMADISH_<env>, else NOMAD_<env>. NOMADISH_* wins over NOMAD_* so
// that a nomadish-only setting can sit beside a Nomad one in the same shell.
type apiOption struct {
	flag, env, usage string
}

// apiOptions in the order the help prints them.
var apiOptions = []apiOption{
	{"address", "ADDR", "address of the agent's HTTP API (default " + defaultAddress + ")"},
	{"region", "REGION", "region the request is for (?region=)"},
	{"namespace", "NAMESPACE", "namespace the request is for (?namespace=)"},
	{"token", "TOKEN", "ACL token, sent as the X-Nomad-Token header"},
	{"ca-cert", "CACERT", "PEM CA certificate verifying the agent's HTTPS certificate"},
	{"client-cert", "CLIENT_CERT", "PEM client certificate for an agent requiring one"},
	{"client-key", "CLIENT_KEY", "PEM key of -client-cert"},
}

// isAPIFlag reports whether a (a leading "-region=x" or "-region") is one of
// the apiOptions, which may also come before the command name.
func isAPIFlag(a string) bool {
	name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
	if !strings.HasPrefix(a, "-") {
		return false
	}
	for _, o := range apiOptions {
		if o.flag == name {
			return true
		}
	}
	return false
}

// registerAPIFlags adds the apiOptions to f.
func (f *flags) registerAPIFlags() {
	f.api = map[string]*string{}
	for _, o := range apiOptions {
		f.api[o.flag] = f.String(o.flag, "", o.usage+" (env NOMAD_"+o.env+")")
	}
}

// apiOption returns the value of the option named by its flag: the flag,
// else NOMADISH_<env>, else NOMAD_<env>, else "".
func (m *Meta) apiOption(f *flags, name string) string {
	if v := f.api[name]; v != nil && *v != "" {
		return *v
	}
	for _, o := range apiOptions {
		if o.flag == name {
			if v := m.Getenv("NOMADISH_" + o.env); v != "" {
				return v
			}
			return m.Getenv("NOMAD_" + o.env)
		}
	}
	return ""
}

// client returns the API client the apiOptions describe.
func (m *Meta) client(f *flags) *apiClient {
	c := newAPIClient(m.apiOption(f, "address"))
	c.token = m.apiOption(f, "token")
	c.region = m.apiOption(f, "region")
	c.namespace = m.apiOption(f, "namespace")
	ca, cert, key := m.apiOption(f, "ca-cert"), m.apiOption(f, "client-cert"), m.apiOption(f, "client-key")
	if ca != "" || cert != "" || key != "" {
		c.hc.Transport.(*http.Transport).TLSClientConfig, c.err = tlsutil.HTTPClient(ca, cert, key)
	}
	return c
}

// printOptions prints the command's own options, then (for API commands)
// the apiOptions under their own heading.
func printOptions(w io.Writer, f *flags) {
	own := flag.NewFlagSet(f.Name(), flag.ContinueOnError)
	api := flag.NewFlagSet(f.Name(), flag.ContinueOnError)
	f.VisitAll(func(fl *flag.Flag) {
		dst := own
		if f.api[fl.Name] != nil {
			dst = api
		}
		dst.Var(fl.Value, fl.Name, fl.Usage)
		dst.Lookup(fl.Name).DefValue = fl.DefValue
	})
	for _, s := range []struct {
		title string
		set   *flag.FlagSet
	}{{"Options", own}, {"API options (flag, else env NOMADISH_*, else NOMAD_*)", api}} {
		n := 0
		s.set.VisitAll(func(*flag.Flag) { n++ })
		if n == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s:\n", s.title)
		s.set.SetOutput(w)
		s.set.PrintDefaults()
	}
}
