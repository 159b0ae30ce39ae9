package agent

import (
	"mime"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/nomadish/nomadish/structs"
)

// originPolicy decides which browser origins may change state through the
// API (cross-site request forgery protection). A request without an Origin
// header is not from a browser page on another site (browsers send Origin
// with every cross-origin POST, PUT and DELETE and WebSocket handshake) and
// is allowed: the CLI, the official Go client and curl send none. Built
// once at start; read-only afterwards, so safe for concurrent use.
type originPolicy struct {
	// any is set by "*" in http_api_allowed_origins: no check at all.
	any bool
	// allowed are the configured origins, normalized ("scheme://host:port").
	allowed map[string]bool
	// port is the port the API listens on; an own origin must use it.
	port string
	// hosts are the names and IPs that are this agent: the bound and
	// advertised HTTP hosts, its hostname and node name, and localhost
	// when it listens on loopback or on every address.
	hosts map[string]bool
	// anyLocalIP makes every IP of a local interface an own host (the
	// API is bound to 0.0.0.0 or ::).
	anyLocalIP bool
}

// newOriginPolicy builds the policy from the bound API address, the
// advertised one ("" when none), names this agent goes by (hostname, node
// name) and the http_api_allowed_origins list (already validated by
// agent/config).
func newOriginPolicy(bound, advertise string, names, allowed []string) *originPolicy {
	p := &originPolicy{allowed: map[string]bool{}, hosts: map[string]bool{}}
	for _, o := range allowed {
		if o == "*" {
			p.any = true
		} else if n, ok := normalizeOrigin(o); ok {
			p.allowed[n] = true
		}
	}
	host, port, _ := net.SplitHostPort(bound)
	p.port = port
	p.addHost(host)
	if ip := net.ParseIP(host); ip != nil && (ip.IsLoopback() || ip.IsUnspecified()) {
		p.addHost("localhost")
		p.anyLocalIP = ip.IsUnspecified()
	}
	if h, _, err := net.SplitHostPort(advertise); err == nil {
		p.addHost(h)
	}
	for _, n := range names {
		p.addHost(n)
	}
	return p
}

func (p *originPolicy) addHost(h string) {
	if h = strings.ToLower(strings.Trim(h, "[]")); h != "" {
		if ip := net.ParseIP(h); ip != nil {
			h = ip.String()
		}
		p.hosts[h] = true
	}
}

// check returns nil when r may proceed, else a 403 coded error naming the
// refused origin. Safe methods (GET, HEAD, OPTIONS) pass, except WebSocket
// handshakes (GET .../exec runs a command), which are checked like writes.
func (p *originPolicy) check(r *http.Request) error {
	if p == nil || p.any {
		return nil
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		if !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
			return nil
		}
	}
	origin, sent := r.Header["Origin"]
	if !sent || len(origin) == 0 {
		return nil
	}
	if p.own(origin[0]) {
		return nil
	}
	return structs.NewCodedError(http.StatusForbidden,
		"cross-origin request refused: Origin %q is not this agent's address; list it in the agent's http_api_allowed_origins to allow it", origin[0])
}

// own reports whether origin (the Origin header's value) is allowed.
func (p *originPolicy) own(origin string) bool {
	n, ok := normalizeOrigin(origin)
	if !ok {
		return false // "null", garbage
	}
	if p.allowed[n] {
		return true
	}
	u, _ := url.Parse(n)
	if u.Port() != p.port {
		return false
	}
	host := strings.ToLower(u.Hostname())
	ip := net.ParseIP(host)
	if ip != nil {
		host = ip.String()
	}
	if p.hosts[host] {
		return true
	}
	return ip != nil && p.anyLocalIP && isLocalIP(ip)
}

// normalizeOrigin turns "HTTP://Example.com" into "http://example.com:80":
// an http or https scheme and a host, nothing else (no path, user or
// query). It reports false for anything that is not such an origin.
func normalizeOrigin(o string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(o))
	if err != nil || u.Host == "" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return "", false
	}
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	switch {
	case scheme == "http" && port == "":
		port = "80"
	case scheme == "https" && port == "":
		port = "443"
	case scheme != "http" && scheme != "https":
		return "", false
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port), true
}

// isLocalIP reports whether ip is an address of one of this machine's
// interfaces.
func isLocalIP(ip net.IP) bool {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
			return true
		}
	}
	return false
}

// checkJSONBody refuses a JSON endpoint's body sent with a content type
// that is not JSON (415): a browser may send text/plain, form and
// multipart bodies to another site without asking it first, JSON it may
// not. Accepted: no Content-Type (the official Go client and the CLI's
// older requests send none), application/json, any application/*+json,
// and application/x-www-form-urlencoded from a non-browser client (what
// curl -d sends; a browser request carries Origin or Sec-Fetch-Site).
func checkJSONBody(r *http.Request) error {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	switch {
	case err != nil:
	case mt == "application/json" || (strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json")):
		return nil
	case mt == "application/x-www-form-urlencoded" && r.Header.Get("Origin") == "" && r.Header.Get("Sec-Fetch-Site") == "":
		return nil
	}
	return structs.NewCodedError(http.StatusUnsupportedMediaType,
		"unsupported Content-Type %q: this endpoint takes a JSON body (application/json)", ct)
}

// originPolicy builds the agent's policy from its listener, advertise
// address, hostname and node name, and http_api_allowed_origins.
func (a *Agent) originPolicy() *originPolicy {
	names := []string{a.cfg.Name}
	if h, err := os.Hostname(); err == nil {
		names = append(names, h)
	}
	return newOriginPolicy(a.HTTPAddr(), a.cfg.AdvertiseAddr("http"), names, a.cfg.HTTPAPIAllowedOrigins)
}
