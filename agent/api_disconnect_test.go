package agent

import (
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// TestOfficialClientDisconnectBlock registers a job whose groups set the
// disconnect block and max_client_disconnect through
// github.com/hashicorp/nomad/api and reads them back.
func TestOfficialClientDisconnectBlock(t *testing.T) {
	_, c := devAgent(t)
	job := versionsTestJob("300")
	*job.ID, *job.Name = "disc", "disc"
	lost, keep := 5*time.Minute, api.ReconcileOption("keep_original")
	job.TaskGroups[0].Disconnect = &api.DisconnectStrategy{LostAfter: &lost, Replace: new(false), Reconcile: &keep}
	old := versionsTestJob("300").TaskGroups[0]
	*old.Name = "old"
	mcd := 90 * time.Second
	old.MaxClientDisconnect = &mcd
	job.AddTaskGroup(old)
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	got, _, err := c.Jobs().Info("disc", nil)
	if err != nil {
		t.Fatal(err)
	}
	d := got.TaskGroups[0].Disconnect
	if d == nil || d.LostAfter == nil || *d.LostAfter != lost || d.Replace == nil || *d.Replace || d.Reconcile == nil || *d.Reconcile != keep {
		t.Fatalf("disconnect block read back: %+v", d)
	}
	if m := got.TaskGroups[1].MaxClientDisconnect; m == nil || *m != mcd {
		t.Fatalf("max_client_disconnect read back: %v", m)
	}
	bad := versionsTestJob("300")
	*bad.ID = "bad-disc"
	other := api.ReconcileOption("newest")
	bad.TaskGroups[0].Disconnect = &api.DisconnectStrategy{Reconcile: &other}
	if _, _, err := c.Jobs().Register(bad, nil); err == nil {
		t.Fatal("a bad reconcile strategy was accepted")
	}
}
