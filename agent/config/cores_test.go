package config

import (
	"strings"
	"testing"

	"github.com/nomadish/nomadish/client/fingerprint/sysfstest"
)

func TestClientCores(t *testing.T) {
	sys := sysfstest.Temp(t, sysfstest.Machine{Sockets: 2, CoresPerNode: 8}) // cores 0-15
	c, err := loadString(t, `data_dir = "/d"
server { enabled = true }
client {
  enabled          = true
  sysfs_root       = "`+sys+`"
  reservable_cores = "2-15"
  reserved {
    cores = "0-1"
  }
}
`)
	if err != nil {
		t.Fatal(err)
	}
	m := DefaultConfig().Merge(c)
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	if m.Client.ReservedCores != "0-1" || m.Client.ReservableCores != "2-15" || m.Client.SysfsRoot != sys {
		t.Fatalf("client = %+v", m.Client)
	}
	if d := DefaultConfig(); d.Client.SysfsRoot != "/sys" || d.Client.ReservedCores != "" {
		t.Errorf("default client = %+v", d.Client)
	}
	for _, tc := range []struct{ body, want string }{
		{`reserved { cores = "0-" }`, `c.hcl:5:14: client.reserved.cores: invalid cpuset item "0-"`},
		{`reserved { cores = "a" }`, `c.hcl:5:14: client.reserved.cores: invalid cpuset item "a"`},
		{`reserved { cores = "3-1" }`, `c.hcl:5:14: client.reserved.cores: invalid cpuset item "3-1": range end is below its start`},
		{`reserved { cores = "1,16" }`, `c.hcl:5:14: client.reserved.cores: core 16 is not on this machine (cores 0-15)`},
		{`reservable_cores = "8-99"`, `c.hcl:5:3: client.reservable_cores: core 16 is not on this machine`},
		{`reservable_cores = "x-1"`, `c.hcl:5:3: client.reservable_cores: invalid cpuset item "x-1"`},
		{`sysfs_root = "relative/sys"`, `c.hcl:5:3: client.sysfs_root: must be an absolute path`},
	} {
		src := "data_dir = \"/d\"\nserver { enabled = true }\nclient {\n  enabled = true\n  " + tc.body + "\n"
		if !strings.HasPrefix(tc.body, "sysfs_root") {
			src += "  sysfs_root = \"" + sys + "\"\n"
		}
		c, err := loadString(t, src+"}\n")
		if err != nil {
			t.Fatalf("%s: %v", tc.body, err)
		}
		err = DefaultConfig().Merge(c).Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error = %v, want %q", tc.body, err, tc.want)
		}
	}
}
