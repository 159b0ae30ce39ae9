package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/nomadish/nomadish/drivers/docker/dockertest"
	"github.com/nomadish/nomadish/drivers/qemu/qemutest"
)

// driverMarker is what every benchmark task prints once it runs.
const driverMarker = "bench-task-up"

// driverJob is a service job of one task on driver with config cfg.
func driverJob(id, driver, cfg string, memory int) string {
	return fmt.Sprintf(`job %q {
  datacenters = ["*"]
  group "g" {
    task "t" {
      driver       = %q
      kill_timeout = "2s"
      config {
%s
      }
      resources {
        cpu    = 100
        memory = %d
      }
    }
  }
}
`, id, driver, cfg, memory)
}

// driverJobs returns the job of each driver: a shell loop for raw_exec,
// exec and docker, a Debian kernel + busybox initramfs under TCG for qemu.
func driverJobs(dir string) (map[string]string, error) {
	kernel, err := qemutest.Kernel()
	if err != nil {
		return nil, err
	}
	initrd := filepath.Join(dir, "initrd.gz")
	if err := qemutest.WriteInitramfs(initrd, qemutest.Busybox, qemutest.InitScript(driverMarker)); err != nil {
		return nil, err
	}
	sh := fmt.Sprintf(`        command = "/bin/sh"
        args    = ["-c", "echo %s; while true; do sleep 1; done"]`, driverMarker)
	return map[string]string{
		"raw_exec": driverJob("bench-raw_exec", "raw_exec", sh, 32),
		"exec":     driverJob("bench-exec", "exec", sh, 32),
		"docker": driverJob("bench-docker", "docker", fmt.Sprintf(`        image   = %q
        command = "/bin/sh"
        args    = ["-c", "echo %s; while true; do sleep 1; done"]`, dockertest.Image, driverMarker), 32),
		"qemu": driverJob("bench-qemu", "qemu", fmt.Sprintf(`        kernel      = %q
        initrd      = %q
        append      = "console=ttyS0 quiet"
        accelerator = "tcg"`, kernel, initrd), 256),
	}, nil
}

// driverOrder is the order of the report.
var driverOrder = []string{"raw_exec", "exec", "docker", "qemu"}

// benchDrivers starts one dev agent and, runs times per driver, measures
// `job run -detach` to the allocation running and to the task's first
// output line in its log (for qemu: the guest's console), then stops the
// job. It prints each run and the medians.
func benchDrivers(bin string, runs int) error {
	dir, err := os.MkdirTemp("", "benchdrivers")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	err = dockertest.EnsureImage(ctx, "")
	cancel()
	if err != nil {
		return fmt.Errorf("docker test image: %w", err)
	}
	jobs, err := driverJobs(dir)
	if err != nil {
		return err
	}
	ports := freePorts(3)
	cfg := fmt.Sprintf("ports {\n  http = %d\n  rpc = %d\n  serf = %d\n}\nplugin \"qemu\" {\n  config {\n    image_paths = [\"/boot\", %q]\n  }\n}\n",
		ports[0], ports[1], ports[2], dir)
	cfgPath := filepath.Join(dir, "agent.hcl")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		return err
	}
	addr := fmt.Sprintf("http://127.0.0.1:%d", ports[0])
	cmd := exec.Command(bin, "agent", "-dev", "-config", cfgPath)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	defer stopAgent(cmd)
	if err := waitReady(addr, 20*time.Second); err != nil {
		return err
	}
	fmt.Printf("\njob run -detach -> allocation running -> first task output (%d runs per driver):\n", runs)
	for _, drv := range driverOrder {
		path := filepath.Join(dir, drv+".nomad.hcl")
		if err := os.WriteFile(path, []byte(jobs[drv]), 0o644); err != nil {
			return err
		}
		var running, output []time.Duration
		for i := 0; i < runs; i++ {
			r, o, err := runDriverJob(bin, addr, "bench-"+drv, path)
			if err != nil {
				return fmt.Errorf("%s run %d: %w", drv, i+1, err)
			}
			running, output = append(running, r), append(output, o)
		}
		fmt.Printf("  %-8s running %7v  output %7v   (median; runs: %v)\n", drv,
			median(running).Round(time.Millisecond), median(output).Round(time.Millisecond), rounded(running))
	}
	return nil
}

// runDriverJob runs the job, waits for its allocation to run and for the
// marker in the task's stdout, then stops and purges the job and waits for
// the allocation to be stopped.
func runDriverJob(bin, addr, id, path string) (running, output time.Duration, err error) {
	start := time.Now()
	if out, err := exec.Command(bin, "job", "run", "-detach", "-address", addr, path).CombinedOutput(); err != nil {
		return 0, 0, fmt.Errorf("job run: %v: %s", err, out)
	}
	allocID, err := waitAllocStatus(addr, id, "running", 60*time.Second)
	if err != nil {
		return 0, 0, err
	}
	running = time.Since(start)
	deadline := time.Now().Add(90 * time.Second)
	for !strings.Contains(taskLog(addr, allocID), driverMarker) {
		if time.Now().After(deadline) {
			return 0, 0, fmt.Errorf("no %q in the task log of %s", driverMarker, allocID)
		}
		time.Sleep(5 * time.Millisecond)
	}
	output = time.Since(start)
	if out, err := exec.Command(bin, "job", "stop", "-purge", "-address", addr, id).CombinedOutput(); err != nil {
		return 0, 0, fmt.Errorf("job stop: %v: %s", err, out)
	}
	deadline = time.Now().Add(30 * time.Second)
	for {
		var a struct{ ClientStatus string }
		if getJSON(addr+"/v1/allocation/"+allocID, &a) != nil || a.ClientStatus != "running" {
			return running, output, nil
		}
		if time.Now().After(deadline) {
			return 0, 0, fmt.Errorf("allocation %s still running after job stop", allocID)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitAllocStatus follows the job's allocations with blocking queries until
// one has status, and returns its ID.
func waitAllocStatus(addr, job, status string, timeout time.Duration) (string, error) {
	deadline := time.Now().Add(timeout)
	index := "0"
	for time.Now().Before(deadline) {
		resp, err := http.Get(fmt.Sprintf("%s/v1/job/%s/allocations?index=%s&wait=5s", addr, job, index))
		if err != nil {
			return "", err
		}
		var allocs []struct{ ID, ClientStatus string }
		err = json.NewDecoder(resp.Body).Decode(&allocs)
		resp.Body.Close()
		if err != nil {
			return "", err
		}
		index = resp.Header.Get("X-Nomad-Index")
		for _, a := range allocs {
			if a.ClientStatus == status {
				return a.ID, nil
			}
			if a.ClientStatus == "failed" {
				return "", fmt.Errorf("allocation %s failed", a.ID)
			}
		}
	}
	return "", fmt.Errorf("no %s allocation of %s after %v", status, job, timeout)
}

func taskLog(addr, allocID string) string {
	resp, err := http.Get(addr + "/v1/client/fs/logs/" + allocID + "?task=t&type=stdout&plain=true")
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func stopAgent(cmd *exec.Cmd) {
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
}

func median(v []time.Duration) time.Duration {
	s := append([]time.Duration(nil), v...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func rounded(v []time.Duration) []time.Duration {
	out := make([]time.Duration, len(v))
	for i, d := range v {
		out[i] = d.Round(time.Millisecond)
	}
	return out
}
