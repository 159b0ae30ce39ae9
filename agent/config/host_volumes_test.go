package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHostVolumeConfig(t *testing.T) {
	dir := t.TempDir()
	src := "client {\n  enabled = true\n  host_volume \"certs\" {\n    path      = \"" + dir + "\"\n    read_only = true\n  }\n" +
		"  host_volume \"data\" {\n    path = \"" + dir + "\"\n  }\n}\n"
	c, err := loadSource([]byte(src), "c.hcl")
	if err != nil {
		t.Fatal(err)
	}
	got := DevConfig().Merge(c)
	if err := got.Validate(); err != nil {
		t.Fatalf("validate: %v", err)
	}
	hv := got.Client.HostVolumes
	if len(hv) != 2 || hv[0].Name != "certs" || hv[0].Path != dir || !hv[0].ReadOnly || hv[1].Name != "data" || hv[1].ReadOnly {
		t.Fatalf("host volumes = %+v", hv)
	}
	// A later file's volume of the same name replaces the earlier one.
	over, err := loadSource([]byte("client {\n  host_volume \"data\" {\n    path = \"/\"\n    read_only = true\n  }\n}\n"), "d.hcl")
	if err != nil {
		t.Fatal(err)
	}
	merged := got.Merge(over).Client.HostVolumes
	if len(merged) != 2 || merged[1].Path != "/" || !merged[1].ReadOnly {
		t.Fatalf("merged = %+v", merged)
	}
	if len(got.Client.HostVolumes) != 2 || got.Client.HostVolumes[1].Path != dir {
		t.Fatalf("merge modified its input: %+v", got.Client.HostVolumes)
	}
}

func TestHostVolumeConfigErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, src, want string }{
		{"missing dir", "client {\n  host_volume \"x\" {\n    path = \"" + dir + "/nope\"\n  }\n}\n",
			`c.hcl:3:12: client.host_volume["x"].path: stat ` + dir + `/nope: no such file or directory`},
		{"a file", "client {\n  host_volume \"x\" {\n    path = \"" + file + "\"\n  }\n}\n",
			`c.hcl:3:12: client.host_volume["x"].path: ` + file + ` is not a directory`},
		{"relative", "client {\n  host_volume \"x\" {\n    path = \"data\"\n  }\n}\n",
			`c.hcl:3:12: client.host_volume["x"].path: must be an absolute path, got "data"`},
		{"no path", "client {\n  host_volume \"x\" {\n  }\n}\n",
			`c.hcl:2:3: client.host_volume["x"].path: must be an absolute path, got ""`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := loadSource([]byte(tc.src), "c.hcl")
			if err != nil {
				t.Fatal(err)
			}
			err = DefaultConfig().Merge(c).Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v\nwant %s", err, tc.want)
			}
		})
	}
	for _, tc := range []struct{ name, src, want string }{
		{"no label", "client {\n  host_volume {\n    path = \"/\"\n  }\n}\n", `c.hcl:2:3: Wrong number of labels`},
		{"typo", "client {\n  host_volume \"x\" {\n    pth = \"/\"\n  }\n}\n",
			`c.hcl:3:5: Unsupported argument; An argument named "pth" is not expected in a host_volume block. Did you mean "path"?`},
		{"duplicate", "client {\n  host_volume \"x\" {\n    path = \"/\"\n  }\n  host_volume \"x\" {\n    path = \"/\"\n  }\n}\n",
			`c.hcl:5:15: Duplicate host_volume; A host_volume named "x" is already defined at c.hcl:3:12.`},
		{"bad type", "client {\n  host_volume \"x\" {\n    path = \"/\"\n    read_only = \"maybe\"\n  }\n}\n",
			`c.hcl:4:17: Incorrect value type; client.host_volume.read_only: a bool is required.`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := loadSource([]byte(tc.src), "c.hcl")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v\nwant %s", err, tc.want)
			}
		})
	}
}
