package config

import (
	"net/url"
	"strings"
)

// validateOrigins checks http_api_allowed_origins: each entry is "*" (no
// cross-origin check at all) or a browser origin, an http or https URL with
// a host and an optional port and nothing else, as a browser sends it in
// the Origin header ("https://ui.example.com", "http://10.0.0.5:8080").
func (c *Config) validateOrigins(bad func(key, format string, args ...any)) {
	for _, o := range c.HTTPAPIAllowedOrigins {
		if o == "*" {
			continue
		}
		u, err := url.Parse(o)
		scheme := ""
		if err == nil {
			scheme = strings.ToLower(u.Scheme)
		}
		if err != nil || (scheme != "http" && scheme != "https") || u.Host == "" || u.User != nil ||
			(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
			bad("http_api_allowed_origins", "%q is not an origin: use \"*\" or scheme://host[:port] with an http or https scheme and no path", o)
		}
	}
}
