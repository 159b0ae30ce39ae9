package qemu

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/nomadish/nomadish/drivers/base"
)

// defaultMemoryMB is the guest memory when the task asks for none.
const defaultMemoryMB = 128

// maxSocketPath keeps the QMP socket path within sun_path (108 bytes).
const maxSocketPath = 100

// files are a task's resolved image, kernel and initrd (empty: not used).
type files struct{ image, kernel, initrd string }

// resolveFiles checks every file the task names against the allowed
// directories (see resolveFile).
func resolveFiles(tc *taskConfig, cfg *base.TaskConfig, imagePaths []string) (files, error) {
	var f files
	for _, x := range []struct {
		key, path string
		dst       *string
	}{{"image_path", tc.ImagePath, &f.image}, {"kernel", tc.Kernel, &f.kernel}, {"initrd", tc.Initrd, &f.initrd}} {
		if x.path == "" {
			continue
		}
		p, err := resolveFile(x.key, x.path, cfg, imagePaths)
		if err != nil {
			return files{}, err
		}
		*x.dst = p
	}
	return f, nil
}

// qmpSocketPath is <task dir>/qmp.sock, or a path under the temp dir named
// after the task ID when the task dir is too deep for a unix socket.
func qmpSocketPath(cfg *base.TaskConfig) string {
	p := filepath.Join(cfg.TaskDir, "qmp.sock")
	if len(p) <= maxSocketPath && cfg.TaskDir != "" {
		return p
	}
	sum := sha256.Sum256([]byte(cfg.ID))
	return filepath.Join(os.TempDir(), "nomadish-qmp-"+hex.EncodeToString(sum[:8])+".sock")
}

// commandLine returns qemu's arguments: machine and accelerator, memory and
// vCPUs, no display and no reboot, the serial console on stdout, QMP on
// qmpSock, the disk, direct kernel boot, user-mode networking forwarding
// each (host, guest) port, then the task's own args.
func commandLine(tc *taskConfig, cfg *base.TaskConfig, f files, qmpSock string, ports [][2]int) []string {
	mem := cfg.Resources.MemoryMB
	if mem <= 0 {
		mem = defaultMemoryMB
	}
	machine := "type=pc,accel=" + tc.Accelerator
	var memBind []string
	if nodes := cfg.Resources.NUMANodes; len(nodes) > 0 {
		// Guest RAM from a backend bound to the reserved cores' nodes.
		machine += ",memory-backend=ram0"
		memBind = []string{"-object", fmt.Sprintf("memory-backend-ram,id=ram0,size=%dM,host-nodes=%s,policy=bind",
			mem, strings.ReplaceAll(base.IDList(nodes), ",", ",host-nodes="))}
	}
	smp := max(len(cfg.Resources.Cores), 1) // one vCPU per reserved core
	args := []string{
		"-machine", machine,
		"-name", cfg.Name,
		"-m", strconv.FormatInt(mem, 10) + "M",
		"-smp", strconv.Itoa(smp),
		"-display", "none",
		"-no-reboot",
		"-serial", "stdio",
		"-qmp", "unix:" + qmpSock + ",server=on,wait=off",
	}
	args = append(args, memBind...)
	if tc.Accelerator == "kvm" {
		args = append(args, "-enable-kvm", "-cpu", "host")
	}
	if f.image != "" {
		args = append(args, "-drive", "file="+escapeComma(f.image)+",if="+tc.DriveInterface)
	}
	if f.kernel != "" {
		args = append(args, "-kernel", f.kernel)
	}
	if f.initrd != "" {
		args = append(args, "-initrd", f.initrd)
	}
	if tc.Append != "" {
		args = append(args, "-append", tc.Append)
	}
	if len(ports) > 0 {
		netdev := "user,id=user.0"
		for _, p := range ports {
			for _, proto := range []string{"tcp", "udp"} {
				netdev += fmt.Sprintf(",hostfwd=%s::%d-:%d", proto, p[0], p[1])
			}
		}
		args = append(args, "-netdev", netdev, "-device", "virtio-net,netdev=user.0")
	}
	return append(args, tc.Args...)
}

// escapeComma doubles commas, QEMU's escape inside option values.
func escapeComma(s string) string { return strings.ReplaceAll(s, ",", ",,") }
