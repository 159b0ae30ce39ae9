package fingerprint

import (
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, content := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

const cpuinfo = `processor	: 0
model name	: Intel(R) Xeon(R) CPU @ 2.20GHz
cpu MHz		: 2199.998

processor	: 1
model name	: Intel(R) Xeon(R) CPU @ 2.20GHz
cpu MHz		: 2200.100

processor	: 2
cpu MHz		: 1800.000

processor	: 3
cpu MHz		: 1800.000
`

func fakeAddrs() ([]net.Addr, error) {
	return []net.Addr{
		&net.IPNet{IP: net.ParseIP("127.0.0.1"), Mask: net.CIDRMask(8, 32)},
		&net.IPNet{IP: net.ParseIP("fe80::1"), Mask: net.CIDRMask(64, 128)},
		&net.IPNet{IP: net.ParseIP("10.1.2.3"), Mask: net.CIDRMask(24, 32)},
		&net.IPNet{IP: net.ParseIP("10.9.9.9"), Mask: net.CIDRMask(24, 32)},
	}, nil
}

func TestFingerprintFakeTree(t *testing.T) {
	root := writeTree(t, map[string]string{
		"proc/cpuinfo":              cpuinfo,
		"proc/meminfo":              "MemTotal:       16384000 kB\nMemFree:   100 kB\n",
		"proc/sys/kernel/ostype":    "Linux\n",
		"proc/sys/kernel/osrelease": "6.1.0-test\n",
		"proc/sys/kernel/arch":      "x86_64\n",
		"etc/os-release":            "NAME=\"Debian GNU/Linux\"\nID=debian\nVERSION_ID=\"12\"\n",
	})
	res, err := Fingerprint(Config{Root: root, DataDir: root, Version: "0.1.0",
		Hostname: func() (string, error) { return "box1", nil }, InterfaceAddrs: fakeAddrs})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"cpu.numcores": "4", "cpu.frequency": "2200", "cpu.totalcompute": "8800",
		"cpu.modelname":     "Intel(R) Xeon(R) CPU @ 2.20GHz",
		"memory.totalbytes": "16777216000", "kernel.name": "linux", "kernel.version": "6.1.0-test",
		"kernel.arch": "x86_64", "os.name": "debian", "os.version": "12", "unique.hostname": "box1",
		"unique.network.ip-address": "10.1.2.3", "nomad.version": "0.1.0",
	}
	for k, v := range want {
		if got := res.Attributes[k]; got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if res.Attributes["unique.storage.bytesfree"] == "" || res.Resources.Disk.DiskMB <= 0 {
		t.Errorf("disk not fingerprinted: %v %d", res.Attributes["unique.storage.bytesfree"], res.Resources.Disk.DiskMB)
	}
	if r := res.Resources; r.Cpu.CpuShares != 8800 || r.Cpu.TotalCpuCores != 4 || r.Memory.MemoryMB != 16000 || len(r.Cpu.ReservableCpuCores) != 4 {
		t.Errorf("resources = %+v", r)
	}
}

func TestFingerprintCPUFreqWins(t *testing.T) {
	root := writeTree(t, map[string]string{
		"proc/cpuinfo": cpuinfo,
		"sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq": "3500000\n",
	})
	res, err := Fingerprint(Config{Root: root, DataDir: root, InterfaceAddrs: func() ([]net.Addr, error) { return nil, nil }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Attributes["cpu.frequency"] != "3500" || res.Resources.Cpu.CpuShares != 14000 {
		t.Errorf("freq %s shares %d", res.Attributes["cpu.frequency"], res.Resources.Cpu.CpuShares)
	}
	if res.Attributes["unique.network.ip-address"] != "127.0.0.1" {
		t.Errorf("ip = %s", res.Attributes["unique.network.ip-address"])
	}
}

func TestFingerprintEmptyTreeFallsBack(t *testing.T) {
	root := t.TempDir()
	res, err := Fingerprint(Config{Root: root, DataDir: root})
	if err != nil {
		t.Fatal(err)
	}
	if res.Attributes["cpu.numcores"] == "" || res.Attributes["cpu.frequency"] != "1000" || res.Attributes["kernel.name"] == "" {
		t.Errorf("attrs = %v", res.Attributes)
	}
	if _, err := Fingerprint(Config{Root: root, DataDir: filepath.Join(root, "missing")}); err == nil {
		t.Error("missing data dir: no error")
	}
}

func TestModelGHz(t *testing.T) {
	for in, want := range map[string]float64{"X @ 2.40GHz": 2.4, "AMD EPYC 7B13": 0, "Y @ junk": 0} {
		if got := modelGHz(in); got != want {
			t.Errorf("modelGHz(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestFingerprintRealMachineIsFast(t *testing.T) {
	start := time.Now()
	res, err := Fingerprint(Config{DataDir: t.TempDir(), Version: "dev"})
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 100*time.Millisecond {
		t.Errorf("fingerprint took %v", el)
	}
	if res.Resources.Cpu.CpuShares <= 0 || res.Resources.Memory.MemoryMB <= 0 {
		t.Errorf("resources = %+v", res.Resources)
	}
	t.Logf("took %v: %v", time.Since(start), res.Attributes)
}
