package agent

import (
	"net/http"
	"strconv"

	"github.com/nomadish/nomadish/structs"
)

// schedulerConfigGet serves GET /v1/operator/scheduler/configuration:
// {SchedulerConfig, Index, ...} (Nomad's SchedulerConfigurationResponse).
func (s *httpServer) schedulerConfigGet(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	args := structs.GenericRequest{QueryOptions: q}
	var reply structs.SchedulerConfigurationResponse
	if err := s.RPC.RPC(structs.OperatorSchedulerGetConfigurationRPC, &args, &reply); err != nil {
		return nil, err
	}
	setMeta(w, &reply.QueryMeta)
	return reply, nil
}

// schedulerConfigSet serves PUT|POST /v1/operator/scheduler/configuration
// with a SchedulerConfiguration body; ?cas=<ModifyIndex> writes only if the
// stored configuration is still at that index. Answers {Updated, Index}.
func (s *httpServer) schedulerConfigSet(w http.ResponseWriter, r *http.Request) (any, error) {
	args := structs.SchedulerSetConfigRequest{WriteRequest: s.parseWrite(r)}
	if err := decodeBody(r, &args.Config); err != nil {
		return nil, err
	}
	if v := r.URL.Query().Get("cas"); v != "" {
		idx, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return nil, badRequest("Error parsing cas value %q: %v", v, err)
		}
		args.CAS, args.Config.ModifyIndex = true, idx
	}
	var reply structs.SchedulerSetConfigurationResponse
	if err := s.RPC.RPC(structs.OperatorSchedulerSetConfigurationRPC, &args, &reply); err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return reply, nil
}
