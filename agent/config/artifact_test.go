package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func writeArtifact(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "a.hcl")
	src := "data_dir = \"/d\"\nclient {\n  enabled = true\n  servers = [\"s:4647\"]\n  artifact {\n" + body + "  }\n}\n"
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// The artifact block: Nomad's defaults, explicit values, and bad values
// named with their place.
func TestArtifactBlock(t *testing.T) {
	def, err := DefaultConfig().Client.Artifact.Limits()
	if err != nil {
		t.Fatal(err)
	}
	want := ArtifactLimits{HTTPReadTimeout: 30 * time.Minute, GCSTimeout: 30 * time.Minute, GitTimeout: 30 * time.Minute,
		HTTPMaxBytes: 100e9, DecompressionSizeLimit: 100e9, DecompressionFileCountLimit: 4096}
	if def != want {
		t.Fatalf("defaults %+v, want %+v", def, want)
	}
	file, err := LoadFile(writeArtifact(t, `    http_read_timeout = "5m"
    http_max_size = "1GiB"
    gcs_timeout = "1m"
    git_timeout = "2m"
    hg_timeout = "3m"
    s3_timeout = "4m"
    decompression_size_limit = "10MB"
    decompression_file_count_limit = 0
    disable_filesystem_isolation = true
    set_environment_variables = "HOME"
`))
	if err != nil {
		t.Fatal(err)
	}
	c := DefaultConfig().Merge(file)
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	got, err := c.Client.Artifact.Limits()
	want = ArtifactLimits{HTTPReadTimeout: 5 * time.Minute, GCSTimeout: time.Minute, GitTimeout: 2 * time.Minute,
		HTTPMaxBytes: 1 << 30, DecompressionSizeLimit: 10e6, DecompressionFileCountLimit: 0, DisableFilesystemIsolation: true}
	if err != nil || got != want {
		t.Fatalf("limits %+v (%v), want %+v", got, err, want)
	}

	bad := writeArtifact(t, "    http_read_timeout = \"soon\"\n    http_max_size = \"lots\"\n    decompression_file_count_limit = -1\n")
	if file, err = LoadFile(bad); err != nil {
		t.Fatal(err)
	}
	err = DefaultConfig().Merge(file).Validate()
	for _, want := range []string{
		bad + `:6:5: client.artifact.http_read_timeout: "soon" is not a duration`,
		bad + `:7:5: client.artifact.http_max_size: "lots" is not a size`,
		bad + `:8:5: client.artifact.decompression_file_count_limit: must be a whole number >= 0, got "-1"`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("error:\n%v\nwant a line:\n%s", err, want)
		}
	}
	if _, err := LoadFile(writeArtifact(t, "    http_max_sise = \"1GB\"\n")); err == nil || !strings.Contains(err.Error(), `Did you mean "http_max_size"`) {
		t.Fatalf("unknown key: %v", err)
	}
}

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{"100GB": 100e9, "512MiB": 512 << 20, "1.5 kb": 1500, "4096": 4096, "2k": 2000, "1TiB": 1 << 40} {
		if got, err := ParseBytes(in); err != nil || got != want {
			t.Errorf("%q = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "GB", "1 parsec", "-1GB", "1e30PB"} {
		if _, err := ParseBytes(in); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}
