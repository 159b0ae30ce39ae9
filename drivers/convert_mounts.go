package drivers

import (
	"github.com/nomadish/nomadish/drivers/base"
	pb "github.com/nomadish/nomadish/drivers/proto"
)

func mountsToPB(ms []base.MountConfig) []*pb.MountConfig {
	if len(ms) == 0 {
		return nil
	}
	out := make([]*pb.MountConfig, len(ms))
	for i, m := range ms {
		out[i] = &pb.MountConfig{TaskPath: m.TaskPath, HostPath: m.HostPath, Readonly: m.Readonly,
			Volume: m.Volume, PropagationMode: m.PropagationMode}
	}
	return out
}

func mountsFromPB(ms []*pb.MountConfig) []base.MountConfig {
	if len(ms) == 0 {
		return nil
	}
	out := make([]base.MountConfig, 0, len(ms))
	for _, m := range ms {
		if m != nil {
			out = append(out, base.MountConfig{TaskPath: m.TaskPath, HostPath: m.HostPath, Readonly: m.Readonly,
				Volume: m.Volume, PropagationMode: m.PropagationMode})
		}
	}
	return out
}
