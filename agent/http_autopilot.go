package agent

import (
	"net/http"
	"strconv"
	"time"

	"github.com/nomadish/nomadish/structs"
)

// autopilotConfigJSON is api.AutopilotConfiguration on the wire: the
// durations are Go duration strings ("200ms", "10s").
type autopilotConfigJSON struct {
	CleanupDeadServers      bool
	LastContactThreshold    string
	MaxTrailingLogs         uint64
	MinQuorum               uint
	ServerStabilizationTime string
	EnableRedundancyZones   bool
	DisableUpgradeMigration bool
	EnableCustomUpgrades    bool
	CreateIndex             uint64
	ModifyIndex             uint64
}

func autopilotToJSON(c *structs.AutopilotConfig) autopilotConfigJSON {
	return autopilotConfigJSON{
		CleanupDeadServers: c.CleanupDeadServers, LastContactThreshold: c.LastContactThreshold.String(),
		MaxTrailingLogs: c.MaxTrailingLogs, MinQuorum: c.MinQuorum, ServerStabilizationTime: c.ServerStabilizationTime.String(),
		EnableRedundancyZones: c.EnableRedundancyZones, DisableUpgradeMigration: c.DisableUpgradeMigration,
		EnableCustomUpgrades: c.EnableCustomUpgrades, CreateIndex: c.CreateIndex, ModifyIndex: c.ModifyIndex,
	}
}

// config parses j; an empty duration keeps Nomad's default.
func (j autopilotConfigJSON) config() (structs.AutopilotConfig, error) {
	d := structs.DefaultAutopilotConfig()
	out := structs.AutopilotConfig{
		CleanupDeadServers: j.CleanupDeadServers, MaxTrailingLogs: j.MaxTrailingLogs, MinQuorum: j.MinQuorum,
		LastContactThreshold: d.LastContactThreshold, ServerStabilizationTime: d.ServerStabilizationTime,
		EnableRedundancyZones: j.EnableRedundancyZones, DisableUpgradeMigration: j.DisableUpgradeMigration,
		EnableCustomUpgrades: j.EnableCustomUpgrades, ModifyIndex: j.ModifyIndex,
	}
	for _, f := range []struct {
		name, val string
		dst       *time.Duration
	}{{"LastContactThreshold", j.LastContactThreshold, &out.LastContactThreshold}, {"ServerStabilizationTime", j.ServerStabilizationTime, &out.ServerStabilizationTime}} {
		if f.val == "" {
			continue
		}
		v, err := time.ParseDuration(f.val)
		if err != nil {
			return out, badRequest("%s: %v", f.name, err)
		}
		*f.dst = v
	}
	return out, nil
}

// serverHealthJSON is api.ServerHealth on the wire (LastContact a
// duration string).
type serverHealthJSON struct {
	ID, Name, Address, SerfStatus, Version string
	Leader                                 bool
	LastContact                            string
	LastTerm, LastIndex                    uint64
	Healthy, Voter                         bool
	StableSince                            time.Time
}

// operatorHealthJSON is api.OperatorHealthReply.
type operatorHealthJSON struct {
	Healthy          bool
	FailureTolerance int
	Servers          []serverHealthJSON
	Leader           string
	Voters           []string
}

func (s *httpServer) autopilotRoutes(h func(string, handlerFunc)) {
	h("GET /v1/operator/autopilot/configuration", s.autopilotGet)
	h("PUT /v1/operator/autopilot/configuration", s.autopilotSet)
	h("POST /v1/operator/autopilot/configuration", s.autopilotSet)
	h("GET /v1/operator/autopilot/health", s.autopilotHealth)
}

// autopilotGet serves GET /v1/operator/autopilot/configuration: the stored
// configuration, Nomad's defaults until one is written; blocking.
func (s *httpServer) autopilotGet(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	var reply structs.AutopilotConfigResponse
	if err := s.RPC.RPC(structs.OperatorAutopilotGetConfigurationRPC, &structs.GenericRequest{QueryOptions: q}, &reply); err != nil {
		return nil, err
	}
	setMeta(w, &reply.QueryMeta)
	return autopilotToJSON(reply.Config), nil
}

// autopilotSet serves PUT /v1/operator/autopilot/configuration[?cas=N]:
// answers true when written (false: the CAS index was stale).
func (s *httpServer) autopilotSet(w http.ResponseWriter, r *http.Request) (any, error) {
	var in autopilotConfigJSON
	if err := decodeBody(r, &in); err != nil {
		return nil, err
	}
	cfg, err := in.config()
	if err != nil {
		return nil, err
	}
	args := structs.AutopilotSetConfigRequest{Config: cfg, WriteRequest: s.parseWrite(r)}
	if v := r.URL.Query().Get("cas"); v != "" {
		idx, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return nil, badRequest("Error parsing cas value %q: %v", v, err)
		}
		args.CAS, args.Config.ModifyIndex = true, idx
	}
	var reply structs.AutopilotSetConfigResponse
	if err := s.RPC.RPC(structs.OperatorAutopilotSetConfigurationRPC, &args, &reply); err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return reply.Updated, nil
}

// autopilotHealth serves GET /v1/operator/autopilot/health: the servers'
// health (Nomad's OperatorHealthReply), 429 with the same body when the
// cluster is unhealthy, as Nomad answers.
func (s *httpServer) autopilotHealth(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	var reply structs.OperatorHealthReply
	if err := s.RPC.RPC(structs.OperatorServerHealthRPC, &structs.GenericRequest{QueryOptions: q}, &reply); err != nil {
		return nil, err
	}
	out := operatorHealthJSON{Healthy: reply.Healthy, FailureTolerance: reply.FailureTolerance, Leader: reply.Leader,
		Voters: reply.Voters, Servers: make([]serverHealthJSON, 0, len(reply.Servers))}
	for _, h := range reply.Servers {
		out.Servers = append(out.Servers, serverHealthJSON{
			ID: h.ID, Name: h.Name, Address: h.Address, SerfStatus: h.SerfStatus, Version: h.Version, Leader: h.Leader,
			LastContact: h.LastContact.String(), LastTerm: h.LastTerm, LastIndex: h.LastIndex, Healthy: h.Healthy,
			Voter: h.Voter, StableSince: h.StableSince,
		})
	}
	if !reply.Healthy {
		return withStatus{Code: http.StatusTooManyRequests, Body: out}, nil
	}
	return out, nil
}
