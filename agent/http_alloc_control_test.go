package agent

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

// fakeCtl is the agent's client with alloc controls: it records calls and
// answers with err.
type fakeCtl struct {
	fakeLogs
	err   error
	calls []string
	stats *structs.AllocResourceUsage
}

var _ AllocController = (*fakeCtl)(nil)

func (f *fakeCtl) SignalAlloc(allocID, task, signal string) error {
	f.calls = append(f.calls, "signal "+allocID+" "+task+" "+signal)
	return f.err
}

func (f *fakeCtl) RestartAlloc(_ context.Context, allocID, task string) error {
	f.calls = append(f.calls, "restart "+allocID+" "+task)
	return f.err
}

func (f *fakeCtl) AllocStats(allocID string) (*structs.AllocResourceUsage, error) {
	f.calls = append(f.calls, "stats "+allocID)
	return f.stats, f.err
}

func ctlServer(nodeOfAlloc string, ctl *fakeCtl) *httpServer {
	s, _ := logsServer(nodeOfAlloc, nil)
	s.Logs = ctl
	return s
}

func TestAllocSignalEndpoint(t *testing.T) {
	ctl := &fakeCtl{fakeLogs: fakeLogs{nodeID: "n1"}}
	s := ctlServer("n1", ctl)
	path := "/v1/client/allocation/" + logsAllocID + "/signal"
	wantStatus(t, do(t, s, "PUT", path, `{"Task":"t","Signal":"SIGUSR1"}`), 200, `"Index":0`)
	wantStatus(t, do(t, s, "POST", path, `{"Signal":"HUP"}`), 200, "")
	if len(ctl.calls) != 2 || ctl.calls[0] != "signal "+logsAllocID+" t SIGUSR1" || ctl.calls[1] != "signal "+logsAllocID+"  HUP" {
		t.Fatalf("calls %q", ctl.calls)
	}
	for _, tc := range []struct {
		path, body string
		code       int
		has        string
	}{
		{path, `{"Task":"t"}`, 400, "missing signal"},
		{path, ``, 400, "body is empty"},
		{path, `{"Signal":`, 400, "invalid JSON"},
		{path, `{"Task":"nope","Signal":"SIGUSR1"}`, 404, `unknown task "nope"`},
		{"/v1/client/allocation/00000000-0000-4000-8000-00000000dead/signal", `{"Signal":"SIGUSR1"}`, 404, "unknown allocation"},
	} {
		wantStatus(t, do(t, s, "PUT", tc.path, tc.body), tc.code, tc.has)
	}
	// The client's coded errors pass through.
	ctl.err = structs.NewCodedError(400, "task not running")
	wantStatus(t, do(t, s, "PUT", path, `{"Task":"t","Signal":"SIGUSR1"}`), 400, "task not running")
	// An allocation of another node is not served here.
	wantStatus(t, do(t, ctlServer("n2", ctl), "PUT", path, `{"Signal":"SIGUSR1"}`), 501, "not on this agent's client")
	wantStatus(t, do(t, s, "GET", path, ""), 405, "")
}

func TestAllocRestartEndpoint(t *testing.T) {
	ctl := &fakeCtl{fakeLogs: fakeLogs{nodeID: "n1"}}
	s := ctlServer("n1", ctl)
	path := "/v1/client/allocation/" + logsAllocID + "/restart"
	wantStatus(t, do(t, s, "PUT", path, `{"TaskName":"t"}`), 200, "")
	wantStatus(t, do(t, s, "PUT", path, `{"AllTasks":true}`), 200, "")
	wantStatus(t, do(t, s, "POST", path, ``), 200, "")
	want := []string{"restart " + logsAllocID + " t", "restart " + logsAllocID + " ", "restart " + logsAllocID + " "}
	if len(ctl.calls) != 3 || ctl.calls[0] != want[0] || ctl.calls[1] != want[1] || ctl.calls[2] != want[2] {
		t.Fatalf("calls %q", ctl.calls)
	}
	wantStatus(t, do(t, s, "PUT", path, `{"TaskName":"t","AllTasks":true}`), 400, "not both")
	wantStatus(t, do(t, s, "PUT", path, `{"TaskName":"x"}`), 404, `unknown task "x"`)
	ctl.err = structs.NewCodedError(400, "task not running")
	wantStatus(t, do(t, s, "PUT", path, `{"TaskName":"t"}`), 400, "task not running")
}

func TestAllocStatsEndpoint(t *testing.T) {
	tasks := map[string]*structs.TaskResourceUsage{"t": {Timestamp: 7, ResourceUsage: &structs.ResourceUsage{
		MemoryStats: &structs.MemoryStats{RSS: 1 << 20, Measured: []string{"RSS"}}, CpuStats: &structs.CpuStats{Percent: 12.5, TotalTicks: 300}}}}
	ctl := &fakeCtl{fakeLogs: fakeLogs{nodeID: "n1"}, stats: structs.SumAllocUsage(tasks)}
	s := ctlServer("n1", ctl)
	rec := do(t, s, "GET", "/v1/client/allocation/"+logsAllocID+"/stats", "")
	wantStatus(t, rec, 200, "")
	var got map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	// Nomad's shape, field by field.
	ru := got["ResourceUsage"].(map[string]any)
	mem, cpu := ru["MemoryStats"].(map[string]any), ru["CpuStats"].(map[string]any)
	for _, k := range []string{"RSS", "Cache", "Swap", "Usage", "MaxUsage", "KernelUsage", "KernelMaxUsage", "Measured"} {
		if _, ok := mem[k]; !ok {
			t.Errorf("MemoryStats lacks %s", k)
		}
	}
	for _, k := range []string{"SystemMode", "UserMode", "TotalTicks", "ThrottledPeriods", "ThrottledTime", "Percent", "Measured"} {
		if _, ok := cpu[k]; !ok {
			t.Errorf("CpuStats lacks %s", k)
		}
	}
	task := got["Tasks"].(map[string]any)["t"].(map[string]any)
	if mem["RSS"].(float64) != 1<<20 || cpu["TotalTicks"].(float64) != 300 || got["Timestamp"].(float64) != 7 ||
		task["Timestamp"].(float64) != 7 || task["Pids"] != nil {
		t.Fatalf("stats %s", rec.Body.String())
	}
	wantStatus(t, do(t, s, "GET", "/v1/client/allocation/00000000-0000-4000-8000-00000000dead/stats", ""), 404, "unknown allocation")
}

func TestAllocStopEndpoint(t *testing.T) {
	f := newFakeRPC().on(structs.AllocStopRPC, func(args, reply any) error {
		if args.(*structs.AllocStopRequest).AllocID != logsAllocID {
			return structs.NewCodedError(404, "unknown allocation")
		}
		r := reply.(*structs.AllocStopResponse)
		r.EvalID, r.Index = "e1", 42
		return nil
	})
	s := newHTTPServer(httpDeps{RPC: f})
	rec := do(t, s, "PUT", "/v1/allocation/"+logsAllocID+"/stop", "")
	wantStatus(t, rec, 200, `"EvalID":"e1"`)
	if rec.Header().Get("X-Nomad-Index") != "42" || !json.Valid(rec.Body.Bytes()) {
		t.Fatalf("headers %v body %s", rec.Header(), rec.Body.String())
	}
	wantStatus(t, do(t, s, "POST", "/v1/allocation/other/stop", ""), 404, "unknown allocation")
}
