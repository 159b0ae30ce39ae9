package taskrunner

import (
	"reflect"
	"strings"
	"testing"

	"github.com/nomadish/nomadish/client/allocdir"
	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/structs"
)

func volumeAlloc(vols map[string]*structs.VolumeRequest, mounts ...*structs.VolumeMount) (*structs.Allocation, *structs.Task) {
	task := &structs.Task{Name: "t", Driver: "exec", VolumeMounts: mounts}
	job := &structs.Job{ID: "j", TaskGroups: []*structs.TaskGroup{{Name: "g", Tasks: []*structs.Task{task}, Volumes: vols}}}
	return &structs.Allocation{ID: "a1", JobID: "j", TaskGroup: "g", Job: job}, task
}

func TestTaskMounts(t *testing.T) {
	node := &structs.Node{HostVolumes: map[string]*structs.ClientHostVolumeConfig{
		"certs":  {Name: "certs", Path: "/etc/ssl/certs", ReadOnly: true},
		"shared": {Name: "shared", Path: "/srv/shared"},
	}}
	vols := map[string]*structs.VolumeRequest{
		"c": {Name: "c", Type: "host", Source: "certs", ReadOnly: true},
		"s": {Name: "s", Type: "host", Source: "shared"},
		"r": {Name: "r", Type: "host", Source: "shared", ReadOnly: true},
	}
	alloc, task := volumeAlloc(vols,
		&structs.VolumeMount{Volume: "c", Destination: "/certs"},
		&structs.VolumeMount{Volume: "s", Destination: "data/../out", PropagationMode: "private"},
		&structs.VolumeMount{Volume: "s", Destination: "/ro-view", ReadOnly: true},
		&structs.VolumeMount{Volume: "r", Destination: "/r"},
	)
	got, err := TaskMounts(alloc, task, node)
	if err != nil {
		t.Fatal(err)
	}
	want := []base.MountConfig{
		{TaskPath: "/certs", HostPath: "/etc/ssl/certs", Readonly: true, Volume: "c"},
		{TaskPath: "/out", HostPath: "/srv/shared", Volume: "s", PropagationMode: "private"},
		{TaskPath: "/ro-view", HostPath: "/srv/shared", Readonly: true, Volume: "s"},
		{TaskPath: "/r", HostPath: "/srv/shared", Readonly: true, Volume: "r"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("mounts\n got %+v\nwant %+v", got, want)
	}
	if cfg := BuildTaskConfig("id", alloc, task, allocdir.New(t.TempDir(), "a1"), "global", "dc1", node); !reflect.DeepEqual(cfg.Mounts, want) {
		t.Fatalf("BuildTaskConfig mounts = %+v", cfg.Mounts)
	}

	for _, tc := range []struct {
		name  string
		vols  map[string]*structs.VolumeRequest
		mount *structs.VolumeMount
		node  *structs.Node
		want  string
	}{
		{"missing on node", map[string]*structs.VolumeRequest{"x": {Type: "host", Source: "gone"}}, &structs.VolumeMount{Volume: "x", Destination: "/x"}, node,
			`volume "x": host volume "gone" missing on this node`},
		{"read-only on node", map[string]*structs.VolumeRequest{"x": {Type: "host", Source: "certs"}}, &structs.VolumeMount{Volume: "x", Destination: "/x"}, node,
			`volume "x": host volume "certs" is read-only on this node`},
		{"unknown volume", vols, &structs.VolumeMount{Volume: "nope", Destination: "/x"}, node, `group "g" has no volume "nope"`},
		{"no node", vols, &structs.VolumeMount{Volume: "c", Destination: "/x"}, nil, "node is not known"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			alloc, task := volumeAlloc(tc.vols, tc.mount)
			if _, err := TaskMounts(alloc, task, tc.node); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}
