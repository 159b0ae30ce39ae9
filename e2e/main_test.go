package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nomadish/nomadish/internal/testbin"
)

var (
	// bin is the nomadish binary built by TestMain.
	bin string
	// dev is the dev agent all tests share.
	dev *agentProc
)

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) (code int) {
	tmp, err := os.MkdirTemp("", "nomadish-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(tmp)
	// Runs after dev.stop (deferred later, run earlier): every agent is
	// down, so whatever of this run still runs outlived its test.
	defer func() {
		if err := checkLeftovers(tmp); err != nil {
			fmt.Fprintln(os.Stderr, "e2e:", err)
			code = 1
		}
	}()
	bin = filepath.Join(tmp, "nomadish")
	if err := testbin.Build(bin); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: building nomadish:", err)
		return 1
	}
	dev, err = startAgent(filepath.Join(tmp, "dev"), true, "", qemuPluginConfig(tmp))
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e: starting dev agent:", err)
		return 1
	}
	defer dev.stop()
	if err := dev.waitReady(1, 30*time.Second); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\nagent log:\n%s\n", err, dev.logTail())
		return 1
	}
	code = m.Run()
	if code != 0 {
		fmt.Fprintf(os.Stderr, "dev agent log (tail):\n%s\n", dev.logTail())
	}
	return code
}

// agentProc is a running agent process.
type agentProc struct {
	cmd     *exec.Cmd
	addr    string // http://127.0.0.1:<http port>
	rpcAddr string // 127.0.0.1:<rpc port>
	logPath string
	done    chan struct{}
}

// startAgent starts `agent -dev` (dev) or a client-only agent joining
// servers, with its own data dir under dir and free ports; extra lines are
// appended to its config file.
func startAgent(dir string, devMode bool, servers string, extra ...string) (*agentProc, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	ports, err := testbin.FreePorts(3)
	if err != nil {
		return nil, err
	}
	cfg := fmt.Sprintf("data_dir = %q\nbind_addr = \"127.0.0.1\"\nports {\n  http = %d\n  rpc  = %d\n  serf = %d\n}\n",
		filepath.Join(dir, "data"), ports[0], ports[1], ports[2])
	args := []string{"agent", "-dev"}
	if !devMode {
		cfg += fmt.Sprintf("name = %q\nclient {\n  enabled = true\n  servers = [%q]\n}\n", filepath.Base(dir), servers)
		cfg += "plugin \"raw_exec\" {\n  config {\n    enabled = true\n  }\n}\n"
		args = []string{"agent"}
	}
	cfg += strings.Join(extra, "\n")
	cfgPath := filepath.Join(dir, "agent.hcl")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		return nil, err
	}
	a := &agentProc{addr: fmt.Sprintf("http://127.0.0.1:%d", ports[0]), rpcAddr: fmt.Sprintf("127.0.0.1:%d", ports[1]),
		logPath: filepath.Join(dir, "agent.log"), done: make(chan struct{})}
	logf, err := os.Create(a.logPath)
	if err != nil {
		return nil, err
	}
	a.cmd = agentCommand(dir, append([]string{bin}, append(args, "-config", cfgPath)...)...)
	a.cmd.Stdout, a.cmd.Stderr = logf, logf
	if err := a.cmd.Start(); err != nil {
		logf.Close()
		return nil, err
	}
	go func() { _ = a.cmd.Wait(); logf.Close(); close(a.done) }()
	return a, nil
}

// stop sends SIGTERM to the agent's process group (the agent and its driver
// plugins and tasks), then SIGKILL after 10 s.
func (a *agentProc) stop() {
	pid := a.cmd.Process.Pid
	_ = syscall.Kill(-pid, syscall.SIGTERM)
	select {
	case <-a.done:
	case <-time.After(10 * time.Second):
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	<-a.done
}

func (a *agentProc) exited() bool {
	select {
	case <-a.done:
		return true
	default:
		return false
	}
}

func (a *agentProc) logTail() string {
	b, _ := os.ReadFile(a.logPath)
	lines := strings.Split(string(b), "\n")
	if len(lines) > 80 {
		lines = lines[len(lines)-80:]
	}
	return strings.Join(lines, "\n")
}

// waitReady polls (allowed here: a real process) until the agent has a
// leader and at least n ready nodes.
func (a *agentProc) waitReady(n int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if a.exited() {
			return errors.New("agent exited")
		}
		var leader string
		var nodes []struct{ Status string }
		if getJSON(a.addr+"/v1/status/leader", &leader) == nil && leader != "" &&
			getJSON(a.addr+"/v1/nodes", &nodes) == nil {
			ready := 0
			for _, nd := range nodes {
				if nd.Status == "ready" {
					ready++
				}
			}
			if ready >= n {
				return nil
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("agent at %s: no leader and %d ready nodes after %v", a.addr, n, timeout)
}

// getJSON GETs url and decodes a 200 answer into out.
func getJSON(url string, out any) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("%s: %s: %s", url, resp.Status, b)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// result is one CLI run.
type result struct {
	code        int
	out, errOut string
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.out, r.errOut)
}

// nomadish runs the CLI against the dev agent (through NOMADISH_ADDR).
func nomadish(t *testing.T, args ...string) result {
	t.Helper()
	return nomadishAt(t, dev.addr, args...)
}

func nomadishAt(t *testing.T, addr string, args ...string) result {
	t.Helper()
	return runNomadish(t, addr, nil, args...)
}

// nomadishIn runs the CLI against the dev agent with stdin.
func nomadishIn(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	return runNomadish(t, dev.addr, strings.NewReader(stdin), args...)
}

// runNomadish runs the CLI against the agent at addr (stdin nil: none).
func runNomadish(t *testing.T, addr string, stdin io.Reader, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "NOMADISH_ADDR="+addr, "NOMAD_ADDR=")
	cmd.Stdin = stdin
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{out: out.String(), errOut: errb.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		t.Fatalf("running nomadish %v: %v", args, err)
	}
	return r
}

// writeFile writes a file in the test's temp dir and returns its path.
func writeFile(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// eventually polls cond every 20 ms until it holds or timeout passes.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	last := ""
	for time.Now().Before(deadline) {
		ok, state := cond()
		if ok {
			return
		}
		last = state
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s: not reached after %v; last state: %s", what, timeout, last)
}

// retireNodesIn marks every node of datacenter dc ineligible. Tests that
// start their own client agents call it before stopping them: a stopped
// agent's node stays "ready" until its heartbeat TTL passes, and later
// tests' jobs (datacenters "*") must not be placed there.
func retireNodesIn(t *testing.T, dc string) {
	t.Helper()
	var nodes []struct{ ID, Datacenter string }
	_ = getJSON(dev.addr+"/v1/nodes", &nodes)
	for _, n := range nodes {
		if n.Datacenter == dc {
			nomadish(t, "node", "eligibility", "-disable", n.ID)
		}
	}
}
