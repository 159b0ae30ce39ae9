package agent

import (
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// A job with host volumes and volume mounts sent by the official client
// keeps them, and, on a node without the volume, is not placed: its eval
// says why with Nomad's metric key.
func TestOfficialClientHostVolumes(t *testing.T) {
	_, c := devAgent(t)
	job := api.NewServiceJob("vols", "vols", "global", 50)
	task := api.NewTask("t", "raw_exec").SetConfig("command", "/bin/sleep").SetConfig("args", []string{"60"})
	task.VolumeMounts = []*api.VolumeMount{{Volume: ptr("certs"), Destination: ptr("/certs"), ReadOnly: ptr(true)}}
	tg := api.NewTaskGroup("g", 1).AddTask(task)
	tg.Volumes = map[string]*api.VolumeRequest{"certs": {Name: "certs", Type: "host", Source: "ca-certificates", ReadOnly: true}}
	tg.EphemeralDisk = &api.EphemeralDisk{Sticky: ptr(true), Migrate: ptr(true)}
	job.AddTaskGroup(tg)
	resp, _, err := c.Jobs().Register(job, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := c.Jobs().Info("vols", nil)
	if err != nil {
		t.Fatal(err)
	}
	g := got.TaskGroups[0]
	if v := g.Volumes["certs"]; v == nil || v.Type != "host" || v.Source != "ca-certificates" || !v.ReadOnly || v.Name != "certs" {
		t.Fatalf("volumes %+v", g.Volumes)
	}
	m := g.Tasks[0].VolumeMounts
	if len(m) != 1 || *m[0].Volume != "certs" || *m[0].Destination != "/certs" || !*m[0].ReadOnly || *m[0].PropagationMode != "private" {
		t.Fatalf("volume mounts %+v", m)
	}
	if d := g.EphemeralDisk; d == nil || !*d.Sticky || !*d.Migrate {
		t.Fatalf("ephemeral disk %+v", d)
	}
	waitFor(t, 10*time.Second, "the eval to fail placing g", func() error {
		ev, _, err := c.Evaluations().Info(resp.EvalID, nil)
		if err != nil {
			return err
		}
		m := ev.FailedTGAllocs["g"]
		if m == nil || m.ConstraintFiltered["missing compatible host volumes"] != 1 {
			return fmt.Errorf("eval %s: failed %+v", ev.Status, ev.FailedTGAllocs)
		}
		return nil
	})
	if allocs, _, err := c.Jobs().Allocations("vols", false, nil); err != nil || len(allocs) != 0 {
		t.Fatalf("allocations %v: %v", allocs, err)
	}

	// A volume_mount naming no volume of its group is refused and changes nothing.
	bad := api.NewServiceJob("vols-bad", "vols-bad", "global", 50)
	bt := api.NewTask("t", "raw_exec").SetConfig("command", "/bin/true")
	bt.VolumeMounts = []*api.VolumeMount{{Volume: ptr("nope"), Destination: ptr("/x")}}
	bad.AddTaskGroup(api.NewTaskGroup("g", 1).AddTask(bt))
	if _, _, err := c.Jobs().Register(bad, nil); err == nil {
		t.Fatal("a volume_mount of an unknown volume was accepted")
	}
	if _, _, err := c.Jobs().Info("vols-bad", nil); err == nil {
		t.Fatal("the refused job was stored")
	}
}
