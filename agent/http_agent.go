package agent

import (
	"net/http"
	"runtime"
	"strconv"

	"github.com/nomadish/nomadish/structs"
)

// agentInfo describes the running agent for /v1/agent/self and
// /v1/agent/health. The agent builds a fresh one per request.
type agentInfo struct {
	// Config is the agent's configuration under Nomad's JSON names
	// ("Region", "Datacenter", "NodeName", "DataDir", "Ports", ...).
	Config map[string]any
	// MemberName is this server's member name; "" when no server runs.
	MemberName string
	// Client reports whether a client runs in this agent.
	Client bool
	// Stats are extra per-subsystem stats ("nomad", "client", ...).
	Stats map[string]map[string]string
}

// agentSelfResponse is api.AgentSelf.
type agentSelfResponse struct {
	Config map[string]any               `json:"config"`
	Member structs.ServerMember         `json:"member"`
	Stats  map[string]map[string]string `json:"stats"`
}

// agentHealth is api.AgentHealth.
type agentHealth struct {
	Ok      bool   `json:"ok"`
	Message string `json:"message"`
}

// agentHealthResponse is api.AgentHealthResponse.
type agentHealthResponse struct {
	Client *agentHealth `json:"client,omitempty"`
	Server *agentHealth `json:"server,omitempty"`
}

func (s *httpServer) self() *agentInfo {
	if s.Self == nil {
		return &agentInfo{}
	}
	return s.Self()
}

// agentSelf serves GET /v1/agent/self.
func (s *httpServer) agentSelf(w http.ResponseWriter, r *http.Request) (any, error) {
	info := s.self()
	out := agentSelfResponse{Config: info.Config, Stats: map[string]map[string]string{}}
	if out.Config == nil {
		out.Config = map[string]any{}
	}
	for k, v := range info.Stats {
		out.Stats[k] = v
	}
	out.Stats["runtime"] = runtimeExtraStats(runtimeStats())
	if info.MemberName != "" {
		members, err := s.members()
		if err != nil {
			return nil, err
		}
		for _, m := range members.Members {
			if m.Name == info.MemberName {
				out.Member = *m
			}
		}
	}
	return out, nil
}

func runtimeStats() map[string]string {
	return map[string]string{
		"os":         runtime.GOOS,
		"arch":       runtime.GOARCH,
		"version":    runtime.Version(),
		"max_procs":  strconv.Itoa(runtime.GOMAXPROCS(0)),
		"goroutines": strconv.Itoa(runtime.NumGoroutine()),
		"cpu_count":  strconv.Itoa(runtime.NumCPU()),
	}
}

func (s *httpServer) members() (*structs.ServerMembersResponse, error) {
	args := structs.GenericRequest{QueryOptions: structs.QueryOptions{Region: s.Region, AllowStale: true}}
	var reply structs.ServerMembersResponse
	if err := s.RPC.RPC(structs.StatusMembersRPC, &args, &reply); err != nil {
		return nil, err
	}
	if reply.Members == nil {
		reply.Members = []*structs.ServerMember{}
	}
	return &reply, nil
}

// agentMembers serves GET /v1/agent/members: the servers' gossip members.
func (s *httpServer) agentMembers(w http.ResponseWriter, r *http.Request) (any, error) {
	return s.members()
}

// agentHealth serves GET /v1/agent/health: 200 when every part this agent
// runs is healthy (a server that knows a leader; a client), else 500 with
// the same JSON body.
func (s *httpServer) agentHealth(w http.ResponseWriter, r *http.Request) (any, error) {
	info := s.self()
	var out agentHealthResponse
	healthy := true
	if info.MemberName != "" {
		out.Server = &agentHealth{Ok: true, Message: "ok"}
		args := structs.GenericRequest{QueryOptions: structs.QueryOptions{Region: s.Region, AllowStale: true}}
		var leader string
		err := s.RPC.RPC(structs.StatusLeaderRPC, &args, &leader)
		switch {
		case err != nil:
			out.Server = &agentHealth{Message: err.Error()}
		case leader == "":
			out.Server = &agentHealth{Message: "no known leader"}
		}
		healthy = out.Server.Ok
	}
	if info.Client {
		out.Client = &agentHealth{Ok: true, Message: "ok"}
	}
	if !healthy {
		return withStatus{Code: http.StatusInternalServerError, Body: out}, nil
	}
	return out, nil
}
