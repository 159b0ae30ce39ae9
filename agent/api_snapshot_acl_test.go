package agent

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/nomad/api"

	"github.com/nomadish/nomadish/agent/config"
	"github.com/nomadish/nomadish/structs"
)

// TestAllocSnapshotACL: with ACLs on, the snapshot route (what a migrating
// replacement fetches) answers 403 without a token, with a token lacking
// read-fs, with the migrate token of another allocation and with one made
// from another node's secret; 200 and the tar of alloc/data with a
// management token, a read-fs token, or the allocation's migrate token
// made with this node's secret.
func TestAllocSnapshotACL(t *testing.T) {
	cfg := config.DevConfig()
	cfg.Name, cfg.Ports, cfg.ACL.Enabled = "snapacl", config.Ports{}, true
	a, err := New(cfg, hclog.New(&hclog.LoggerOptions{Name: "agent", Level: hclog.Info, Output: t.Output()}),
		WithPluginExecutable(nomadishBinary(t)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Shutdown() })
	anon, _ := api.NewClient(&api.Config{Address: "http://" + a.HTTPAddr()})
	var root *api.ACLToken
	waitFor(t, 10*time.Second, "ACL bootstrap", func() (err error) { root, _, err = anon.ACLTokens().Bootstrap(nil); return err })
	c, _ := api.NewClient(&api.Config{Address: anon.Address(), SecretID: root.SecretID})
	policy := func(name, rules string) string {
		if _, err := c.ACLPolicies().Upsert(&api.ACLPolicy{Name: name, Rules: rules}, nil); err != nil {
			t.Fatal(err)
		}
		tok, _, err := c.ACLTokens().Create(&api.ACLToken{Type: "client", Policies: []string{name}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return tok.SecretID
	}
	readFS := policy("fs", `namespace "default" { capabilities = ["read-fs"] }`)
	readJob := policy("rj", `namespace "default" { capabilities = ["read-job"] }`)

	job := api.NewServiceJob("snap", "snap", "global", 50)
	job.Datacenters = []string{"dc1"}
	task := api.NewTask("t", "raw_exec").SetConfig("command", "/bin/sh").
		SetConfig("args", []string{"-c", `echo kept > "$NOMAD_ALLOC_DIR/data/f"; while true; do sleep 0.2; done`})
	job.AddTaskGroup(api.NewTaskGroup("g", 1).AddTask(task))
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	alloc := runningAlloc(t, c, "snap", "")
	secret := a.client.Node().SecretID
	get := func(token string) (int, []string) {
		req, _ := http.NewRequest(http.MethodGet, anon.Address()+"/v1/client/allocation/"+alloc.ID+"/snapshot", nil)
		if token != "" {
			req.Header.Set("X-Nomad-Token", token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return resp.StatusCode, nil
		}
		var names []string
		tr := tar.NewReader(resp.Body)
		for {
			h, err := tr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("tar: %v", err)
			}
			names = append(names, h.Name)
		}
		return resp.StatusCode, names
	}
	waitFor(t, 10*time.Second, "alloc/data/f in the snapshot", func() error {
		if code, names := get(root.SecretID); code != 200 || !contains(names, "alloc/data/f") {
			return fmt.Errorf("%d %v", code, names)
		}
		return nil
	})
	for _, tc := range []struct {
		name, token string
		want        int
	}{
		{"no token", "", 403},
		{"read-job only", readJob, 403},
		{"another alloc's migrate token", structs.GenerateMigrateToken(structs.GenerateUUID(), secret), 403},
		{"made with another node's secret", structs.GenerateMigrateToken(alloc.ID, structs.GenerateUUID()), 403},
		{"the node secret itself", secret, 403},
		{"management", root.SecretID, 200},
		{"read-fs", readFS, 200},
		{"the migrate token", structs.GenerateMigrateToken(alloc.ID, secret), 200},
	} {
		code, names := get(tc.token)
		if code != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, code, tc.want)
		}
		if tc.want == 200 && !contains(names, "alloc/data/f") {
			t.Errorf("%s: tar entries %v lack alloc/data/f", tc.name, names)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
