package cluster

import (
	"errors"
	"slices"
	"testing"

	"github.com/hashicorp/raft"
)

// fakeConfigurer answers GetConfiguration with a fixed configuration or
// error.
type fakeConfigurer struct {
	servers []raft.Server
	err     error
}

func (c fakeConfigurer) GetConfiguration() raft.ConfigurationFuture {
	return configFuture{conf: raft.Configuration{Servers: c.servers}, err: c.err}
}

// configFuture is a raft.ConfigurationFuture with a fixed answer.
type configFuture struct {
	conf raft.Configuration
	err  error
}

func (f configFuture) Error() error                      { return f.err }
func (f configFuture) Index() uint64                     { return 1 }
func (f configFuture) Configuration() raft.Configuration { return f.conf }

func TestRPCServers(t *testing.T) {
	three := fakeConfigurer{servers: []raft.Server{
		{ID: "a", Address: "10.0.0.1:4647"}, {ID: "b", Address: "10.0.0.2:4647", Suffrage: raft.Nonvoter}, {ID: "c", Address: "10.0.0.3:4647"}}}
	cases := []struct {
		name string
		rc   raftConfigurer
		self string
		want []string
	}{
		{"every raft server, voter or not", three, "10.0.0.1:4647", []string{"10.0.0.1:4647", "10.0.0.2:4647", "10.0.0.3:4647"}},
		{"no raft: self", nil, "10.0.0.9:4647", []string{"10.0.0.9:4647"}},
		{"configuration error: self", fakeConfigurer{err: errors.New("shutdown")}, "10.0.0.9:4647", []string{"10.0.0.9:4647"}},
		{"dev server without a listener", nil, "", nil},
	}
	for _, c := range cases {
		got := rpcServers(c.rc, c.self, "dc1")
		var addrs []string
		for _, s := range got {
			addrs = append(addrs, s.RPCAdvertiseAddr)
			if s.Datacenter != "dc1" {
				t.Errorf("%s: datacenter %q", c.name, s.Datacenter)
			}
		}
		if !slices.Equal(addrs, c.want) {
			t.Errorf("%s: %v, want %v", c.name, addrs, c.want)
		}
	}
}
