package agent

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/nomad/api"

	"github.com/nomadish/nomadish/agent/config"
)

// serverAgent starts an in-process dev server (no client) and waits for
// its root key, so variables can be written.
func serverAgent(t *testing.T, acl bool) (*Agent, *api.Client) {
	t.Helper()
	cfg := config.DevConfig()
	cfg.Name = "vars"
	cfg.Ports = config.Ports{}
	cfg.Client.Enabled = false
	cfg.ACL.Enabled = acl
	a, err := New(cfg, hclog.New(&hclog.LoggerOptions{Name: "agent", Level: hclog.Info, Output: t.Output()}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Shutdown() })
	c, err := api.NewClient(&api.Config{Address: "http://" + a.HTTPAddr()})
	if err != nil {
		t.Fatal(err)
	}
	return a, c
}

// waitRootKey waits for a leader: the first variable write makes the root key.
func waitRootKey(t *testing.T, c *api.Client) {
	t.Helper()
	waitFor(t, 10*time.Second, "a leader", func() error {
		if l, err := c.Status().Leader(); err != nil || l == "" {
			return errors.New("no leader yet")
		}
		return nil
	})
}

// TestAPIVariablesOfficialClient drives /v1/var and /v1/vars with the
// official client: create, read, update, CAS conflicts, list by prefix,
// locks, delete, path validation, rotation.
func TestAPIVariablesOfficialClient(t *testing.T) {
	_, c := serverAgent(t, false)
	waitRootKey(t, c)
	vars := c.Variables()

	v, _, err := vars.Create(&api.Variable{Path: "app/db", Items: api.VariableItems{"user": "u", "pass": "hunter2"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v.Namespace != "default" || v.Path != "app/db" || v.Items["pass"] != "hunter2" || v.CreateIndex == 0 || v.ModifyIndex != v.CreateIndex || v.CreateTime == 0 {
		t.Fatalf("created %+v", v)
	}
	got, qm, err := vars.Read("app/db", nil)
	if err != nil || got.Items["user"] != "u" || qm.LastIndex < v.ModifyIndex {
		t.Fatalf("read %+v %+v: %v", got, qm, err)
	}
	if _, _, err := vars.Read("app/none", nil); !errors.Is(err, api.ErrVariablePathNotFound) {
		t.Fatalf("read of a missing variable: %v", err)
	}
	// CheckedCreate on an existing path: 409 with the current variable.
	_, _, err = vars.CheckedCreate(&api.Variable{Path: "app/db", Items: api.VariableItems{"a": "b"}}, nil)
	var cas api.ErrCASConflict
	if !errors.As(err, &cas) || cas.Conflict.ModifyIndex != v.ModifyIndex || cas.Conflict.Items["pass"] != "hunter2" {
		t.Fatalf("CheckedCreate conflict: %v %+v", err, cas.Conflict)
	}
	// CheckedUpdate with the current index passes, with a stale one conflicts.
	v.Items["pass"] = "second"
	v2, _, err := vars.CheckedUpdate(v, nil)
	if err != nil || v2.ModifyIndex <= v.ModifyIndex || v2.CreateIndex != v.CreateIndex {
		t.Fatalf("CheckedUpdate: %+v %v", v2, err)
	}
	if _, _, err := vars.CheckedUpdate(v, nil); !errors.As(err, &cas) || cas.Conflict.ModifyIndex != v2.ModifyIndex {
		t.Fatalf("stale CheckedUpdate: %v", err)
	}
	if _, _, err := vars.Update(&api.Variable{Path: "app/web", Items: api.VariableItems{"k": "v"}}, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := vars.Create(&api.Variable{Path: "other/x", Items: api.VariableItems{"k": "v"}}, nil); err != nil {
		t.Fatal(err)
	}
	list, _, err := vars.PrefixList("app/", nil)
	if err != nil || len(list) != 2 || list[0].Path != "app/db" || list[1].Path != "app/web" {
		t.Fatalf("prefix list: %+v %v", list, err)
	}
	all, _, err := vars.List(nil)
	if err != nil || len(all) != 3 {
		t.Fatalf("list: %+v %v", all, err)
	}

	// Bad paths and oversized items are 400s and write nothing.
	for _, bad := range []api.Variable{
		{Path: "nomad/secret", Items: api.VariableItems{"k": "v"}},
		{Path: "bad path!", Items: api.VariableItems{"k": "v"}},
		{Path: "no/items"},
		{Path: "big", Items: api.VariableItems{"k": strings.Repeat("x", 64*1024+1)}},
	} {
		_, _, err := vars.Create(&bad, nil)
		wantAPIError(t, err, http.StatusBadRequest, "")
	}
	if _, _, err := vars.Create(&api.Variable{Path: "x", Namespace: "nope", Items: api.VariableItems{"k": "v"}}, nil); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("unknown namespace: %v", err)
	}

	// Locks: acquire gives the holder an ID; others can neither acquire
	// nor write; renew and release need the ID.
	lv, _, err := vars.AcquireLock(&api.Variable{Path: "locks/leader", Lock: &api.VariableLock{TTL: "15s"}}, nil)
	if err != nil || lv.Lock == nil || lv.Lock.ID == "" || lv.Lock.TTL != "15s" {
		t.Fatalf("acquire: %+v %v", lv, err)
	}
	if _, _, err := vars.AcquireLock(&api.Variable{Path: "locks/leader"}, nil); err == nil {
		t.Fatal("second acquire succeeded")
	}
	if _, _, err := vars.Update(&api.Variable{Path: "locks/leader", Items: api.VariableItems{"k": "v"}}, nil); err == nil {
		t.Fatal("write to a locked variable without its lock ID succeeded")
	}
	if r, _, err := vars.Read("locks/leader", nil); err != nil || r.Lock == nil || r.Lock.ID != "" {
		t.Fatalf("read of a locked variable shows the lock ID: %+v %v", r, err)
	}
	if m, _, err := vars.RenewLock(lv, nil); err != nil || m.Path != "locks/leader" {
		t.Fatalf("renew: %+v %v", m, err)
	}
	if _, _, err := vars.ReleaseLock(lv, nil); err != nil {
		t.Fatalf("release: %v", err)
	}
	if _, _, err := vars.AcquireLock(&api.Variable{Path: "locks/leader"}, nil); err != nil {
		t.Fatalf("acquire after release: %v", err)
	}

	_, _, err = vars.AcquireLock(&api.Variable{Path: "locks/short", Lock: &api.VariableLock{TTL: "1s"}}, nil)
	wantAPIError(t, err, http.StatusBadRequest, "invalid lock")

	// A blocking read (?index=) returns once the variable changes.
	cur, _, _ := vars.Read("app/db", nil)
	got2 := make(chan *api.Variable, 1)
	go func() {
		v, _, _ := vars.Read("app/db", &api.QueryOptions{WaitIndex: cur.ModifyIndex, WaitTime: 10 * time.Second})
		got2 <- v
	}()
	cur.Items["pass"] = "blocking"
	if _, _, err := vars.Update(cur, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case v := <-got2:
		if v == nil || v.ModifyIndex <= cur.ModifyIndex {
			t.Fatalf("blocking read: %+v", v)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("blocking read did not return")
	}
	cur.Items["pass"] = "second"
	if _, _, err := vars.Update(cur, nil); err != nil {
		t.Fatal(err)
	}

	// Rotation: the old variable stays readable; -full re-encrypts.
	k1, _, _ := c.Keyring().List(nil)
	if len(k1) != 1 || k1[0].State != api.RootKeyStateActive {
		t.Fatalf("the first write made no root key: %+v", k1)
	}
	nk, _, err := c.Keyring().Rotate(&api.KeyringRotateOptions{Full: true}, nil)
	if err != nil || nk.State != api.RootKeyStateActive || nk.KeyID == k1[0].KeyID {
		t.Fatalf("rotate: %+v %v", nk, err)
	}
	keys, _, _ := c.Keyring().List(nil)
	if len(keys) != 2 || keys[0].KeyID != nk.KeyID || keys[1].State != api.RootKeyStateInactive {
		t.Fatalf("keys after rotate: %+v", keys)
	}
	if got, _, err := vars.Read("app/db", nil); err != nil || got.Items["pass"] != "second" {
		t.Fatalf("read after rotate: %+v %v", got, err)
	}

	// Delete, and a checked delete with a stale index.
	if _, err := vars.CheckedDelete("app/web", 1, nil); !errors.As(err, &cas) {
		t.Fatalf("stale CheckedDelete: %v", err)
	}
	if _, err := vars.Delete("app/web", nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := vars.Read("app/web", nil); !errors.Is(err, api.ErrVariablePathNotFound) {
		t.Fatalf("read after delete: %v", err)
	}
}

// TestAPIVariablesACL: the variables rules of a policy decide per path
// and capability; refusals are 403 and write nothing.
func TestAPIVariablesACL(t *testing.T) {
	_, c := serverAgent(t, true)
	boot, _, err := c.ACLTokens().Bootstrap(nil)
	if err != nil {
		t.Fatal(err)
	}
	c.SetSecretID(boot.SecretID)
	waitRootKey(t, c)
	if _, err := c.ACLPolicies().Upsert(&api.ACLPolicy{Name: "app-read", Rules: `namespace "default" {
  variables {
    path "app/*" { capabilities = ["read", "list"] }
  }
}`}, nil); err != nil {
		t.Fatal(err)
	}
	tok, _, err := c.ACLTokens().Create(&api.ACLToken{Type: "client", Policies: []string{"app-read"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"app/a", "ops/b"} {
		if _, _, err := c.Variables().Create(&api.Variable{Path: p, Items: api.VariableItems{"k": "v"}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	uc, _ := api.NewClient(&api.Config{Address: c.Address(), SecretID: tok.SecretID})
	if v, _, err := uc.Variables().Read("app/a", nil); err != nil || v.Items["k"] != "v" {
		t.Fatalf("allowed read: %+v %v", v, err)
	}
	if l, _, err := uc.Variables().List(nil); err != nil || len(l) != 1 || l[0].Path != "app/a" {
		t.Fatalf("filtered list: %+v %v", l, err)
	}
	_, _, err = uc.Variables().Create(&api.Variable{Path: "app/a", Items: api.VariableItems{"k": "w"}}, nil)
	wantAPIError(t, err, http.StatusForbidden, "Permission denied")
	_, err = uc.Variables().Delete("app/a", nil)
	wantAPIError(t, err, http.StatusForbidden, "Permission denied")
	_, _, err = uc.Keyring().List(nil)
	wantAPIError(t, err, http.StatusForbidden, "Permission denied")
	if v, _, _ := c.Variables().Read("app/a", nil); v.Items["k"] != "v" {
		t.Fatalf("refused write changed the variable: %+v", v)
	}
}
