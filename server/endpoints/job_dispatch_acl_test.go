package endpoints

import (
	"testing"

	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

// With ACLs on: dispatch needs dispatch-job, periodic force dispatch-job
// or submit-job (as Nomad), the scaling policies list-scaling-policies; a
// refusal is a 403 that writes nothing.
func TestDispatchForceScalingACL(t *testing.T) {
	d, a := aclDeps(t)
	aclApply := d.Apply
	var index uint64 = 1000
	d.Apply = func(mt structs.MessageType, msg any) (uint64, any, error) {
		switch m := msg.(type) {
		case *structs.JobRegisterRequest:
			index++
			return index, nil, d.State().UpsertJob(index, m.Job, m.Eval)
		case *structs.PeriodicLaunchRequest:
			index++
			return index, nil, d.State().UpsertPeriodicLaunch(index, m.Launch, m.Child, m.Eval)
		}
		return aclApply(mt, msg)
	}
	root := bootstrap(t, a)
	mgmt := structs.WriteRequest{AuthToken: root.SecretID}
	if err := a.UpsertPolicies(&structs.ACLPolicyUpsertRequest{WriteRequest: mgmt, Policies: []*structs.ACLPolicy{
		{Name: "reader", Rules: `namespace "default" { policy = "read" }`},
		{Name: "dispatcher", Rules: `namespace "default" { capabilities = ["dispatch-job"] }`},
		{Name: "submitter", Rules: `namespace "default" { capabilities = ["submit-job"] }`},
	}}, &structs.GenericResponse{}); err != nil {
		t.Fatal(err)
	}
	token := func(policy string) string {
		var tr structs.ACLTokenUpsertResponse
		if err := a.UpsertTokens(&structs.ACLTokenUpsertRequest{WriteRequest: mgmt, Tokens: []*structs.ACLToken{{Policies: []string{policy}}}}, &tr); err != nil {
			t.Fatal(err)
		}
		return tr.Tokens[0].SecretID
	}
	reader, dispatcher, submitter := token("reader"), token("dispatcher"), token("submitter")
	e := &Job{d: d}
	for _, j := range []*structs.Job{parameterizedJob(), func() *structs.Job {
		j := structstest.Job("nightly")
		j.Type = structs.JobTypeBatch
		j.Periodic = &structs.PeriodicConfig{Enabled: true, Spec: "0 3 * * *"}
		return j
	}()} {
		if err := e.Register(&structs.JobRegisterRequest{Job: j, WriteRequest: mgmt}, &structs.JobRegisterResponse{}); err != nil {
			t.Fatal(err)
		}
	}
	dispatch := func(tok string) error {
		return e.Dispatch(&structs.JobDispatchRequest{JobID: "report", Payload: []byte("x"), Meta: map[string]string{"customer": "a"},
			WriteRequest: structs.WriteRequest{AuthToken: tok}}, &structs.JobDispatchResponse{})
	}
	wantCode(t, dispatch(reader), 403, "Permission denied")
	if kids, _ := d.State().JobChildren(nil, "default", "report"); len(kids) != 0 {
		t.Fatalf("a refused dispatch wrote %v", kids)
	}
	if err := dispatch(dispatcher); err != nil {
		t.Fatalf("dispatch-job token: %v", err)
	}
	force := func(tok string) error {
		return e.PeriodicForce(&structs.PeriodicForceRequest{JobID: "nightly", WriteRequest: structs.WriteRequest{AuthToken: tok}}, &structs.PeriodicForceResponse{})
	}
	wantCode(t, force(reader), 403, "Permission denied")
	if err := force(submitter); err != nil {
		t.Fatalf("submit-job token: %v", err)
	}
	sc := &Scaling{d: d}
	wantCode(t, sc.ListPolicies(&structs.ScalingPolicyListRequest{QueryOptions: structs.QueryOptions{Namespace: "default", AuthToken: dispatcher}},
		&structs.ScalingPolicyListResponse{}), 403, "Permission denied")
	if err := sc.ListPolicies(&structs.ScalingPolicyListRequest{QueryOptions: structs.QueryOptions{Namespace: "default", AuthToken: reader}},
		&structs.ScalingPolicyListResponse{}); err != nil {
		t.Fatalf("read policy lists scaling policies: %v", err)
	}
}
