package config

import (
	"slices"
	"strings"
	"testing"
)

func TestAllowedOriginsLoadAndValidate(t *testing.T) {
	src := "data_dir = \"/d\"\nserver { enabled = true }\nhttp_api_allowed_origins = [\"https://ui.example.com\", \"http://10.0.0.5:8080\", \"*\"]\n"
	path := writeConfig(t, "o.hcl", src)
	file, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c := DefaultConfig().Merge(file)
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if want := []string{"https://ui.example.com", "http://10.0.0.5:8080", "*"}; !slices.Equal(c.HTTPAPIAllowedOrigins, want) {
		t.Fatalf("origins %q", c.HTTPAPIAllowedOrigins)
	}

	for _, o := range []string{"ui.example.com", "ftp://x", "https://x/path", "https://user@x", "http://", "https://x?q=1"} {
		src := "data_dir = \"/d\"\nserver { enabled = true }\nhttp_api_allowed_origins = [\"" + o + "\"]\n"
		bad := writeConfig(t, "b.hcl", src)
		if file, err = LoadFile(bad); err != nil {
			t.Fatal(err)
		}
		err = DefaultConfig().Merge(file).Validate()
		want := bad + ":3:1: http_api_allowed_origins: \"" + o + "\" is not an origin"
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Fatalf("%q: err = %v, want %q", o, err, want)
		}
	}
	wrongType := writeConfig(t, "w.hcl", "http_api_allowed_origins = 5\n")
	if _, err := LoadFile(wrongType); err == nil || !strings.Contains(err.Error(), "http_api_allowed_origins: a list of string is required") {
		t.Fatalf("err = %v", err)
	}
}
