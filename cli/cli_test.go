package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/version"
)

func TestUsageAndUnknown(t *testing.T) {
	for _, args := range [][]string{{}, {"bogus"}, {"job", "bogus"}, {"job", "status", "-bogus"}, {"version", "extra"}} {
		code, out, errOut := runCLI(nil, args...)
		if code != 1 || out != "" || !strings.Contains(errOut, "Usage: nomadish") {
			t.Errorf("%q: exit %d, out %q, err %q", args, code, out, errOut)
		}
	}
	if code, out, _ := runCLI(nil, "-help"); code != 0 || !strings.Contains(out, "job run") || strings.Contains(out, "plugin") {
		t.Errorf("-help: exit %d, out %q", code, out)
	}
	if code, out, _ := runCLI(nil, "job", "run", "-h"); code != 0 || !strings.Contains(out, "-detach") {
		t.Errorf("job run -h: exit %d, out %q", code, out)
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := runCLI(nil, "version")
	if code != 0 || !strings.HasPrefix(out, "nomadish v0.1.0") {
		t.Fatalf("exit %d, out %q", code, out)
	}
	old := version.GitCommit
	version.GitCommit = "abc1234"
	defer func() { version.GitCommit = old }()
	if _, out, _ := runCLI(nil, "version"); out != "nomadish v0.1.0 (abc1234)\n" {
		t.Fatalf("out %q", out)
	}
}

func TestAddressSources(t *testing.T) {
	f := newFakeAPI(t)
	for name, c := range map[string]struct {
		env  map[string]string
		args []string
	}{
		"flag":          {nil, []string{"job", "status", "-address", f.srv.URL}},
		"global flag":   {nil, []string{"-address=" + f.srv.URL, "status"}},
		"NOMADISH_ADDR": {map[string]string{"NOMADISH_ADDR": f.srv.URL, "NOMAD_ADDR": "http://127.0.0.1:1"}, []string{"status"}},
		"NOMAD_ADDR":    {map[string]string{"NOMAD_ADDR": strings.TrimPrefix(f.srv.URL, "http://")}, []string{"status"}},
	} {
		before := f.requestCount("GET /v1/jobs")
		code, out, errOut := runCLI(c.env, c.args...)
		if code != 0 || out != "No running jobs\n" || f.requestCount("GET /v1/jobs") != before+1 {
			t.Errorf("%s: exit %d, out %q, err %q", name, code, out, errOut)
		}
	}
	f.srv.Close()
	code, _, errOut := runCLI(map[string]string{"NOMADISH_ADDR": f.srv.URL}, "status")
	if code != 1 || !strings.HasPrefix(errOut, "Error querying jobs: ") {
		t.Errorf("server down: exit %d, err %q", code, errOut)
	}
}

func TestJobStatus(t *testing.T) {
	f := newFakeAPI(t)
	f.jobs = []*structs.JobListStub{
		{ID: "example", Type: "batch", Priority: 50, Status: "dead", SubmitTime: fixedNow.UnixNano()},
		{ID: "web-service", Type: "service", Priority: 70, Status: "running"},
	}
	code, out, _ := f.run("job", "status")
	t.Log("\n" + out)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 3 || !strings.HasPrefix(lines[0], "ID           Type     Priority  Status   Submit Date") ||
		!strings.HasPrefix(lines[2], "web-service  service  70        running") {
		t.Fatalf("exit %d, table:\n%s", code, out)
	}

	allocFixture(f, "t")
	f.job["example"] = &structs.Job{ID: "example", Name: "example", Type: "batch", Priority: 50, Status: "dead",
		Datacenters: []string{"dc1"}, TaskGroups: []*structs.TaskGroup{{Name: "g"}}}
	code, out, _ = f.run("job", "status", "example")
	t.Log("\n" + out)
	for _, want := range []string{"ID          = example\n", "Type        = batch\n",
		"Task Group  Starting  Running  Failed  Complete  Lost  Unknown\ng           0         0        0       1         0     0",
		"ID        Node ID   Task Group  Desired  Status    Created  Modified",
		"a1a1a1a1  n1n1n1n1  g           run      complete  5s ago   2s ago"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("exit %d, output lacks %q", code, want)
		}
	}
	if code, _, errOut := f.run("job", "status", "nope"); code != 1 || !strings.Contains(errOut, `no job(s) with prefix or id "nope" found`) {
		t.Errorf("missing job: exit %d, %q", code, errOut)
	}
}

func TestNodeAndEvalStatus(t *testing.T) {
	f := newFakeAPI(t)
	allocFixture(f, "t")
	n := &structs.Node{ID: nodeID, Name: "dev", Datacenter: "dc1", NodePool: "default", Status: "ready",
		SchedulingEligibility: "eligible", Drivers: map[string]*structs.DriverInfo{"raw_exec": {Detected: true, Healthy: true}},
		NodeResources: &structs.NodeResources{Cpu: structs.NodeCpuResources{CpuShares: 8000, TotalCpuCores: 4},
			Memory: structs.NodeMemoryResources{MemoryMB: 16000}}}
	f.node[nodeID] = n
	f.nodes = []*structs.NodeListStub{n.Stub()}
	code, out, _ := f.run("node", "status")
	if code != 0 || !strings.Contains(out, "n1n1n1n1  default    dc1  dev   <none>  false  eligible     ready") {
		t.Errorf("node list: exit %d\n%s", code, out)
	}
	code, out, _ = f.run("node", "status", "-verbose", "n1")
	if code != 0 || !strings.Contains(out, "ID          = "+nodeID) || !strings.Contains(out, "Drivers     = raw_exec") ||
		!strings.Contains(out, "8000 MHz") || !strings.Contains(out, allocID) || strings.Contains(out, allocID2+"  ") == false {
		t.Errorf("node status: exit %d\n%s", code, out)
	}

	e := eval(evalID, "complete")
	e.CreateTime = fixedNow.Add(-time.Minute).UnixNano()
	e.FailedTGAllocs = map[string]*structs.AllocMetric{"g": {NodesEvaluated: 0}}
	f.evals[evalID] = []*structs.Evaluation{e}
	code, out, _ = f.run("eval", "status", "e1")
	for _, want := range []string{"Create Time        = 1m ago", "Placement Failures = true", "No nodes were eligible for evaluation"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("eval status: exit %d, lacks %q\n%s", code, want, out)
		}
	}
}

func TestRelTime(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0s ago", 5 * time.Second: "5s ago", 3*time.Minute + 12*time.Second: "3m12s ago",
		3 * time.Minute: "3m ago", 2*time.Hour + 5*time.Minute: "2h5m ago", 75 * time.Hour: "3d3h ago",
		-10 * time.Second: "10s from now",
	} {
		if got := relTime(fixedNow, fixedNow.Add(-d)); got != want {
			t.Errorf("relTime(-%v) = %q, want %q", d, got, want)
		}
	}
	if got := relTime(fixedNow, time.Time{}); got != "<none>" {
		t.Errorf("zero time: %q", got)
	}
}
