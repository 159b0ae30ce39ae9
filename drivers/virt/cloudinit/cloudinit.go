// Package cloudinit writes cloud-init's NoCloud seed: an ISO 9660 image
// labelled "cidata" holding user-data, meta-data and, when given,
// network-config, with their real names (Rock Ridge), written in Go so a
// client needs no genisoimage. It imports only the standard library.
package cloudinit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// Label is the volume label cloud-init's NoCloud datasource looks for.
const Label = "cidata"

// Config is what the seed carries. MetaData is rendered from InstanceID and
// Hostname when MetaDataRaw is empty; UserData is rendered from the
// shorthand fields when UserDataRaw is empty.
type Config struct {
	InstanceID string
	Hostname   string
	// UserDataRaw, MetaDataRaw and NetworkConfig are the task's
	// cloud_init { user_data meta_data network_config } verbatim.
	UserDataRaw   string
	MetaDataRaw   string
	NetworkConfig string
	// Shorthand: default_user_authorized_ssh_key, default_user_password, cmds.
	AuthorizedSSHKey string
	Password         string
	Cmds             []string
}

// WriteISO writes the NoCloud seed ISO for c at path (mode 0600).
func WriteISO(path string, c Config) error {
	meta, err := MetaData(c)
	if err != nil {
		return err
	}
	files := []isoFile{{Name: "meta-data", Data: []byte(meta)}, {Name: "user-data", Data: []byte(UserData(c))}}
	if c.NetworkConfig != "" {
		files = append(files, isoFile{Name: "network-config", Data: []byte(c.NetworkConfig)})
	}
	var buf bytes.Buffer
	if err := writeISO(&buf, Label, files, time.Now()); err != nil {
		return err
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		return fmt.Errorf("cloudinit: writing the seed: %w", err)
	}
	return nil
}

// MetaData is c.MetaDataRaw, or instance-id and local-hostname rendered.
func MetaData(c Config) (string, error) {
	if c.MetaDataRaw != "" {
		return c.MetaDataRaw, nil
	}
	if c.InstanceID == "" {
		return "", errors.New("cloudinit: an instance id is required when cloud_init.meta_data is empty")
	}
	s := "instance-id: " + quote(c.InstanceID) + "\n"
	if c.Hostname != "" {
		s += "local-hostname: " + quote(c.Hostname) + "\n"
	}
	return s, nil
}

// UserData is c.UserDataRaw, or a #cloud-config rendered from the
// shorthand: hostname, the default user's authorized key and password
// (not expiring, usable over ssh), and runcmd from Cmds.
func UserData(c Config) string {
	if c.UserDataRaw != "" {
		return c.UserDataRaw
	}
	var b strings.Builder
	b.WriteString("#cloud-config\n")
	if c.Hostname != "" {
		fmt.Fprintf(&b, "hostname: %s\n", quote(c.Hostname))
	}
	if c.AuthorizedSSHKey != "" {
		fmt.Fprintf(&b, "ssh_authorized_keys:\n  - %s\n", quote(c.AuthorizedSSHKey))
	}
	if c.Password != "" {
		// The top-level password is the default user's; set-passwords
		// replaces the image's lock ("!") with it.
		fmt.Fprintf(&b, "password: %s\nchpasswd:\n  expire: false\nssh_pwauth: true\n", quote(c.Password))
	}
	if len(c.Cmds) > 0 {
		b.WriteString("runcmd:\n")
		for _, cmd := range c.Cmds {
			fmt.Fprintf(&b, "  - %s\n", quote(cmd))
		}
	}
	return b.String()
}

// quote makes s a YAML double-quoted scalar (JSON's strings are YAML's).
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
