package jobspec

import (
	"strings"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

func TestVolumeBlocks(t *testing.T) {
	src := `job "v" {
  group "g" {
    task "t" {
      driver = "exec"
      volume_mount {
        volume      = "certs"
        destination = "/etc/ssl/certs"
        read_only   = true
      }
    }
    volume "certs" {
      type      = "host"
      source    = "ca-certificates"
      read_only = true
    }
    ephemeral_disk {
      sticky  = true
      migrate = true
      size    = 200
    }
  }
}`
	job, err := Parse(&ParseConfig{Path: "v.hcl", Body: []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	tg := job.TaskGroups[0]
	want := structs.VolumeRequest{Name: "certs", Type: "host", Source: "ca-certificates", ReadOnly: true}
	if v := tg.Volumes["certs"]; v == nil || *v != want {
		t.Fatalf("volume = %+v, want %+v", v, want)
	}
	wantM := structs.VolumeMount{Volume: "certs", Destination: "/etc/ssl/certs", ReadOnly: true}
	if ms := tg.Tasks[0].VolumeMounts; len(ms) != 1 || *ms[0] != wantM {
		t.Fatalf("mounts = %s, want %+v", fmtAny(ms), wantM)
	}
	if d := tg.EphemeralDisk; !d.Sticky || !d.Migrate || d.SizeMB != 200 {
		t.Fatalf("ephemeral_disk = %+v", d)
	}
	job.Canonicalize()
	if err := job.Validate(); err != nil {
		t.Fatalf("validate: %v", err)
	}
	if m := tg.Tasks[0].VolumeMounts[0]; m.PropagationMode != structs.VolumeMountPropagationPrivate {
		t.Fatalf("propagation mode = %q, want private by default", m.PropagationMode)
	}
}

func TestVolumeErrors(t *testing.T) {
	group := func(body string) string {
		return "job \"v\" {\n  group \"g\" {\n" + body + "\n  }\n}"
	}
	task := func(mount string) string {
		return group("    volume \"data\" {\n      type   = \"host\"\n      source = \"d\"\n    }\n" +
			"    task \"t\" {\n      driver = \"exec\"\n" + mount + "\n    }")
	}
	for _, tc := range []struct{ name, src, want string }{
		{"unknown volume", task("      volume_mount {\n        volume      = \"dta\"\n        destination = \"/d\"\n      }"),
			`bad.hcl:10:23: Unknown volume; Group "g" has no volume "dta" to mount. Did you mean "data"?`},
		{"missing volume", task("      volume_mount {\n        destination = \"/d\"\n      }"),
			`bad.hcl:9:20: Missing volume_mount volume`},
		{"missing destination", task("      volume_mount {\n        volume = \"data\"\n      }"),
			`bad.hcl:9:7: Missing volume_mount destination`},
		{"bad propagation", task("      volume_mount {\n        volume = \"data\"\n        destination = \"/d\"\n        propagation_mode = \"both\"\n      }"),
			`bad.hcl:12:28: Invalid propagation_mode; The propagation_mode "both" is not one of`},
		{"csi", group("    volume \"x\" {\n      type   = \"csi\"\n      source = \"d\"\n    }"),
			`bad.hcl:4:16: Unsupported volume type; nomadish implements host volumes only`},
		{"no source", group("    volume \"x\" {\n      type = \"host\"\n    }"),
			`bad.hcl:3:5: Missing volume source`},
		{"duplicate", group("    volume \"x\" {\n      type = \"host\"\n      source = \"a\"\n    }\n    volume \"x\" {\n      type = \"host\"\n      source = \"b\"\n    }"),
			`bad.hcl:7:12: Duplicate volume block; The group already has a volume named "x".`},
		{"unknown argument", group("    volume \"x\" {\n      type = \"host\"\n      sorce = \"a\"\n    }"),
			`bad.hcl:5:7: Unsupported argument; An argument named "sorce" is not expected in a volume block. Did you mean "source"?`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(&ParseConfig{Path: "bad.hcl", Body: []byte(tc.src)})
			if err == nil {
				t.Fatal("no error")
			}
			found := false
			for _, line := range strings.Split(err.Error(), "\n") {
				found = found || strings.HasPrefix(line, tc.want)
			}
			if !found {
				t.Fatalf("error:\n%v\nwant a line starting with:\n%s", err, tc.want)
			}
		})
	}
}
