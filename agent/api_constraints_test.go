package agent

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// TestOfficialClientConstraints drives constraints, ephemeral disk and the
// computed node class through a real dev agent with Nomad's API client.
func TestOfficialClientConstraints(t *testing.T) {
	_, c := devAgent(t)

	nodes, _, err := c.Nodes().List(nil)
	if err != nil || len(nodes) != 1 {
		t.Fatalf("nodes %v: %v", nodes, err)
	}
	var node struct{ ComputedClass string } // not in api.Node; read the raw JSON
	if _, err := c.Raw().Query("/v1/node/"+nodes[0].ID, &node, nil); err != nil || !strings.HasPrefix(node.ComputedClass, "v1:") {
		t.Fatalf("node computed class %q: %v", node.ComputedClass, err)
	}

	// A bad regexp is refused at registration with a 400 naming it.
	bad := constraintJob("bad", api.NewConstraint("${attr.kernel.name}", "regexp", "a("))
	if _, _, err := c.Jobs().Register(bad, nil); err == nil || !strings.Contains(err.Error(), "400") ||
		!strings.Contains(err.Error(), "bad regular expression") {
		t.Fatalf("bad regexp registered: %v", err)
	}

	// A constraint no node meets: the eval's failure counts it by its text.
	none := constraintJob("none", api.NewConstraint("${attr.kernel.name}", "=", "no-such-os"))
	resp, _, err := c.Jobs().Register(none, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ev *api.Evaluation
	waitFor(t, 10*time.Second, "the eval to complete", func() error {
		ev, _, err = c.Evaluations().Info(resp.EvalID, nil)
		if err != nil || ev.Status != "complete" {
			return fmt.Errorf("eval %+v: %v", ev, err)
		}
		return nil
	})
	m := ev.FailedTGAllocs["g"]
	if m == nil || m.ConstraintFiltered["${attr.kernel.name} = no-such-os"] != 1 {
		t.Fatalf("failed allocs %+v", m)
	}

	// Ephemeral disk: the default size comes back, and an explicit one is kept.
	got, _, err := c.Jobs().Info("none", nil)
	if err != nil || got.TaskGroups[0].EphemeralDisk == nil || *got.TaskGroups[0].EphemeralDisk.SizeMB != 300 {
		t.Fatalf("ephemeral disk %+v: %v", got.TaskGroups[0].EphemeralDisk, err)
	}
	if got.Constraints[0].Operand != "=" || got.Constraints[0].RTarget != "no-such-os" {
		t.Fatalf("constraints %+v", got.Constraints[0])
	}
}

func constraintJob(id string, c *api.Constraint) *api.Job {
	job := api.NewBatchJob(id, id, "global", 50)
	job.Datacenters = []string{"dc1"}
	job.Constrain(c)
	task := api.NewTask("t", "raw_exec").SetConfig("command", "/bin/true")
	job.AddTaskGroup(api.NewTaskGroup("g", 1).AddTask(task))
	return job
}
