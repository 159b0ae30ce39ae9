package agent

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/nomadish/nomadish/structs"
)

// TestOfficialClientDrainAndEligibility drives drain and eligibility through
// github.com/hashicorp/nomad/api against a real dev agent.
func TestOfficialClientDrainAndEligibility(t *testing.T) {
	_, c := devAgent(t)
	nodes, _, err := c.Nodes().List(nil)
	if err != nil {
		t.Fatal(err)
	}
	id := nodes[0].ID

	if _, err := c.Nodes().ToggleEligibility(id, false, nil); err != nil {
		t.Fatal(err)
	}
	n, _, err := c.Nodes().Info(id, nil)
	if err != nil || n.SchedulingEligibility != api.NodeSchedulingIneligible {
		t.Fatalf("after ineligible: %v %v", n.SchedulingEligibility, err)
	}
	if _, err := c.Nodes().ToggleEligibility(id, true, nil); err != nil {
		t.Fatal(err)
	}

	// A drain with no deadline on a node with no allocations completes at
	// once; the node stays ineligible.
	resp, err := c.Nodes().UpdateDrain(id, &api.DrainSpec{Deadline: time.Hour, IgnoreSystemJobs: true}, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.NodeModifyIndex == 0 {
		t.Fatalf("no NodeModifyIndex: %+v", resp)
	}
	waitFor(t, 10*time.Second, "drain complete", func() error {
		n, _, err := c.Nodes().Info(id, nil)
		if err != nil {
			return err
		}
		if n.DrainStrategy != nil || n.Drain {
			return fmt.Errorf("still draining: %+v", n.DrainStrategy)
		}
		if n.SchedulingEligibility != api.NodeSchedulingIneligible {
			return fmt.Errorf("eligibility %q", n.SchedulingEligibility)
		}
		var msgs []string
		for _, e := range n.Events {
			msgs = append(msgs, e.Message)
		}
		if !strings.Contains(strings.Join(msgs, "|"), "Node drain strategy set|Node drain complete") {
			return fmt.Errorf("events %q", msgs)
		}
		return nil
	})

	// A running drain: made eligible is refused; cancelling with
	// MarkEligible makes the node eligible.
	if _, err := c.Nodes().UpdateDrain(id, &api.DrainSpec{Deadline: time.Hour}, false, nil); err != nil {
		t.Fatal(err)
	}
	n, _, err = c.Nodes().Info(id, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n.DrainStrategy == nil {
		t.Log("drain already complete (no allocations)")
	} else if n.DrainStrategy.ForceDeadline.Before(time.Now().Add(50*time.Minute)) || !n.Drain {
		t.Fatalf("drain strategy %+v drain=%v", n.DrainStrategy, n.Drain)
	}
	if _, err := c.Nodes().UpdateDrain(id, nil, true, nil); err != nil {
		t.Fatal(err)
	}
	n, _, err = c.Nodes().Info(id, nil)
	if err != nil || n.DrainStrategy != nil || n.SchedulingEligibility != api.NodeSchedulingEligible {
		t.Fatalf("after cancel: %+v %s %v", n.DrainStrategy, n.SchedulingEligibility, err)
	}
	if _, err := c.Nodes().ToggleEligibility("no-such-node", true, nil); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("unknown node: %v", err)
	}
	allocs, _, err := c.Nodes().Allocations(id, nil)
	if err != nil || len(allocs) != 0 {
		t.Fatalf("node allocations: %v %v", allocs, err)
	}
}

func TestNodeDrainHTTP(t *testing.T) {
	f := newFakeRPC().on(structs.NodeUpdateDrainRPC, func(args, reply any) error {
		reply.(*structs.NodeDrainUpdateResponse).NodeModifyIndex = 9
		reply.(*structs.NodeDrainUpdateResponse).Index = 9
		return nil
	}).on(structs.NodeUpdateEligibilityRPC, func(args, reply any) error {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "can not set node's scheduling eligibility to eligible while it is draining")
	})
	s := newHTTPServer(httpDeps{RPC: f})
	rec := do(t, s, "POST", "/v1/node/n1/drain", `{"NodeID":"n1","DrainSpec":{"Deadline":60000000000,"IgnoreSystemJobs":true},"Meta":{"by":"me"}}`)
	wantStatus(t, rec, 200, `"NodeModifyIndex":9`)
	if rec.Header().Get("X-Nomad-Index") != "9" {
		t.Fatalf("index header %q", rec.Header().Get("X-Nomad-Index"))
	}
	args := f.callsTo(structs.NodeUpdateDrainRPC)[0].(*structs.NodeUpdateDrainRequest)
	if args.NodeID != "n1" || args.DrainStrategy == nil || args.DrainStrategy.Deadline != time.Minute ||
		!args.DrainStrategy.IgnoreSystemJobs || args.Meta["by"] != "me" {
		t.Fatalf("drain args %+v", args)
	}
	do(t, s, "PUT", "/v1/node/n1/drain", `{"DrainSpec":null,"MarkEligible":true}`)
	args = f.callsTo(structs.NodeUpdateDrainRPC)[1].(*structs.NodeUpdateDrainRequest)
	if args.DrainStrategy != nil || !args.MarkEligible {
		t.Fatalf("cancel args %+v", args)
	}
	wantStatus(t, do(t, s, "POST", "/v1/node/n1/drain", `{"DrainSpec":`), 400, "invalid JSON")
	wantStatus(t, do(t, s, "POST", "/v1/node/n1/eligibility", `{"Eligibility":"eligible"}`), 400, "while it is draining")
}
