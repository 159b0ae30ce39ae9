package rpcserver

import (
	"bytes"
	"net"
	"net/rpc"
	"sync"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/rpcclient"
	"github.com/nomadish/nomadish/structs"
)

// lockedBuffer is a log sink safe for the server's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// leader is a Leadership that always leads.
type leader struct{}

func (leader) IsLeader() bool { return true }
func (leader) Leader() string { return "127.0.0.1:4647" }

// The test endpoints, with the real methods' argument and reply types.
type (
	statusEndpoint   struct{}
	jobEndpoint      struct{}
	operatorEndpoint struct{}
)

func (statusEndpoint) Leader(args *structs.GenericRequest, reply *string) error {
	*reply = "127.0.0.1:4647"
	return nil
}

func (jobEndpoint) Register(args *structs.JobRegisterRequest, reply *structs.JobRegisterResponse) error {
	return nil
}

// SnapshotRestore finds every archive malformed, as the real endpoint does
// with one of zeros.
func (operatorEndpoint) SnapshotRestore(args *structs.SnapshotRestoreRequest, reply *structs.SnapshotRestoreResponse) error {
	return structs.NewCodedError(structs.ErrCodeBadRequest, "malformed snapshot archive of %d bytes", len(args.Archive))
}

// testEndpoints are registered on every test server.
var testEndpoints = map[string]any{"Status": statusEndpoint{}, "Job": jobEndpoint{}, "Operator": operatorEndpoint{}}

// testServer starts a transport that leads, serving testEndpoints (mod may
// change its config first; its Listener is 127.0.0.1:0). It is shut down
// at the test's end.
func testServer(t *testing.T, mod func(*Config)) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	shutdown := make(chan struct{})
	cfg := Config{Listener: ln, Advertise: "127.0.0.1:4647", Leadership: leader{},
		Logger: hclog.NewNullLogger(), Shutdown: shutdown}
	if mod != nil {
		mod(&cfg)
	}
	s := New(cfg)
	for name, ep := range testEndpoints {
		if err := s.Register(name, ep); err != nil {
			t.Fatal(err)
		}
	}
	s.Serve()
	t.Cleanup(func() {
		close(shutdown)
		s.StopAccepting()
		s.Close()
	})
	return s
}

// tcpRPCServer starts a test server listening on a real RPC port.
func tcpRPCServer(t *testing.T) *Server { return testServer(t, nil) }

// legacyClient opens one net/rpc msgpack conversation (the RPCNomad
// protocol) to s, the way any program with network access can.
func legacyClient(t *testing.T, s *Server) *rpc.Client {
	t.Helper()
	conn, err := rpcclient.Dial(s.Addr(), rpcclient.RPCNomad, nil, rpcclient.DialTimeout)
	if err != nil {
		t.Fatal(err)
	}
	c := rpc.NewClientWithCodec(rpcclient.NewCodec(conn))
	t.Cleanup(func() { c.Close() })
	return c
}

// testJob is a job with one group of one task.
func testJob(id string) *structs.Job {
	return &structs.Job{ID: id, Type: structs.JobTypeService, Datacenters: []string{"dc1"},
		TaskGroups: []*structs.TaskGroup{{Name: "web", Count: 1, Tasks: []*structs.Task{{
			Name: "t", Driver: "raw_exec", Config: map[string]any{"command": "/bin/sleep", "args": []any{"10"}},
			Resources: &structs.Resources{CPU: 100, MemoryMB: 64},
		}}}}}
}
