package virt

import (
	"encoding/xml"
	"strings"
	"testing"
)

// parsed is the subset of a domain definition the tests check, decoded
// independently of the types domainXML renders with.
type parsed struct {
	Type     string `xml:"type,attr"`
	Name     string `xml:"name"`
	Metadata struct {
		Inner []byte `xml:",innerxml"`
	} `xml:"metadata"`
	Memory struct {
		Unit  string `xml:"unit,attr"`
		Value int64  `xml:",chardata"`
	} `xml:"memory"`
	CurrentMemory struct {
		Value int64 `xml:",chardata"`
	} `xml:"currentMemory"`
	VCPU struct {
		CPUSet string `xml:"cpuset,attr"`
		Count  int    `xml:",chardata"`
	} `xml:"vcpu"`
	CPUTune struct {
		Shares  int64 `xml:"shares"`
		VCPUPin []struct {
			VCPU   int    `xml:"vcpu,attr"`
			CPUSet string `xml:"cpuset,attr"`
		} `xml:"vcpupin"`
		EmulatorPin struct {
			CPUSet string `xml:"cpuset,attr"`
		} `xml:"emulatorpin"`
	} `xml:"cputune"`
	NUMATune struct {
		Memory struct {
			Mode    string `xml:"mode,attr"`
			Nodeset string `xml:"nodeset,attr"`
		} `xml:"memory"`
		MemNode []struct {
			CellID  int    `xml:"cellid,attr"`
			Mode    string `xml:"mode,attr"`
			Nodeset string `xml:"nodeset,attr"`
		} `xml:"memnode"`
	} `xml:"numatune"`
	OS struct {
		Kernel  string `xml:"kernel"`
		Initrd  string `xml:"initrd"`
		Cmdline string `xml:"cmdline"`
	} `xml:"os"`
	Cells []struct {
		ID     int    `xml:"id,attr"`
		CPUs   string `xml:"cpus,attr"`
		Memory int64  `xml:"memory,attr"`
	} `xml:"cpu>numa>cell"`
	Disks []struct {
		Device string `xml:"device,attr"`
		Driver struct {
			Type string `xml:"type,attr"`
		} `xml:"driver"`
		Source struct {
			File string `xml:"file,attr"`
		} `xml:"source"`
		Target struct {
			Bus string `xml:"bus,attr"`
		} `xml:"target"`
	} `xml:"devices>disk"`
	Interfaces []struct {
		Type   string `xml:"type,attr"`
		Source struct {
			Bridge string `xml:"bridge,attr"`
		} `xml:"source"`
	} `xml:"devices>interface"`
	Serial struct {
		Type   string `xml:"type,attr"`
		Source struct {
			Path string `xml:"path,attr"`
		} `xml:"source"`
	} `xml:"devices>serial"`
	QemuArgs []struct {
		Value string `xml:"value,attr"`
	} `xml:"commandline>arg"`
}

func render(t *testing.T, s domainSpec) (parsed, string) {
	t.Helper()
	out, err := domainXML(s)
	if err != nil {
		t.Fatal(err)
	}
	var p parsed
	if err := xml.Unmarshal(out, &p); err != nil {
		t.Fatalf("domain XML does not parse: %v\n%s", err, out)
	}
	return p, string(out)
}

func baseSpec() domainSpec {
	return domainSpec{Name: "nomadish-a1-web", Type: "qemu", Arch: "x86_64", Machine: "pc", MemoryMB: 512,
		Meta:   meta{AllocID: "a1", TaskName: "web", TaskID: "a1/web/1", AllocDir: "/data/alloc/a1", WorkDir: "/w"},
		Kernel: "/boot/vmlinuz", Initrd: "/w/initrd", Cmdline: "console=ttyS0", Console: "/w/console.log",
		Forwards: [][2]int{{20080, 80}, {20022, 22}}}
}

// Two reserved cores on two host NUMA nodes: two vCPUs pinned one to one,
// the emulator on both, memory bound strictly to both nodes, a guest cell
// per node with the memory split; memory_max makes the balloon's ceiling.
func TestDomainXMLPinsCoresAndNUMA(t *testing.T) {
	s := baseSpec()
	s.Cores, s.CoreNodes = []uint16{3, 9}, []int{0, 1}
	s.MemoryMaxMB, s.CPUShares = 1025, 700
	p, raw := render(t, s)
	if p.VCPU.Count != 2 || p.VCPU.CPUSet != "3,9" {
		t.Errorf("vcpu = %+v, want 2 on 3,9", p.VCPU)
	}
	if len(p.CPUTune.VCPUPin) != 2 || p.CPUTune.VCPUPin[0].CPUSet != "3" || p.CPUTune.VCPUPin[1].VCPU != 1 || p.CPUTune.VCPUPin[1].CPUSet != "9" {
		t.Errorf("vcpupin = %+v", p.CPUTune.VCPUPin)
	}
	if p.CPUTune.EmulatorPin.CPUSet != "3,9" || p.CPUTune.Shares != 700 {
		t.Errorf("cputune = %+v", p.CPUTune)
	}
	if p.NUMATune.Memory.Mode != "strict" || p.NUMATune.Memory.Nodeset != "0,1" || len(p.NUMATune.MemNode) != 2 ||
		p.NUMATune.MemNode[1].CellID != 1 || p.NUMATune.MemNode[1].Nodeset != "1" {
		t.Errorf("numatune = %+v", p.NUMATune)
	}
	if len(p.Cells) != 2 || p.Cells[0].CPUs != "0" || p.Cells[1].CPUs != "1" || p.Cells[0].Memory+p.Cells[1].Memory != 1025 {
		t.Errorf("guest cells = %+v", p.Cells)
	}
	if p.Memory.Value != 1025 || p.Memory.Unit != "MiB" || p.CurrentMemory.Value != 512 {
		t.Errorf("memory %d current %d, want 1025 and 512", p.Memory.Value, p.CurrentMemory.Value)
	}
	if !strings.Contains(raw, "<memballoon model=\"virtio\"") {
		t.Errorf("no virtio balloon:\n%s", raw)
	}
}

