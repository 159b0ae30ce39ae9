package cloudinit

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestRenderShorthand(t *testing.T) {
	c := Config{InstanceID: "alloc-1/web", Hostname: "web-1", AuthorizedSSHKey: "ssh-ed25519 AAAA op@host",
		Password: `pa"ss`, Cmds: []string{"echo hello", "touch /x"}}
	meta, err := MetaData(c)
	if err != nil {
		t.Fatal(err)
	}
	if want := "instance-id: \"alloc-1/web\"\nlocal-hostname: \"web-1\"\n"; meta != want {
		t.Fatalf("meta-data %q, want %q", meta, want)
	}
	want := "#cloud-config\nhostname: \"web-1\"\nssh_authorized_keys:\n  - \"ssh-ed25519 AAAA op@host\"\n" +
		"password: \"pa\\\"ss\"\nchpasswd:\n  expire: false\nssh_pwauth: true\n" +
		"runcmd:\n  - \"echo hello\"\n  - \"touch /x\"\n"
	if got := UserData(c); got != want {
		t.Fatalf("user-data:\n%s\nwant:\n%s", got, want)
	}
}

func TestRawWins(t *testing.T) {
	c := Config{UserDataRaw: "#cloud-config\n{}\n", MetaDataRaw: "instance-id: x\n", Hostname: "ignored", Cmds: []string{"no"}}
	if UserData(c) != c.UserDataRaw {
		t.Fatalf("user-data %q", UserData(c))
	}
	if m, err := MetaData(c); err != nil || m != c.MetaDataRaw {
		t.Fatalf("meta-data %q %v", m, err)
	}
}

func TestInstanceIDRequired(t *testing.T) {
	err := WriteISO(filepath.Join(t.TempDir(), "seed.iso"), Config{Hostname: "h"})
	if err == nil || !strings.Contains(err.Error(), "instance id") {
		t.Fatalf("err %v, want one naming the instance id", err)
	}
}

func seed(t *testing.T) (string, Config) {
	t.Helper()
	c := Config{InstanceID: "i-1", Hostname: "guest", Cmds: []string{"echo nomadish-cloudinit-ran"},
		NetworkConfig: "version: 2\nethernets: {}\n"}
	path := filepath.Join(t.TempDir(), "seed.iso")
	if err := WriteISO(path, c); err != nil {
		t.Fatal(err)
	}
	return path, c
}

func TestWriteISOReadBack(t *testing.T) {
	path, c := seed(t)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600", fi.Mode().Perm())
	}
	img, err := readISO(path)
	if err != nil {
		t.Fatal(err)
	}
	meta, _ := MetaData(c)
	want := map[string]string{"user-data": UserData(c), "meta-data": meta, "network-config": c.NetworkConfig}
	if img.Label != "cidata" || len(img.Files) != 3 {
		t.Fatalf("label %q files %v", img.Label, img.Files)
	}
	for name, data := range want {
		if img.Files[name] != data {
			t.Fatalf("%s = %q, want %q", name, img.Files[name], data)
		}
	}
	// Without network_config the seed has two files.
	c.NetworkConfig = ""
	if err := WriteISO(path, c); err != nil {
		t.Fatal(err)
	}
	if img, err = readISO(path); err != nil || len(img.Files) != 2 {
		t.Fatalf("files %v err %v", img.Files, err)
	}
}

// TestBlkidLabel: util-linux's blkid reads the label from the image file.
func TestBlkidLabel(t *testing.T) {
	path, _ := seed(t)
	out, err := exec.Command("blkid", "-p", "-o", "export", path).CombinedOutput()
	if err != nil {
		t.Fatalf("blkid: %v: %s", err, out)
	}
	if !strings.Contains(string(out), "TYPE=iso9660") || !strings.Contains(string(out), "LABEL=cidata") {
		t.Fatalf("blkid:\n%s", out)
	}
}
