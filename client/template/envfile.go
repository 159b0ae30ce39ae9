package template

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseEnvFile parses an env = true template's rendering: KEY=VALUE lines;
// blank lines and lines starting with # are skipped, an "export " prefix
// is dropped, and a double-quoted value is unquoted (Go escapes), a
// single-quoted one taken literally. A line without "=" or with an
// invalid key is an error naming its line.
func ParseEnvFile(b []byte) (map[string]string, error) {
	out := map[string]string{}
	for i, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(strings.TrimSuffix(line, "\r"))
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		k, v, ok := strings.Cut(line, "=")
		k = strings.TrimSpace(k)
		if !ok || !validEnvKey(k) {
			return nil, fmt.Errorf("env template line %d: %q is not KEY=VALUE", i+1, line)
		}
		v = strings.TrimSpace(v)
		switch {
		case len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"':
			u, err := strconv.Unquote(v)
			if err != nil {
				return nil, fmt.Errorf("env template line %d: bad quoted value: %v", i+1, err)
			}
			v = u
		case len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'':
			v = v[1 : len(v)-1]
		}
		out[k] = v
	}
	return out, nil
}

func validEnvKey(k string) bool {
	if k == "" {
		return false
	}
	for i, r := range k {
		switch {
		case r == '_', r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z':
		case r >= '0' && r <= '9' && i > 0:
		case r == '.' || r == '-':
		default:
			return false
		}
	}
	return true
}
