package drivers

import (
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/hashicorp/go-msgpack/v2/codec"

	"github.com/nomadish/nomadish/drivers/base"
	pb "github.com/nomadish/nomadish/drivers/proto"
)

// configHandle encodes config maps for the wire: integers come back as
// int64, floats as float64, lists as []any, maps as map[string]any.
var configHandle = func() *codec.MsgpackHandle {
	h := &codec.MsgpackHandle{}
	h.RawToString = true
	h.SignedInteger = true
	h.MapType = reflect.TypeOf(map[string]any(nil))
	return h
}()

func encodeConfig(m map[string]any) ([]byte, error) {
	if m == nil {
		return nil, nil
	}
	var b []byte
	if err := codec.NewEncoderBytes(&b, configHandle).Encode(m); err != nil {
		return nil, fmt.Errorf("drivers: encoding config: %w", err)
	}
	return b, nil
}

func decodeConfig(b []byte) (map[string]any, error) {
	if len(b) == 0 {
		return nil, nil
	}
	var m map[string]any
	if err := codec.NewDecoderBytes(b, configHandle).Decode(&m); err != nil {
		return nil, fmt.Errorf("drivers: decoding config: %w", err)
	}
	return m, nil
}

func taskConfigToPB(c *base.TaskConfig) (*pb.TaskConfig, error) {
	if c == nil {
		return nil, nil
	}
	cfg, err := encodeConfig(c.Config)
	if err != nil {
		return nil, err
	}
	return &pb.TaskConfig{
		Id: c.ID, Name: c.Name, AllocId: c.AllocID, JobName: c.JobName, TaskGroupName: c.TaskGroupName,
		Env: c.Env, User: c.User, ConfigMsgpack: cfg,
		Resources: resourcesToPB(c.Resources),
		AllocDir:  c.AllocDir, TaskDir: c.TaskDir, StdoutPath: c.StdoutPath, StderrPath: c.StderrPath,
		LogMaxFiles: int32(c.LogMaxFiles), LogMaxFileSizeMb: int32(c.LogMaxFileSizeMB),
		Mounts:  mountsToPB(c.Mounts),   // convert_mounts.go
		Network: networkToPB(c.Network), // convert_network.go
	}, nil
}

func taskConfigFromPB(p *pb.TaskConfig) (*base.TaskConfig, error) {
	if p == nil {
		return nil, nil
	}
	cfg, err := decodeConfig(p.ConfigMsgpack)
	if err != nil {
		return nil, err
	}
	c := &base.TaskConfig{
		ID: p.Id, Name: p.Name, AllocID: p.AllocId, JobName: p.JobName, TaskGroupName: p.TaskGroupName,
		Env: p.Env, User: p.User, Config: cfg,
		AllocDir: p.AllocDir, TaskDir: p.TaskDir, StdoutPath: p.StdoutPath, StderrPath: p.StderrPath,
		LogMaxFiles: int(p.LogMaxFiles), LogMaxFileSizeMB: int(p.LogMaxFileSizeMb),
	}
	c.Resources = resourcesFromPB(p.Resources)
	c.Mounts = mountsFromPB(p.Mounts)
	c.Network = networkFromPB(p.Network)
	return c, nil
}

func handleToPB(h *base.TaskHandle) (*pb.TaskHandle, error) {
	if h == nil {
		return nil, nil
	}
	cfg, err := taskConfigToPB(h.Config)
	if err != nil {
		return nil, err
	}
	return &pb.TaskHandle{Version: int32(h.Version), Config: cfg, State: string(h.State), DriverState: h.DriverState}, nil
}

func handleFromPB(p *pb.TaskHandle) (*base.TaskHandle, error) {
	if p == nil {
		return nil, nil
	}
	cfg, err := taskConfigFromPB(p.Config)
	if err != nil {
		return nil, err
	}
	return &base.TaskHandle{Version: int(p.Version), Config: cfg, State: base.TaskState(p.State), DriverState: p.DriverState}, nil
}

