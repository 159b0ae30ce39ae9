package virt

import (
	"encoding/xml"
	"fmt"
	"strconv"

	"github.com/nomadish/nomadish/drivers/base"
)

// MetadataNS is the XML namespace of the <metadata> element the driver
// puts in every domain it defines; the reconciler only touches domains
// carrying it.
const MetadataNS = "https://nomadish.dev/xmlns/virt/1"

// qemuNS is libvirt's namespace for qemu command-line passthrough.
const qemuNS = "http://libvirt.org/schemas/domain/qemu/1.0"

// meta is what a domain's metadata says about its task.
type meta struct {
	XMLName  xml.Name `xml:"https://nomadish.dev/xmlns/virt/1 task"`
	AllocID  string   `xml:"alloc_id"`
	TaskName string   `xml:"task_name"`
	TaskID   string   `xml:"task_id"`
	AllocDir string   `xml:"alloc_dir"`
	WorkDir  string   `xml:"work_dir"` // overlay, seed ISO and console file
	Disk     string   `xml:"disk,omitempty"`
	SeedISO  string   `xml:"seed_iso,omitempty"`
}

// domainSpec is everything domainXML needs: pure data, no I/O.
type domainSpec struct {
	Name        string
	Meta        meta
	Type        string // "kvm" or "qemu" (TCG)
	Arch        string
	Machine     string
	MemoryMB    int64
	MemoryMaxMB int64    // > MemoryMB: the balloon may grow up to it
	CPUShares   int64    // <cputune><shares>
	Cores       []uint16 // reserved host cores: one vCPU each, pinned
	CoreNodes   []int    // the host NUMA node of each of Cores
	Kernel      string
	Initrd      string
	Cmdline     string
	Disk        string // primary disk path ("" none)
	DiskFormat  string
	SeedISO     string // cloud-init NoCloud seed ("" none)
	Console     string // serial console file
	Forwards    [][2]int
	Bridges     []string
}

