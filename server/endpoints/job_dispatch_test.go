package endpoints

import (
	"strings"
	"testing"

	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

// jobDeps are test deps whose Apply writes job registrations and periodic
// launches into the store as the FSM does.
func jobDeps(t *testing.T) (*Deps, *Job) {
	t.Helper()
	d := testDeps(t)
	var index uint64 = 100
	d.Apply = func(mt structs.MessageType, msg any) (uint64, any, error) {
		index++
		st := d.State()
		var err error
		switch m := msg.(type) {
		case *structs.JobRegisterRequest:
			err = st.UpsertJob(index, m.Job, m.Eval)
		case *structs.PeriodicLaunchRequest:
			err = st.UpsertPeriodicLaunch(index, m.Launch, m.Child, m.Eval)
		default:
			t.Fatalf("unexpected apply %d %T", mt, msg)
		}
		return index, nil, err
	}
	return d, &Job{d: d}
}

func register(t *testing.T, e *Job, job *structs.Job) *structs.JobRegisterResponse {
	t.Helper()
	var reply structs.JobRegisterResponse
	if err := e.Register(&structs.JobRegisterRequest{Job: job}, &reply); err != nil {
		t.Fatalf("register %s: %v", job.ID, err)
	}
	return &reply
}

func parameterizedJob() *structs.Job {
	j := structstest.Job("report")
	j.Type = structs.JobTypeBatch
	j.ParameterizedJob = &structs.ParameterizedJobConfig{Payload: structs.DispatchPayloadRequired,
		MetaRequired: []string{"customer"}, MetaOptional: []string{"format"}}
	j.TaskGroups[0].Tasks[0].DispatchPayload = &structs.DispatchPayloadConfig{File: "input.json"}
	return j
}

func TestDispatchRules(t *testing.T) {
	d, e := jobDeps(t)
	reply := register(t, e, parameterizedJob())
	if reply.EvalID != "" {
		t.Fatalf("a parameterized parent got an eval: %+v", reply)
	}
	parent, _ := d.State().JobByID(nil, "default", "report")
	if parent.Status != structs.JobStatusRunning {
		t.Fatalf("parent status = %q, want running", parent.Status)
	}
	ok := map[string]string{"customer": "acme"}
	for _, tc := range []struct {
		name    string
		payload []byte
		meta    map[string]string
		want    string
	}{
		{"missing required meta", []byte("x"), nil, `missing required meta keys: [customer]`},
		{"unknown meta", []byte("x"), map[string]string{"customer": "a", "colour": "red"}, `unpermitted meta keys: [colour]`},
		{"missing payload", nil, ok, `payload is required`},
		{"payload too large", make([]byte, 16*1024+1), ok, `payload exceeds maximum size: 16385 bytes > 16384 bytes (16 KiB)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r structs.JobDispatchResponse
			err := e.Dispatch(&structs.JobDispatchRequest{JobID: "report", Payload: tc.payload, Meta: tc.meta}, &r)
			wantCode(t, err, 400, tc.want)
			if kids, _ := d.State().JobChildren(nil, "default", "report"); len(kids) != 0 {
				t.Fatalf("a refused dispatch wrote %d children", len(kids))
			}
		})
	}
	var r structs.JobDispatchResponse
	err := e.Dispatch(&structs.JobDispatchRequest{JobID: "report", Payload: []byte(`{"a":1}`),
		Meta: map[string]string{"customer": "acme", "format": "pdf"}, IdempotencyToken: "tok"}, &r)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(r.DispatchedJobID, "report/dispatch-") || len(r.DispatchedJobID) != len("report/dispatch-")+10+1+8 || r.EvalID == "" {
		t.Fatalf("reply = %+v", r)
	}
	child, _ := d.State().JobByID(nil, "default", r.DispatchedJobID)
	if child.ParentID != "report" || !child.Dispatched || string(child.Payload) != `{"a":1}` ||
		child.Meta["customer"] != "acme" || child.IsParameterized() {
		t.Fatalf("child = %+v", child)
	}
	// The same token returns the same child.
	var again structs.JobDispatchResponse
	if err := e.Dispatch(&structs.JobDispatchRequest{JobID: "report", Payload: []byte("y"),
		Meta: ok, IdempotencyToken: "tok"}, &again); err != nil || again.DispatchedJobID != r.DispatchedJobID {
		t.Fatalf("idempotent dispatch = %+v, %v", again, err)
	}
	// Not parameterized, not found.
	register(t, e, structstest.Job("plain"))
	wantCode(t, e.Dispatch(&structs.JobDispatchRequest{JobID: "plain"}, &r), 400, "not a parameterized job")
	wantCode(t, e.Dispatch(&structs.JobDispatchRequest{JobID: "nope"}, &r), 404, "job not found")
	// The list shows the children under the parent.
	var list structs.JobListResponse
	if err := e.List(&structs.JobListRequest{QueryOptions: structs.QueryOptions{Namespace: "default", Prefix: "report"}}, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Jobs) != 2 || !list.Jobs[0].ParameterizedJob || list.Jobs[0].JobSummary.Children == nil ||
		list.Jobs[0].JobSummary.Children.Pending != 1 || list.Jobs[1].ParentID != "report" {
		t.Fatalf("list = %+v", list.Jobs)
	}
}

func TestPeriodicForce(t *testing.T) {
	d, e := jobDeps(t)
	j := structstest.Job("nightly")
	j.Type = structs.JobTypeBatch
	j.Periodic = &structs.PeriodicConfig{Enabled: true, Spec: "0 3 * * *"}
	if r := register(t, e, j); r.EvalID != "" {
		t.Fatalf("a periodic parent got an eval: %+v", r)
	}
	var r structs.PeriodicForceResponse
	if err := e.PeriodicForce(&structs.PeriodicForceRequest{JobID: "nightly"}, &r); err != nil || r.EvalID == "" {
		t.Fatalf("force = %+v, %v", r, err)
	}
	now := d.Clock.Now()
	child, _ := d.State().JobByID(nil, "default", structs.PeriodicChildID("nightly", now))
	if child == nil || child.Periodic != nil || child.ParentID != "nightly" {
		t.Fatalf("child = %+v", child)
	}
	last, _ := d.State().PeriodicLaunchByID(nil, "default", "nightly")
	if last == nil || !last.Launch.Equal(now) {
		t.Fatalf("launch = %+v", last)
	}
	wantCode(t, e.PeriodicForce(&structs.PeriodicForceRequest{JobID: "nightly"}, &r), 409, "already launched")
	register(t, e, structstest.Job("plain"))
	wantCode(t, e.PeriodicForce(&structs.PeriodicForceRequest{JobID: "plain"}, &r), 400, "not periodic")
}

func TestScaleBoundsAndPolicies(t *testing.T) {
	d, e := jobDeps(t)
	j := structstest.Job("web")
	j.TaskGroups[0].Count = 0
	j.TaskGroups[0].Scaling = &structs.ScalingPolicy{Min: 2, Max: 5, Enabled: true}
	register(t, e, j)
	cur, _ := d.State().JobByID(nil, "default", "web")
	if cur.TaskGroups[0].Count != 2 {
		t.Fatalf("count = %d, want min 2", cur.TaskGroups[0].Count)
	}
	for _, n := range []int64{1, 6} {
		var reply structs.JobRegisterResponse
		err := e.Scale(&structs.JobScaleRequest{JobID: "web", Target: map[string]string{"Group": "web"}, Count: &n}, &reply)
		wantCode(t, err, 400, "scaling policy")
	}
	n := int64(4)
	var reply structs.JobRegisterResponse
	if err := e.Scale(&structs.JobScaleRequest{JobID: "web", Target: map[string]string{"Group": "web"}, Count: &n}, &reply); err != nil {
		t.Fatal(err)
	}
	sc := &Scaling{d: d}
	var list structs.ScalingPolicyListResponse
	if err := sc.ListPolicies(&structs.ScalingPolicyListRequest{QueryOptions: structs.QueryOptions{Namespace: "default"}}, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Policies) != 1 || list.Policies[0].Target["Job"] != "web" || list.Policies[0].Type != "horizontal" {
		t.Fatalf("policies = %+v", list.Policies)
	}
	var one structs.SingleScalingPolicyResponse
	if err := sc.GetPolicy(&structs.ScalingPolicySpecificRequest{ID: list.Policies[0].ID}, &one); err != nil || one.Policy == nil || one.Policy.Max != 5 {
		t.Fatalf("policy = %+v, %v", one.Policy, err)
	}
	// Out of bounds at register is a 400 too.
	bad := structstest.Job("web2")
	bad.TaskGroups[0].Count = 9
	bad.TaskGroups[0].Scaling = &structs.ScalingPolicy{Min: 1, Max: 3}
	wantCode(t, e.Register(&structs.JobRegisterRequest{Job: bad}, &reply), 400, "greater than the scaling policy maximum")
}