// sentinels maps the shared errors to wire codes.
var sentinels = map[pb.ErrorCode]error{
	pb.ErrorCode_ERROR_CODE_TASK_NOT_FOUND:    base.ErrTaskNotFound,
	pb.ErrorCode_ERROR_CODE_TASK_EXISTS:       base.ErrTaskExists,
	pb.ErrorCode_ERROR_CODE_TASK_RUNNING:      base.ErrTaskRunning,
	pb.ErrorCode_ERROR_CODE_DISABLED:          base.ErrDisabled,
	pb.ErrorCode_ERROR_CODE_PLUGIN_SHUTDOWN:   base.ErrPluginShutdown,
	pb.ErrorCode_ERROR_CODE_EXIT_CODE_UNKNOWN: base.ErrExitCodeUnknown,
	pb.ErrorCode_ERROR_CODE_NOT_SUPPORTED:     base.ErrNotSupported,
}

func errorCode(err error) pb.ErrorCode {
	if err == nil {
		return pb.ErrorCode_ERROR_CODE_NONE
	}
	for code, s := range sentinels {
		if errors.Is(err, s) {
			return code
		}
	}
	return pb.ErrorCode_ERROR_CODE_OTHER
}

// codedError rebuilds an error with its sentinel so errors.Is works.
type codedError struct {
	msg      string
	sentinel error
}

func (e *codedError) Error() string { return e.msg }
func (e *codedError) Unwrap() error { return e.sentinel }

func errorFromCode(code pb.ErrorCode, msg string) error {
	if code == pb.ErrorCode_ERROR_CODE_NONE {
		return nil
	}
	return &codedError{msg: msg, sentinel: sentinels[code]}
}

func exitToPB(r *base.ExitResult) *pb.ExitResult {
	if r == nil {
		return nil
	}
	p := &pb.ExitResult{ExitCode: int32(r.ExitCode), Signal: int32(r.Signal), OomKilled: r.OOMKilled, ErrCode: errorCode(r.Err)}
	if r.Err != nil {
		p.Err = r.Err.Error()
	}
	return p
}

func exitFromPB(p *pb.ExitResult) *base.ExitResult {
	if p == nil {
		return nil
	}
	return &base.ExitResult{ExitCode: int(p.ExitCode), Signal: int(p.Signal), OOMKilled: p.OomKilled, Err: errorFromCode(p.ErrCode, p.Err)}
}

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromUnixNano(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n)
}

func usageToPB(u *base.TaskResourceUsage) *pb.TaskResourceUsage {
	return &pb.TaskResourceUsage{
		TimestampUnixNano: unixNano(u.Timestamp),
		CpuPercent:        u.CPU.Percent, CpuUserPercent: u.CPU.UserPercent, CpuSystemPercent: u.CPU.SystemPercent,
		CpuUserTimeNs: int64(u.CPU.UserTime), CpuSystemTimeNs: int64(u.CPU.SystemTime),
		MemoryRss: u.Memory.RSS, MemorySwap: u.Memory.Swap, Pids: int32(u.Pids),
	}
}

func usageFromPB(p *pb.TaskResourceUsage) *base.TaskResourceUsage {
	return &base.TaskResourceUsage{
		Timestamp: fromUnixNano(p.TimestampUnixNano),
		CPU: base.CPUUsage{Percent: p.CpuPercent, UserPercent: p.CpuUserPercent, SystemPercent: p.CpuSystemPercent,
			UserTime: time.Duration(p.CpuUserTimeNs), SystemTime: time.Duration(p.CpuSystemTimeNs)},
		Memory: base.MemoryUsage{RSS: p.MemoryRss, Swap: p.MemorySwap},
		Pids:   int(p.Pids),
	}
}

func resourcesToPB(r base.Resources) *pb.Resources {
	return &pb.Resources{CpuShares: r.CPUShares, MemoryMb: r.MemoryMB, MemoryMaxMb: r.MemoryMaxMB,
		Cores: idsToPB(r.Cores), NumaNodes: idsToPB(r.NUMANodes)}
}

func resourcesFromPB(r *pb.Resources) base.Resources {
	if r == nil {
		return base.Resources{}
	}
	return base.Resources{CPUShares: r.CpuShares, MemoryMB: r.MemoryMb, MemoryMaxMB: r.MemoryMaxMb,
		Cores: idsFromPB(r.Cores), NUMANodes: idsFromPB(r.NumaNodes)}
}

func idsToPB(ids []uint16) []uint32 {
	if len(ids) == 0 {
		return nil
	}
	out := make([]uint32, len(ids))
	for i, id := range ids {
		out[i] = uint32(id)
	}
	return out
}

func idsFromPB(ids []uint32) []uint16 {
	if len(ids) == 0 {
		return nil
	}
	out := make([]uint16, len(ids))
	for i, id := range ids {
		out[i] = uint16(id)
	}
	return out
}