// XML shapes of the libvirt domain format (only what the driver writes).
type (
	xDomain struct {
		XMLName       xml.Name   `xml:"domain"`
		Type          string     `xml:"type,attr"`
		QemuNS        string     `xml:"xmlns:qemu,attr,omitempty"`
		Name          string     `xml:"name"`
		Metadata      xMetadata  `xml:"metadata"`
		Memory        xSize      `xml:"memory"`
		CurrentMemory xSize      `xml:"currentMemory"`
		VCPU          xVCPU      `xml:"vcpu"`
		CPUTune       *xCPUTune  `xml:"cputune"`
		NUMATune      *xNUMATune `xml:"numatune"`
		OS            xOS        `xml:"os"`
		Features      xFeatures  `xml:"features"`
		CPU           *xCPU      `xml:"cpu"`
		OnPoweroff    string     `xml:"on_poweroff"`
		OnReboot      string     `xml:"on_reboot"`
		OnCrash       string     `xml:"on_crash"`
		Devices       xDevices   `xml:"devices"`
		SecLabel      xSecLabel  `xml:"seclabel"`
		Commandline   *xQemuCmdline
	}
	xMetadata struct {
		Task meta
	}
	xSize struct {
		Unit  string `xml:"unit,attr"`
		Value int64  `xml:",chardata"`
	}
	xVCPU struct {
		Placement string `xml:"placement,attr"`
		CPUSet    string `xml:"cpuset,attr,omitempty"`
		Count     int    `xml:",chardata"`
	}
	xCPUTune struct {
		Shares      int64      `xml:"shares,omitempty"`
		VCPUPin     []xVCPUPin `xml:"vcpupin"`
		EmulatorPin *xCPUSet   `xml:"emulatorpin"`
	}
	xVCPUPin struct {
		VCPU   int    `xml:"vcpu,attr"`
		CPUSet string `xml:"cpuset,attr"`
	}
	xCPUSet struct {
		CPUSet string `xml:"cpuset,attr"`
	}
	xNUMATune struct {
		Memory  xNUMAMem   `xml:"memory"`
		MemNode []xMemNode `xml:"memnode"`
	}
	xNUMAMem struct {
		Mode    string `xml:"mode,attr"`
		Nodeset string `xml:"nodeset,attr"`
	}
	xMemNode struct {
		CellID  int    `xml:"cellid,attr"`
		Mode    string `xml:"mode,attr"`
		Nodeset string `xml:"nodeset,attr"`
	}
	xOS struct {
		Type    xOSType `xml:"type"`
		Kernel  string  `xml:"kernel,omitempty"`
		Initrd  string  `xml:"initrd,omitempty"`
		Cmdline string  `xml:"cmdline,omitempty"`
		Boot    *xBoot  `xml:"boot"`
	}
	xOSType struct {
		Arch    string `xml:"arch,attr"`
		Machine string `xml:"machine,attr"`
		Value   string `xml:",chardata"`
	}
	xBoot struct {
		Dev string `xml:"dev,attr"`
	}
	xFeatures struct {
		ACPI *struct{} `xml:"acpi"`
		APIC *struct{} `xml:"apic"`
	}
	xCPU struct {
		Mode string  `xml:"mode,attr,omitempty"`
		NUMA []xCell `xml:"numa>cell"`
	}
	xCell struct {
		ID     int    `xml:"id,attr"`
		CPUs   string `xml:"cpus,attr"`
		Memory int64  `xml:"memory,attr"`
		Unit   string `xml:"unit,attr"`
	}
	xDevices struct {
		Disks      []xDisk      `xml:"disk"`
		Interfaces []xInterface `xml:"interface"`
		Serial     xSerial      `xml:"serial"`
		Channel    xChannel     `xml:"channel"`
		Balloon    xBalloon     `xml:"memballoon"`
	}
	xDisk struct {
		Type     string    `xml:"type,attr"`
		Device   string    `xml:"device,attr"`
		Driver   xDriver   `xml:"driver"`
		Source   xSource   `xml:"source"`
		Target   xTarget   `xml:"target"`
		ReadOnly *struct{} `xml:"readonly"`
	}
	xDriver struct {
		Name string `xml:"name,attr"`
		Type string `xml:"type,attr"`
	}
	xSource struct {
		File   string `xml:"file,attr,omitempty"`
		Path   string `xml:"path,attr,omitempty"`
		Bridge string `xml:"bridge,attr,omitempty"`
	}
	xTarget struct {
		Dev  string `xml:"dev,attr,omitempty"`
		Bus  string `xml:"bus,attr,omitempty"`
		Type string `xml:"type,attr,omitempty"`
		Name string `xml:"name,attr,omitempty"`
		Port *int   `xml:"port,attr"`
	}
	xInterface struct {
		Type   string  `xml:"type,attr"`
		Source xSource `xml:"source"`
		Model  xModel  `xml:"model"`
	}
	xModel struct {
		Type string `xml:"type,attr"`
	}
	xSerial struct {
		Type   string  `xml:"type,attr"`
		Source xSource `xml:"source"`
		Target xTarget `xml:"target"`
	}
	xChannel struct {
		Type   string  `xml:"type,attr"`
		Target xTarget `xml:"target"`
	}
	xBalloon struct {
		Model string `xml:"model,attr"`
	}
	xSecLabel struct {
		Type    string `xml:"type,attr"`
		Model   string `xml:"model,attr"`
		Relabel string `xml:"relabel,attr"`
		Label   string `xml:"label"`
	}
	xQemuCmdline struct {
		XMLName xml.Name   `xml:"qemu:commandline"`
		Args    []xQemuArg `xml:"qemu:arg"`
	}
	xQemuArg struct {
		Value string `xml:"value,attr"`
	}
)

// guestAgentChannel is the virtio-serial port name of the QEMU guest agent.
const guestAgentChannel = "org.qemu.guest_agent.0"

// userNetAddr is the PCI slot of the user-mode NIC added on qemu's command
// line (libvirt assigns its own devices from slot 2 up).
const userNetAddr = "0x1f"

