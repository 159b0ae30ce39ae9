package server

import (
	"reflect"
	"testing"

	"github.com/nomadish/nomadish/internal/niltest"
	"github.com/nomadish/nomadish/structs"
)

// TestEndpointsNilAtEverySite: the same sweep through a real server's
// write endpoints that take whole objects (Node.Register, Node.UpdateAlloc,
// Job.Register, Job.Plan): each answer is a success or a 4xx, never the
// 500 of a recovered panic.
func TestEndpointsNilAtEverySite(t *testing.T) {
	s := testServer(t, nil)
	type call struct {
		method string
		args   func() any
		reply  func() any
	}
	calls := []call{
		{structs.NodeRegisterRPC, func() any { return &structs.NodeRegisterRequest{} }, func() any { return &structs.NodeUpdateResponse{} }},
		{structs.NodeUpdateAllocRPC, func() any { return &structs.AllocUpdateRequest{} }, func() any { return &structs.GenericResponse{} }},
		{structs.JobRegisterRPC, func() any { return &structs.JobRegisterRequest{} }, func() any { return &structs.JobRegisterResponse{} }},
		{structs.JobPlanRPC, func() any { return &structs.JobPlanRequest{} }, func() any { return &structs.JobPlanResponse{} }},
	}
	for _, c := range calls {
		sites := 0
		for n := 0; ; n++ {
			args := c.args()
			niltest.Fill(reflect.ValueOf(args).Elem())
			k := n
			path := niltest.Site(reflect.ValueOf(args).Elem(), &k)
			if path == "" {
				break
			}
			sites++
			if err := s.RPC(c.method, args, c.reply()); err != nil {
				if code, msg := structs.ErrorCode(err); code >= 500 {
					t.Errorf("%s with nil at %s: %d %s", c.method, path, code, msg)
				}
			}
		}
		t.Logf("%s: %d nil sites", c.method, sites)
	}
}
