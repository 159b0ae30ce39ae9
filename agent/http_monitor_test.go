package agent

import (
	"bufio"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/nomad/api"
)

// countingSinks is an intercept logger that counts its registered sinks.
type countingSinks struct {
	hclog.InterceptLogger
	mu sync.Mutex
	n  int
}

func (c *countingSinks) RegisterSink(s hclog.SinkAdapter) {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
	c.InterceptLogger.RegisterSink(s)
}

func (c *countingSinks) DeregisterSink(s hclog.SinkAdapter) {
	c.mu.Lock()
	c.n--
	c.mu.Unlock()
	c.InterceptLogger.DeregisterSink(s)
}

func (c *countingSinks) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

func monitorServer(t *testing.T) (*countingSinks, *api.Client, string) {
	t.Helper()
	il := &countingSinks{InterceptLogger: hclog.NewInterceptLogger(&hclog.LoggerOptions{Name: "agent", Level: hclog.Info, Output: t.Output()})}
	self := func() *agentInfo {
		return &agentInfo{MemberName: "s1.global", Stats: map[string]map[string]string{"nomad": {"leader": "true"}}}
	}
	ts := httptest.NewServer(newHTTPServer(httpDeps{RPC: newFakeRPC(), Self: self, LogSinks: il}))
	t.Cleanup(ts.Close)
	c, err := api.NewClient(&api.Config{Address: ts.URL})
	if err != nil {
		t.Fatal(err)
	}
	return il, c, ts.URL
}

// The official client's Agent().Monitor at trace level sees trace lines
// the agent (at info) does not print; the sink goes when the request ends.
func TestOfficialClientAgentMonitor(t *testing.T) {
	il, c, _ := monitorServer(t)
	stop := make(chan struct{})
	frames, errs := c.Agent().Monitor(stop, &api.QueryOptions{Params: map[string]string{"log_level": "trace"}})
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
	if il.count() != 1 {
		t.Fatalf("%d sinks registered, want 1", il.count())
	}
	il.Named("raft").Trace("a trace line", "k", "v")
	il.Debug("a debug line")
	var got strings.Builder
	deadline := time.After(10 * time.Second)
	for !strings.Contains(got.String(), "a debug line") {
		select {
		case f := <-frames:
			got.Write(f.Data)
		case err := <-errs:
			t.Fatal(err)
		case <-deadline:
			t.Fatalf("frames so far: %q", got.String())
		}
	}
	if !strings.Contains(got.String(), "[TRACE] agent.raft: a trace line: k=v") {
		t.Fatalf("frames %q", got.String())
	}
	close(stop)
	il.Info("unblocks the client's reader") // it looks at stop between frames
	waitFor(t, 10*time.Second, "the sink removed", func() error {
		if n := il.count(); n != 0 {
			il.Info("again")
			return fmt.Errorf("%d sinks", n)
		}
		return nil
	})
}

func TestAgentMonitorPlainAndErrors(t *testing.T) {
	il, _, url := monitorServer(t)
	resp, err := http.Get(url + "/v1/agent/monitor?plain=true&log_level=warn&log_json=true&server_id=s1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("status %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	il.Info("below warn")
	il.Warn("a warning")
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || !strings.Contains(line, `"@message":"a warning"`) || !strings.Contains(line, `"@level":"warn"`) {
		t.Fatalf("line %q, %v", line, err)
	}
	for q, want := range map[string]int{
		"log_level=loud": 400, "plain=maybe": 400, "server_id=s9": 400, "node_id=elsewhere": 400,
	} {
		r, err := http.Get(url + "/v1/agent/monitor?" + q)
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		if r.StatusCode != want {
			t.Errorf("%s: status %d, want %d", q, r.StatusCode, want)
		}
	}
}

// A reader that does not read loses lines, counted, and logging never
// waits for it.
func TestLogMonitorDropsForSlowReader(t *testing.T) {
	il := hclog.NewInterceptLogger(&hclog.LoggerOptions{Level: hclog.Error, Output: &strings.Builder{}})
	mon := newLogMonitor(il, hclog.Debug, false)
	for i := range monitorBuffer + 10 {
		il.Debug("line", "i", i)
	}
	if len(mon.lines) != monitorBuffer {
		t.Fatalf("%d lines held, want %d", len(mon.lines), monitorBuffer)
	}
	if note := mon.takeDropped(); !strings.Contains(note, "dropped 10 log lines") {
		t.Fatalf("note %q", note)
	}
	if note := mon.takeDropped(); note != "" {
		t.Fatalf("second note %q", note)
	}
	mon.Stop()
	<-mon.lines
	il.Debug("after stop")
	if len(mon.lines) != monitorBuffer-1 {
		t.Fatal("a line arrived after Stop")
	}
}