// domainXML renders s as a libvirt domain definition. It is pure: the
// caller resolved every path and the cores' NUMA nodes.
func domainXML(s domainSpec) ([]byte, error) {
	if len(s.Cores) != len(s.CoreNodes) {
		return nil, fmt.Errorf("virt: %d cores but %d NUMA nodes for them", len(s.Cores), len(s.CoreNodes))
	}
	maxMB := max(s.MemoryMB, s.MemoryMaxMB)
	d := xDomain{
		Type: s.Type, Name: s.Name, Metadata: xMetadata{Task: s.Meta},
		Memory: xSize{"MiB", maxMB}, CurrentMemory: xSize{"MiB", s.MemoryMB},
		VCPU: xVCPU{Placement: "static", Count: max(1, len(s.Cores))},
		OS: xOS{Type: xOSType{Arch: s.Arch, Machine: s.Machine, Value: "hvm"},
			Kernel: s.Kernel, Initrd: s.Initrd, Cmdline: s.Cmdline},
		Features:   xFeatures{ACPI: &struct{}{}, APIC: &struct{}{}},
		OnPoweroff: "destroy", OnReboot: "restart", OnCrash: "destroy",
		// qemu runs as root, like the client and the qemu driver's VMs,
		// without relabelling: its files live in the client's alloc dir
		// (mode 0700, root's), which qemu.conf's user could not open.
		SecLabel: xSecLabel{Type: "static", Model: "dac", Relabel: "no", Label: "+0:+0"},
	}
	if s.Kernel == "" {
		d.OS.Boot = &xBoot{Dev: "hd"}
	}
	if s.CPUShares > 0 {
		d.CPUTune = &xCPUTune{Shares: min(max(s.CPUShares, 2), 262144)}
	}
	if len(s.Cores) > 0 {
		pinCores(&d, s, maxMB)
	}
	devs := &d.Devices
	if s.Disk != "" {
		devs.Disks = append(devs.Disks, xDisk{Type: "file", Device: "disk", Driver: xDriver{"qemu", s.DiskFormat},
			Source: xSource{File: s.Disk}, Target: xTarget{Dev: "vda", Bus: "virtio"}})
	}
	if s.SeedISO != "" {
		// A read-only virtio disk: cloud-init finds the "cidata" label on
		// any block device, and virtio needs no cdrom/ATA drivers.
		devs.Disks = append(devs.Disks, xDisk{Type: "file", Device: "disk", Driver: xDriver{"qemu", "raw"},
			Source: xSource{File: s.SeedISO}, Target: xTarget{Dev: "vdb", Bus: "virtio"}, ReadOnly: &struct{}{}})
	}
	for _, b := range s.Bridges {
		devs.Interfaces = append(devs.Interfaces, xInterface{Type: "bridge", Source: xSource{Bridge: b}, Model: xModel{"virtio"}})
	}
	port := 0
	devs.Serial = xSerial{Type: "file", Source: xSource{Path: s.Console}, Target: xTarget{Port: &port}}
	devs.Channel = xChannel{Type: "unix", Target: xTarget{Type: "virtio", Name: guestAgentChannel}}
	devs.Balloon = xBalloon{Model: "virtio"}
	if len(s.Bridges) == 0 {
		d.QemuNS = qemuNS
		d.Commandline = &xQemuCmdline{Args: []xQemuArg{{"-netdev"}, {userNetdev(s.Forwards)},
			{"-device"}, {"virtio-net-pci,netdev=nomadish0,addr=" + userNetAddr}}}
	}
	out, err := xml.MarshalIndent(d, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("virt: rendering domain XML: %w", err)
	}
	return out, nil
}

// userNetdev is qemu's -netdev user option with one hostfwd per forward
// (libvirt 9.0's <portForward> needs the passt backend, which Debian does
// not install with the daemon).
func userNetdev(fw [][2]int) string {
	s := "user,id=nomadish0"
	for _, f := range fw {
		s += fmt.Sprintf(",hostfwd=tcp::%d-:%d", f[0], f[1])
	}
	return s
}

// pinCores gives vCPU i the host core Cores[i] alone, the emulator threads
// all the cores, binds memory to the cores' NUMA nodes strictly and gives
// the guest one NUMA cell per host node, with the memory split evenly.
func pinCores(d *xDomain, s domainSpec, maxMB int64) {
	if d.CPUTune == nil {
		d.CPUTune = &xCPUTune{}
	}
	all := base.IDList(s.Cores)
	d.VCPU.CPUSet = all
	for i, c := range s.Cores {
		d.CPUTune.VCPUPin = append(d.CPUTune.VCPUPin, xVCPUPin{VCPU: i, CPUSet: strconv.Itoa(int(c))})
	}
	d.CPUTune.EmulatorPin = &xCPUSet{CPUSet: all}
	var nodes []int             // host nodes in first-seen order
	vcpus := map[int][]uint16{} // host node -> guest vCPU indexes
	for i, n := range s.CoreNodes {
		if _, ok := vcpus[n]; !ok {
			nodes = append(nodes, n)
		}
		vcpus[n] = append(vcpus[n], uint16(i))
	}
	hostNodes := make([]uint16, len(nodes))
	for i, n := range nodes {
		hostNodes[i] = uint16(n)
	}
	d.NUMATune = &xNUMATune{Memory: xNUMAMem{Mode: "strict", Nodeset: base.IDList(hostNodes)}}
	d.CPU = &xCPU{}
	per, rest := maxMB/int64(len(nodes)), maxMB%int64(len(nodes))
	for cell, n := range nodes {
		mem := per
		if cell == 0 {
			mem += rest
		}
		d.NUMATune.MemNode = append(d.NUMATune.MemNode, xMemNode{CellID: cell, Mode: "strict", Nodeset: strconv.Itoa(n)})
		d.CPU.NUMA = append(d.CPU.NUMA, xCell{ID: cell, CPUs: base.IDList(vcpus[n]), Memory: mem, Unit: "MiB"})
	}
}