// Two cores of one node: one guest cell holding both vCPUs.
func TestDomainXMLOneNode(t *testing.T) {
	s := baseSpec()
	s.Cores, s.CoreNodes = []uint16{0, 1}, []int{0, 0}
	p, _ := render(t, s)
	if len(p.Cells) != 1 || p.Cells[0].CPUs != "0,1" || p.Cells[0].Memory != 512 || p.NUMATune.Memory.Nodeset != "0" {
		t.Errorf("cells %+v numatune %+v", p.Cells, p.NUMATune)
	}
}

// Without reserved cores: one unpinned vCPU, no NUMA binding.
func TestDomainXMLUnpinned(t *testing.T) {
	p, raw := render(t, baseSpec())
	if p.VCPU.Count != 1 || p.VCPU.CPUSet != "" || len(p.CPUTune.VCPUPin) != 0 || len(p.Cells) != 0 {
		t.Errorf("unpinned domain: %+v", p)
	}
	for _, absent := range []string{"numatune", "emulatorpin"} {
		if strings.Contains(raw, absent) {
			t.Errorf("%s in an unpinned domain:\n%s", absent, raw)
		}
	}
	if p.Memory.Value != 512 || p.CurrentMemory.Value != 512 {
		t.Errorf("memory %d/%d", p.Memory.Value, p.CurrentMemory.Value)
	}
}

// Metadata, direct kernel boot, the console file and user-mode networking
// with one hostfwd per mapped port.
func TestDomainXMLBootConsoleNetwork(t *testing.T) {
	p, raw := render(t, baseSpec())
	if p.Name != "nomadish-a1-web" || p.Type != "qemu" {
		t.Errorf("name %q type %q", p.Name, p.Type)
	}
	m, err := parseMeta(string(p.Metadata.Inner))
	if err != nil || m.AllocID != "a1" || m.TaskName != "web" || m.TaskID != "a1/web/1" || m.AllocDir != "/data/alloc/a1" {
		t.Errorf("metadata %+v, %v (%s)", m, err, p.Metadata.Inner)
	}
	if p.OS.Kernel != "/boot/vmlinuz" || p.OS.Initrd != "/w/initrd" || p.OS.Cmdline != "console=ttyS0" {
		t.Errorf("os = %+v", p.OS)
	}
	if p.Serial.Type != "file" || p.Serial.Source.Path != "/w/console.log" {
		t.Errorf("serial = %+v", p.Serial)
	}
	var args []string
	for _, a := range p.QemuArgs {
		args = append(args, a.Value)
	}
	want := "-netdev user,id=nomadish0,hostfwd=tcp::20080-:80,hostfwd=tcp::20022-:22 -device virtio-net-pci,netdev=nomadish0,addr=0x1f"
	if strings.Join(args, " ") != want {
		t.Errorf("qemu args %q, want %q", strings.Join(args, " "), want)
	}
	if !strings.Contains(raw, `xmlns:qemu="`+qemuNS+`"`) {
		t.Errorf("no qemu namespace:\n%s", raw)
	}
}

// A disk, a seed ISO and a bridge: the disk on virtio, the seed a read-only
// virtio disk, the NIC on the bridge and no user-mode passthrough.
func TestDomainXMLDiskSeedBridge(t *testing.T) {
	s := baseSpec()
	s.Kernel, s.Initrd, s.Cmdline, s.Forwards = "", "", "", nil
	s.Disk, s.DiskFormat, s.SeedISO, s.Bridges = "/w/disk", "qcow2", "/w/seed.iso", []string{"br0"}
	p, raw := render(t, s)
	if len(p.Disks) != 2 || p.Disks[0].Source.File != "/w/disk" || p.Disks[0].Driver.Type != "qcow2" ||
		p.Disks[1].Device != "disk" || p.Disks[1].Source.File != "/w/seed.iso" || p.Disks[1].Target.Bus != "virtio" ||
		!strings.Contains(raw, "<readonly>") {
		t.Errorf("disks = %+v", p.Disks)
	}
	if len(p.Interfaces) != 1 || p.Interfaces[0].Type != "bridge" || p.Interfaces[0].Source.Bridge != "br0" {
		t.Errorf("interfaces = %+v", p.Interfaces)
	}
	if len(p.QemuArgs) != 0 || strings.Contains(raw, "<kernel>") || !strings.Contains(raw, `<boot dev="hd">`) {
		t.Errorf("bridged disk boot:\n%s", raw)
	}
}

func TestDomainXMLCoresWithoutNodes(t *testing.T) {
	s := baseSpec()
	s.Cores = []uint16{1}
	if _, err := domainXML(s); err == nil {
		t.Fatal("cores without their NUMA nodes rendered")
	}
}

func TestDomainName(t *testing.T) {
	if got := DomainName("5f0c", "web/api server"); got != "nomadish-5f0c-web_api_server" {
		t.Errorf("DomainName = %q", got)
	}
}
