package drivers

import (
	"reflect"
	"testing"

	"github.com/nomadish/nomadish/drivers/base"
)

// Host volume mounts survive the plugin protocol both ways.
func TestMountsRoundTrip(t *testing.T) {
	in := &base.TaskConfig{ID: "a/t/1", Mounts: []base.MountConfig{
		{TaskPath: "/certs", HostPath: "/etc/ssl/certs", Readonly: true, Volume: "certs", PropagationMode: "private"},
		{TaskPath: "/data", HostPath: "/srv/data", Volume: "data", PropagationMode: "host-to-task"},
	}}
	pb, err := taskConfigToPB(in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := taskConfigFromPB(pb)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out.Mounts, in.Mounts) {
		t.Fatalf("mounts after the round trip = %+v, want %+v", out.Mounts, in.Mounts)
	}
	if none, _ := taskConfigFromPB(must(taskConfigToPB(&base.TaskConfig{ID: "x"}))); none.Mounts != nil {
		t.Fatalf("no mounts became %+v", none.Mounts)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
