package cli

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
)

func TestNodeMetaApplyAndRead(t *testing.T) {
	var mu sync.Mutex
	var applied []string
	const node = "8a1d3c2e-0000-0000-0000-000000000001"
	rec, env := newRecordingAPI(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.Method + " " + r.URL.Path {
		case "GET /v1/nodes":
			w.Write([]byte(`[{"ID":"` + node + `","Name":"n1"}]`))
		case "POST /v1/client/metadata":
			b, _ := io.ReadAll(r.Body)
			mu.Lock()
			applied = append(applied, string(b))
			mu.Unlock()
			w.Write([]byte(`{}`))
		case "GET /v1/client/metadata":
			w.Write([]byte(`{"Meta":{"rack":"r1","gpu":"a100"},"Dynamic":{"gpu":"a100","zone":null},"Static":{"rack":"r1","zone":"z1"}}`))
		}
	})
	if code, _, errOut := runCLI(env, "node", "meta", "apply", "-node-id=8a1d", "-unset=zone, old", "gpu=a100", "x=a=b"); code != 0 {
		t.Fatalf("apply: exit %d %q", code, errOut)
	}
	mu.Lock()
	var body struct {
		NodeID string
		Meta   map[string]*string
	}
	json.Unmarshal([]byte(applied[0]), &body)
	mu.Unlock()
	if body.NodeID != node || len(body.Meta) != 4 || *body.Meta["gpu"] != "a100" || *body.Meta["x"] != "a=b" ||
		body.Meta["zone"] != nil || body.Meta["old"] != nil {
		t.Fatalf("applied %+v", body)
	}
	code, out, errOut := runCLI(env, "node", "meta", "read")
	want := "All Meta\ngpu  = a100\nrack = r1\nDynamic Meta\ngpu  = a100\nzone = <unset>\nStatic Meta\nrack = r1\nzone = z1\n"
	if code != 0 || out != want {
		t.Fatalf("read: exit %d, stderr %q, out:\n%s\nwant:\n%s", code, errOut, out, want)
	}
	code, out, _ = runCLI(env, "node", "meta", "read", "-json", "-node-id", node)
	var resp nodeMetaResponse
	if code != 0 || json.Unmarshal([]byte(out), &resp) != nil || resp.Dynamic["zone"] != nil || resp.Static["zone"] != "z1" {
		t.Fatalf("read -json: exit %d, out %s", code, out)
	}
	calls := strings.Join(rec.calls(), "\n")
	if !strings.Contains(calls, "GET /v1/client/metadata\n") || !strings.Contains(calls, "GET /v1/client/metadata?node_id="+node) {
		t.Fatalf("calls:\n%s", calls)
	}
	for _, args := range [][]string{{"apply"}, {"apply", "novalue"}, {"read", "extra"}} {
		if code, _, _ := runCLI(env, append([]string{"node", "meta"}, args...)...); code != 1 {
			t.Errorf("%v: exit %d, want 1", args, code)
		}
	}
}
