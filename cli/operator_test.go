package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

// fakeSchedulerAPI serves the scheduler configuration endpoints with
// check-and-set semantics, like the agent.
type fakeSchedulerAPI struct {
	mu   sync.Mutex
	cfg  structs.SchedulerConfiguration
	puts []string // the ?cas= of each PUT
}

func newFakeSchedulerAPI(t *testing.T) (*fakeSchedulerAPI, map[string]string) {
	f := &fakeSchedulerAPI{cfg: *structs.DefaultSchedulerConfiguration()}
	f.cfg.ModifyIndex = 5
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/operator/scheduler/configuration", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		cfg := f.cfg
		json.NewEncoder(w).Encode(structs.SchedulerConfigurationResponse{SchedulerConfig: &cfg})
	})
	mux.HandleFunc("PUT /v1/operator/scheduler/configuration", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		var cfg structs.SchedulerConfiguration
		if err := json.NewDecoder(r.Body).Decode(&cfg); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		cas := r.URL.Query().Get("cas")
		f.puts = append(f.puts, cas)
		if cas != strconv.FormatUint(f.cfg.ModifyIndex, 10) {
			json.NewEncoder(w).Encode(structs.SchedulerSetConfigurationResponse{Updated: false})
			return
		}
		cfg.ModifyIndex = f.cfg.ModifyIndex + 1
		f.cfg = cfg
		json.NewEncoder(w).Encode(structs.SchedulerSetConfigurationResponse{Updated: true})
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return f, map[string]string{"NOMADISH_ADDR": srv.URL}
}

func TestOperatorSchedulerGetConfig(t *testing.T) {
	_, env := newFakeSchedulerAPI(t)
	code, out, errOut := runCLI(env, "operator", "scheduler", "get-config")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"Scheduler Algorithm           = binpack", "Preemption Service Scheduler  = true", "Preemption Batch Scheduler    = true"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// set-config changes only the flags given, with a check-and-set write.
func TestOperatorSchedulerSetConfig(t *testing.T) {
	f, env := newFakeSchedulerAPI(t)
	code, out, errOut := runCLI(env, "operator", "scheduler", "set-config", "-scheduler-algorithm=spread", "-preempt-batch-scheduler=false")
	if code != 0 || !strings.Contains(out, "updated") {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	p := f.cfg.PreemptionConfig
	if f.cfg.SchedulerAlgorithm != "spread" || p.BatchSchedulerEnabled || !p.ServiceSchedulerEnabled || !p.SystemSchedulerEnabled ||
		!p.SysBatchSchedulerEnabled || len(f.puts) != 1 || f.puts[0] != "5" {
		t.Fatalf("stored %+v after PUTs %v", f.cfg, f.puts)
	}

	code, _, errOut = runCLI(env, "operator", "scheduler", "set-config", "-scheduler-algorithm=roundrobin")
	if code != 1 || !strings.Contains(errOut, "roundrobin") || len(f.puts) != 1 {
		t.Fatalf("bad algorithm: exit %d %q, %d PUTs", code, errOut, len(f.puts))
	}
}
