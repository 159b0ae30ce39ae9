package full

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/nomadish/nomadish/internal/testbin"
)

// Server is one nomadish server agent run as a subprocess of the binary,
// with its own data dir (raft on disk) and enable_debug for pprof.
type Server struct {
	Name    string
	HTTP    string // http://127.0.0.1:port
	RPC     string // 127.0.0.1:port
	Serf    string
	DataDir string

	cmd  *exec.Cmd
	log  *os.File
	done chan struct{} // closed once the process exited
	hc   *http.Client
}

// StartServers starts n (1 or 3) server agents of the binary bin under
// dir (dir/server-<i>), joined into one cluster, and waits until they
// agree on a leader. extra is more agent HCL for each (e.g. a server
// block's keys are not allowed twice, so it is for top-level blocks).
// env is added to the servers' environment (GOGC, GOMEMLIMIT). On error
// every started server is stopped.
func StartServers(bin, dir string, n int, extra string, env []string) ([]*Server, error) {
	if n != 1 && n != 3 {
		return nil, fmt.Errorf("-servers: %d servers: want 1 or 3", n)
	}
	ports, err := testbin.FreePorts(3 * n)
	if err != nil {
		return nil, err
	}
	var join []string
	for i := 0; i < n; i++ {
		join = append(join, fmt.Sprintf("%q", fmt.Sprintf("127.0.0.1:%d", ports[3*i+2])))
	}
	var servers []*Server
	for i := 0; i < n; i++ {
		joinHCL := ""
		if n > 1 {
			joinHCL = fmt.Sprintf("  server_join {\n    retry_join = [%s]\n    retry_interval = \"1s\"\n  }\n", strings.Join(join, ", "))
		}
		s, err := startServer(bin, filepath.Join(dir, fmt.Sprintf("server-%d", i)), fmt.Sprintf("sim-server-%d", i),
			ports[3*i:3*i+3], n, joinHCL, extra, env)
		if err != nil {
			StopServers(servers)
			return nil, err
		}
		servers = append(servers, s)
	}
	if err := waitLeader(servers, 90*time.Second); err != nil {
		StopServers(servers)
		return nil, err
	}
	return servers, nil
}

func startServer(bin, dir, name string, ports []int, expect int, joinHCL, extra string, env []string) (*Server, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("making the server's directory: %w", err)
	}
	data := filepath.Join(dir, "data")
	cfg := fmt.Sprintf(`name = %q
data_dir = %q
bind_addr = "127.0.0.1"
log_level = "WARN"
enable_debug = true
ports {
  http = %d
  rpc  = %d
  serf = %d
}
server {
  enabled          = true
  bootstrap_expect = %d
%s}
%s
`, name, data, ports[0], ports[1], ports[2], expect, joinHCL, extra)
	cfgPath := filepath.Join(dir, "agent.hcl")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		return nil, err
	}
	logf, err := os.Create(filepath.Join(dir, "agent.log"))
	if err != nil {
		return nil, err
	}
	s := &Server{Name: name, HTTP: fmt.Sprintf("http://127.0.0.1:%d", ports[0]),
		RPC: fmt.Sprintf("127.0.0.1:%d", ports[1]), Serf: fmt.Sprintf("127.0.0.1:%d", ports[2]), DataDir: data,
		log: logf, done: make(chan struct{}), hc: &http.Client{Timeout: 10 * time.Minute}}
	s.cmd = exec.Command(bin, "agent", "-config", cfgPath)
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	if len(env) > 0 {
		s.cmd.Env = append(os.Environ(), env...)
	}
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := s.cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("starting server %s (%s): %w", name, bin, err)
	}
	go func() { _ = s.cmd.Wait(); close(s.done) }()
	return s, nil
}

// waitLeader waits until every server names the same, non-empty leader.
func waitLeader(servers []*Server, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		leaders := map[string]bool{}
		for _, s := range servers {
			select {
			case <-s.done:
				return fmt.Errorf("server %s exited (log: %s)", s.Name, s.log.Name())
			default:
			}
			var l string
			if err := s.Get("/v1/status/leader", &l); err == nil {
				leaders[l] = true
			} else {
				leaders[""] = true
			}
		}
		if len(leaders) == 1 && !leaders[""] {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the servers have no leader after %s (logs under %s)", wait, filepath.Dir(filepath.Dir(servers[0].log.Name())))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// Leader returns the server that leads now (by its RPC address).
func Leader(servers []*Server) (*Server, error) {
	var l string
	if err := servers[0].Get("/v1/status/leader", &l); err != nil {
		return nil, err
	}
	for _, s := range servers {
		if s.RPC == l {
			return s, nil
		}
	}
	return nil, fmt.Errorf("the leader %q is none of the servers started", l)
}

// StopServers stops every server (SIGINT, SIGKILL after 10 s).
func StopServers(servers []*Server) {
	for _, s := range servers {
		_ = s.cmd.Process.Signal(os.Interrupt)
	}
	for _, s := range servers {
		select {
		case <-s.done:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
			<-s.done
		}
		s.log.Close()
	}
}

// Pid is the server process's id.
func (s *Server) Pid() int { return s.cmd.Process.Pid }

// Get decodes the JSON answer of GET path into out (out nil: discard it
// and return the byte count).
func (s *Server) Get(path string, out any) error {
	_, err := s.get(path, out)
	return err
}

func (s *Server) get(path string, out any) (int64, error) {
	resp, err := s.hc.Get(s.HTTP + path)
	if err != nil {
		return 0, fmt.Errorf("GET %s: %w", path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		return 0, fmt.Errorf("GET %s of %s: %s: %s", path, s.Name, resp.Status, b)
	}
	if out == nil {
		return io.Copy(io.Discard, resp.Body)
	}
	return 0, json.NewDecoder(resp.Body).Decode(out)
}

// Body returns the answer of GET path as a reader the caller closes.
func (s *Server) Body(path string) (io.ReadCloser, error) {
	resp, err := s.hc.Get(s.HTTP + path)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("GET %s of %s: %s", path, s.Name, resp.Status)
	}
	return resp.Body, nil
}
