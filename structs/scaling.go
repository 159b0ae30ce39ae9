package structs

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
)

// Group scaling policies (Nomad's scaling block on a group). nomadish keeps
// them on the job: the policies API derives its list from the jobs.

// ScalingPolicyTypeHorizontal is the type of a group's policy.
const ScalingPolicyTypeHorizontal = "horizontal"

// Scaling policy target keys (Nomad's).
const (
	ScalingTargetNamespace = "Namespace"
	ScalingTargetJob       = "Job"
	ScalingTargetGroup     = "Group"
)

// ScalingMinUnset marks a policy whose min was left out (job file or JSON):
// Canonicalize makes it the group's count, as Nomad's API does.
const ScalingMinUnset = -1

// ScalingPolicy is a group's scaling block (Nomad's shape).
type ScalingPolicy struct {
	ID     string
	Type   string
	Target map[string]string
	Policy map[string]any
	// Min is the lowest count; ScalingMinUnset until canonicalized when
	// it was not given.
	Min         int64
	Max         int64
	Enabled     bool
	CreateIndex uint64
	ModifyIndex uint64
}

// ScalingPolicyListStub is a row of GET /v1/scaling/policies.
type ScalingPolicyListStub struct {
	ID          string
	Enabled     bool
	Type        string
	Target      map[string]string
	CreateIndex uint64
	ModifyIndex uint64
}

// canonicalizeScaling fills the policy's type, target and its ID (derived
// from the target, so it is stable across versions and servers).
func (tg *TaskGroup) canonicalizeScaling(j *Job) {
	p := tg.Scaling
	if p == nil {
		return
	}
	if p.Type == "" {
		p.Type = ScalingPolicyTypeHorizontal
	}
	if p.Min < 0 { // MinUnset: min defaults to the group's count, as Nomad
		p.Min = int64(tg.Count)
	}
	p.Target = map[string]string{ScalingTargetNamespace: j.Namespace, ScalingTargetJob: j.ID, ScalingTargetGroup: tg.Name}
	p.ID = ScalingPolicyID(j.Namespace, j.ID, tg.Name)
}

// ScalingPolicyID is the UUID-shaped ID of a group's policy.
func ScalingPolicyID(namespace, job, group string) string {
	s := sha256.Sum256([]byte(namespace + "\x00" + job + "\x00" + group))
	return fmt.Sprintf("%x-%x-%x-%x-%x", s[0:4], s[4:6], s[6:8], s[8:10], s[10:16])
}

// validateScaling checks min <= max, both non-negative, and the count in
// [min, max].
func (tg *TaskGroup) validateScaling(errs *MultiError) {
	p := tg.Scaling
	if p == nil {
		return
	}
	if p.Min < 0 || p.Max < 0 {
		errs.Add(fmt.Errorf("group %q: scaling policy min and max can't be negative", tg.Name))
	}
	if p.Min > p.Max {
		errs.Add(fmt.Errorf("group %q: scaling policy min %d is greater than max %d", tg.Name, p.Min, p.Max))
		return
	}
	if err := p.CheckCount(int64(tg.Count)); err != nil {
		errs.Add(fmt.Errorf("group %q: %w", tg.Name, err))
	}
}

// CheckCount reports a count outside [Min, Max].
func (p *ScalingPolicy) CheckCount(count int64) error {
	if p == nil {
		return nil
	}
	if count < p.Min {
		return fmt.Errorf("count %d is less than the scaling policy minimum %d", count, p.Min)
	}
	if count > p.Max {
		return fmt.Errorf("count %d is greater than the scaling policy maximum %d", count, p.Max)
	}
	return nil
}

// Stub returns the list row of the policy.
func (p *ScalingPolicy) Stub() *ScalingPolicyListStub {
	return &ScalingPolicyListStub{ID: p.ID, Enabled: p.Enabled, Type: p.Type, Target: p.Target,
		CreateIndex: p.CreateIndex, ModifyIndex: p.ModifyIndex}
}

// ScalingPolicyListRequest lists policies (Scaling.ListPolicies).
type ScalingPolicyListRequest struct {
	JobID string // optional filter: the policies of one job
	Type  string
	QueryOptions
}

// ScalingPolicyListResponse answers ScalingPolicyListRequest.
type ScalingPolicyListResponse struct {
	Policies []*ScalingPolicyListStub
	QueryMeta
}

// ScalingPolicySpecificRequest reads one policy.
type ScalingPolicySpecificRequest struct {
	ID string
	QueryOptions
}

// SingleScalingPolicyResponse answers ScalingPolicySpecificRequest (nil
// when not found).
type SingleScalingPolicyResponse struct {
	Policy *ScalingPolicy
	QueryMeta
}

// RPC methods of the scaling policies.
const (
	ScalingListPoliciesRPC = "Scaling.ListPolicies"
	ScalingGetPolicyRPC    = "Scaling.GetPolicy"
)

// UnmarshalJSON defaults Enabled to true when the JSON leaves it out or
// null (Nomad's API canonicalization).
func (p *ScalingPolicy) UnmarshalJSON(b []byte) error {
	type plain ScalingPolicy
	var in struct {
		plain
		Enabled *bool
		Min     *int64
	}
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*p = ScalingPolicy(in.plain)
	p.Enabled = in.Enabled == nil || *in.Enabled
	p.Min = ScalingMinUnset
	if in.Min != nil {
		p.Min = *in.Min
	}
	return nil
}
