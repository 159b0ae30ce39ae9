package agent

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/nomad/api"

	"github.com/nomadish/nomadish/agent/config"
)

// eventsServerAgent starts an in-process server-only dev agent with cfg changed
// by edit.
func eventsServerAgent(t *testing.T, edit func(*config.Config)) *api.Client {
	t.Helper()
	cfg := config.DevConfig()
	cfg.Name = "events"
	cfg.Ports = config.Ports{}
	cfg.Client.Enabled = false
	edit(cfg)
	a, err := New(cfg, hclog.New(&hclog.LoggerOptions{Name: "agent", Level: hclog.Info, Output: t.Output()}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := a.Shutdown(); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	c, err := api.NewClient(&api.Config{Address: "http://" + a.HTTPAddr()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// nextEvents returns the next non-error frame of stream.
func nextEvents(t *testing.T, ctx context.Context, stream <-chan *api.Events) *api.Events {
	t.Helper()
	select {
	case evs := <-stream:
		if evs == nil || evs.Err != nil {
			t.Fatalf("stream ended: %+v", evs)
		}
		return evs
	case <-ctx.Done():
		t.Fatal(ctx.Err())
	}
	return nil
}

// TestEventStreamACL: no token is refused; a token reading jobs in
// default sees the job events and not the ACL token events a management
// token sees (without the token's secret).
func TestEventStreamACL(t *testing.T) {
	c := eventsServerAgent(t, func(cfg *config.Config) { cfg.ACL.Enabled = true })
	waitFor(t, 10*time.Second, "a leader", func() error { _, err := c.Status().Leader(); return err })
	root, _, err := c.ACLTokens().Bootstrap(nil)
	if err != nil {
		t.Fatal(err)
	}
	mgmt, _ := api.NewClient(&api.Config{Address: c.Address(), SecretID: root.SecretID})
	if _, err := mgmt.ACLPolicies().Upsert(&api.ACLPolicy{Name: "reader", Rules: "namespace \"default\" {\n  policy = \"read\"\n}\n"}, nil); err != nil {
		t.Fatal(err)
	}
	rt, _, err := mgmt.ACLTokens().Create(&api.ACLToken{Type: "client", Policies: []string{"reader"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	reader, _ := api.NewClient(&api.Config{Address: c.Address(), SecretID: rt.SecretID})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	all := map[api.Topic][]string{api.TopicAll: {"*"}}

	if _, err := c.EventStream().Stream(ctx, all, 0, nil); err == nil || !strings.Contains(err.Error(), "403") {
		t.Fatalf("no token: %v, want 403", err)
	}
	rs, err := reader.EventStream().Stream(ctx, all, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := mgmt.EventStream().Stream(ctx, all, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	job := api.NewBatchJob("acl-ev", "acl-ev", "global", 50)
	job.AddTaskGroup(api.NewTaskGroup("g", 1).AddTask(api.NewTask("t", "raw_exec").SetConfig("command", "/bin/true")))
	if _, _, err := mgmt.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	// The management stream replays the reader's token creation, secretless.
	sawToken := false
	for !sawToken {
		for _, ev := range nextEvents(t, ctx, ms).Events {
			if ev.Topic == "ACLToken" && ev.Key == rt.AccessorID {
				sawToken = true
				if tok, _ := ev.Payload["ACLToken"].(map[string]any); tok == nil || tok["SecretID"] != "" {
					t.Fatalf("token event payload %v", ev.Payload)
				}
			}
		}
	}
	// The reader sees the job and never an ACL event.
	for sawJob := false; !sawJob; {
		for _, ev := range nextEvents(t, ctx, rs).Events {
			switch ev.Topic {
			case api.TopicJob, api.TopicEvaluation:
				sawJob = sawJob || ev.Key == "acl-ev"
			default:
				t.Fatalf("reader got a %s %s event", ev.Topic, ev.Type)
			}
		}
	}
}

// TestEventStreamDisabled: event_buffer_size = 0 answers 404.
func TestEventStreamDisabled(t *testing.T) {
	c := eventsServerAgent(t, func(cfg *config.Config) { cfg.Server.EventBufferSize = 0 })
	_, err := c.EventStream().Stream(context.Background(), nil, 0, nil)
	if err == nil || !strings.Contains(err.Error(), "404") || !strings.Contains(err.Error(), "event_buffer_size") {
		t.Fatalf("disabled stream: %v, want 404", err)
	}
}
