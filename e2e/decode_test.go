package e2e

import (
	"io"
	"net/http"
	"net/rpc"
	"strings"
	"testing"

	"github.com/nomadish/nomadish/rpcclient"
	"github.com/nomadish/nomadish/structs"
)

// TestHostileInputDoesNotKillTheAgent sends the inputs to the real
// agent as an attacker with network access would: RPCs over TCP with a nil
// task group and a nil alloc, the nil group over HTTP, and a cross-origin
// text/plain job registration. Each is refused, nothing is registered, and
// the agent keeps answering.
func TestHostileInputDoesNotKillTheAgent(t *testing.T) {
	conn, err := rpcclient.Dial(dev.rpcAddr, rpcclient.RPCNomad, nil, rpcclient.DialTimeout)
	if err != nil {
		t.Fatal(err)
	}
	c := rpc.NewClientWithCodec(rpcclient.NewCodec(conn))
	defer c.Close()
	rpcs := []struct {
		method      string
		args, reply any
	}{
		{structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: &structs.Job{ID: "hostile-rpc", TaskGroups: []*structs.TaskGroup{nil}}}, &structs.JobRegisterResponse{}},
		{structs.NodeUpdateAllocRPC, &structs.AllocUpdateRequest{Alloc: []*structs.Allocation{nil}}, &structs.GenericResponse{}},
	}
	for _, r := range rpcs {
		err := c.Call(r.method, r.args, r.reply)
		if err == nil || !strings.Contains(err.Error(), "is null") {
			t.Fatalf("%s: %v, want a 400 naming the null member", r.method, err)
		}
	}
	var leader string
	if err := c.Call(structs.StatusLeaderRPC, &structs.GenericRequest{}, &leader); err != nil || leader == "" {
		t.Fatalf("the RPC connection no longer answers: %q %v", leader, err)
	}

	send := func(method, path, body string, hdr map[string]string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, dev.addr+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v (agent exited: %v)\n%s", method, path, err, dev.exited(), dev.logTail())
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	job := `{"Job": {"ID": "hostile-http", "TaskGroups": [{"Name": "g", "Tasks": [{"Name": "t", "Driver": "raw_exec", "Config": {"command": "/bin/true"}}]}]}}`
	for _, c := range []struct {
		name string
		body string
		hdr  map[string]string
		code int
		has  string
	}{
		{"nil group", `{"Job": {"ID": "hostile-http", "TaskGroups": [null]}}`, nil, 400, "Job.TaskGroups[0] is null"},
		{"cross-origin text/plain", job, map[string]string{"Origin": "http://evil.example", "Content-Type": "text/plain"}, 403, "cross-origin request refused"},
		{"text/plain", job, map[string]string{"Content-Type": "text/plain"}, 415, "unsupported Content-Type"},
	} {
		if code, body := send("POST", "/v1/jobs", c.body, c.hdr); code != c.code || !strings.Contains(body, c.has) {
			t.Fatalf("%s: %d %q, want %d with %q", c.name, code, body, c.code, c.has)
		}
	}
	for _, id := range []string{"hostile-rpc", "hostile-http"} {
		if code, body := send("GET", "/v1/job/"+id, "", nil); code != 404 {
			t.Fatalf("job %s after refused requests: %d %s", id, code, body)
		}
	}
	if code, body := send("GET", "/v1/status/leader", "", nil); code != 200 || dev.exited() {
		t.Fatalf("agent after hostile input: %d %s", code, body)
	}
}
