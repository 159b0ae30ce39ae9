package virt

import (
	"encoding/xml"
	"strconv"

	"github.com/digitalocean/go-libvirt"
)

// liveDevices is what ioCounters reads from the live domain XML: the disks'
// and the bridge NICs' target device names.
type liveDevices struct {
	Disks []struct {
		Target struct {
			Dev string `xml:"dev,attr"`
		} `xml:"target"`
	} `xml:"devices>disk"`
	Interfaces []struct {
		Target struct {
			Dev string `xml:"dev,attr"`
		} `xml:"target"`
	} `xml:"devices>interface"`
}

// ioCounters returns the domain's block and network counters from libvirt
// as InspectTask attributes: block.<dev>.{rd,wr}_{bytes,reqs} for each
// disk and net.<dev>.{rx,tx}_{bytes,packets} for each libvirt-managed NIC
// (bridges; user-mode networking is qemu's own, unseen by libvirt). What
// libvirt cannot answer is left out.
func ioCounters(l *libvirt.Libvirt, dom libvirt.Domain) map[string]string {
	out := map[string]string{}
	desc, err := l.DomainGetXMLDesc(dom, 0)
	if err != nil {
		return out
	}
	var devs liveDevices
	if xml.Unmarshal([]byte(desc), &devs) != nil {
		return out
	}
	put := func(k string, v int64) { out[k] = strconv.FormatInt(v, 10) }
	for _, disk := range devs.Disks {
		dev := disk.Target.Dev
		rdReq, rdBytes, wrReq, wrBytes, _, err := l.DomainBlockStats(dom, dev)
		if dev == "" || err != nil {
			continue
		}
		put("block."+dev+".rd_reqs", rdReq)
		put("block."+dev+".rd_bytes", rdBytes)
		put("block."+dev+".wr_reqs", wrReq)
		put("block."+dev+".wr_bytes", wrBytes)
	}
	for _, nic := range devs.Interfaces {
		dev := nic.Target.Dev
		rxBytes, rxPkts, _, _, txBytes, txPkts, _, _, err := l.DomainInterfaceStats(dom, dev)
		if dev == "" || err != nil {
			continue
		}
		put("net."+dev+".rx_bytes", rxBytes)
		put("net."+dev+".rx_packets", rxPkts)
		put("net."+dev+".tx_bytes", txBytes)
		put("net."+dev+".tx_packets", txPkts)
	}
	return out
}
