package taskrunner_test

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/nomadish/nomadish/client/clienttest"
	"github.com/nomadish/nomadish/client/taskrunner"
	"github.com/nomadish/nomadish/structs"
)

// A task whose host volume the node no longer has does not start: each
// start fails with a Task Setup Failure naming the volume, under the
// restart policy; with the volume, the driver gets the mount.
func TestVolumesHook(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		task := &structs.Task{Name: "t", Driver: "mock", Config: map[string]any{"run_for": "1s"},
			VolumeMounts: []*structs.VolumeMount{{Volume: "certs", Destination: "/certs", ReadOnly: true}}}
		rp := &structs.RestartPolicy{Attempts: 1, Interval: time.Hour, Delay: time.Second, Mode: structs.RestartPolicyModeFail}
		alloc := testAlloc(structs.JobTypeBatch, task, rp)
		alloc.Job.TaskGroups[0].Volumes = map[string]*structs.VolumeRequest{"certs": {Name: "certs", Type: "host", Source: "ca"}}
		for _, tc := range []struct {
			name string
			node *structs.Node
		}{
			{"missing", &structs.Node{ID: "n1"}},
			{"present", &structs.Node{ID: "n1", HostVolumes: map[string]*structs.ClientHostVolumeConfig{"ca": {Name: "ca", Path: "/etc/ssl/certs"}}}},
		} {
			drv := clienttest.NewFakeDriver()
			tr := newRunnerWith(t, alloc, drv, func(c *taskrunner.Config) { c.Node = func() *structs.Node { return tc.node } })
			go tr.Run()
			<-tr.WaitCh()
			s := tr.State()
			started := drv.Started()
			if tc.node.HostVolumes == nil {
				if len(started) != 0 || !s.Failed || !strings.Contains(eventTypes(s), structs.TaskSetupFailure) {
					t.Fatalf("%s: started %d, state %+v, events %s", tc.name, len(started), s, eventTypes(s))
				}
				msg := s.Events[len(s.Events)-1].Message
				for _, e := range s.Events {
					if e.Type == structs.TaskSetupFailure {
						msg = e.Message
					}
				}
				if !strings.Contains(msg, `volumes: volume "certs": host volume "ca" missing on this node`) {
					t.Fatalf("setup failure message %q", msg)
				}
				continue
			}
			if s.Failed || len(started) != 1 || len(started[0].Mounts) != 1 || started[0].Mounts[0].HostPath != "/etc/ssl/certs" || !started[0].Mounts[0].Readonly {
				t.Fatalf("%s: state %+v, started %+v", tc.name, s, started)
			}
		}
	})
}
