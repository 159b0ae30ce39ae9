package structs

import (
	"fmt"
	"sort"
	"time"
)

// Parameterized jobs (Nomad's parameterized block) and their dispatched
// children (Job.Dispatch).

// Payload rules of a parameterized job.
const (
	DispatchPayloadOptional  = "optional"
	DispatchPayloadRequired  = "required"
	DispatchPayloadForbidden = "forbidden"
)

// DispatchPayloadSizeLimit is the largest dispatch payload (Nomad's 16 KiB).
const DispatchPayloadSizeLimit = 16 * 1024

// ParameterizedJobConfig is a job's parameterized block.
type ParameterizedJobConfig struct {
	Payload      string
	MetaRequired []string
	MetaOptional []string
}

// Canonicalize defaults the payload rule to optional.
func (p *ParameterizedJobConfig) Canonicalize() {
	if p != nil && p.Payload == "" {
		p.Payload = DispatchPayloadOptional
	}
}

// Validate checks the payload rule and that no key is both required and
// optional.
func (p *ParameterizedJobConfig) Validate() error {
	if p == nil {
		return nil
	}
	var errs MultiError
	switch p.Payload {
	case DispatchPayloadOptional, DispatchPayloadRequired, DispatchPayloadForbidden:
	default:
		errs.Add(fmt.Errorf("parameterized: unknown payload requirement %q (one of %q, %q, %q)", p.Payload,
			DispatchPayloadOptional, DispatchPayloadRequired, DispatchPayloadForbidden))
	}
	req := map[string]bool{}
	for _, k := range p.MetaRequired {
		req[k] = true
	}
	for _, k := range p.MetaOptional {
		if req[k] {
			errs.Add(fmt.Errorf("parameterized: meta key %q is both required and optional", k))
		}
	}
	return errs.ErrorOrNil()
}

// DispatchPayloadConfig is a task's dispatch_payload block: the file, in
// the task's local dir, the payload is written to.
type DispatchPayloadConfig struct {
	File string
}

// JobDispatchRequest dispatches a parameterized job (Nomad's shape).
type JobDispatchRequest struct {
	JobID            string
	Payload          []byte
	Meta             map[string]string
	IdempotencyToken string
	WriteRequest
}

// JobDispatchResponse names the dispatched child (Nomad's shape).
type JobDispatchResponse struct {
	DispatchedJobID string
	EvalID          string
	EvalCreateIndex uint64
	JobCreateIndex  uint64
	WriteMeta
}

// CheckDispatch checks a dispatch of parent against its parameterized
// block: the payload rule and size, required and unknown meta keys. The
// error is a 400 naming the offending key.
func CheckDispatch(parent *Job, payload []byte, meta map[string]string) error {
	cfg := parent.ParameterizedJob
	switch {
	case len(payload) > DispatchPayloadSizeLimit:
		return NewCodedError(ErrCodeBadRequest, "payload exceeds maximum size: %d bytes > %d bytes (16 KiB)",
			len(payload), DispatchPayloadSizeLimit)
	case cfg.Payload == DispatchPayloadForbidden && len(payload) > 0:
		return NewCodedError(ErrCodeBadRequest, "payload is forbidden by job %q", parent.ID)
	case cfg.Payload == DispatchPayloadRequired && len(payload) == 0:
		return NewCodedError(ErrCodeBadRequest, "payload is required by job %q", parent.ID)
	}
	allowed := map[string]bool{}
	for _, k := range cfg.MetaOptional {
		allowed[k] = true
	}
	var missing []string
	for _, k := range cfg.MetaRequired {
		allowed[k] = true
		if _, ok := meta[k]; !ok {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return NewCodedError(ErrCodeBadRequest, "dispatch of job %q is missing required meta keys: %v", parent.ID, missing)
	}
	var unknown []string
	for k := range meta {
		if !allowed[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return NewCodedError(ErrCodeBadRequest, "dispatch of job %q has unpermitted meta keys: %v (allowed: meta_required %v, meta_optional %v)",
			parent.ID, unknown, cfg.MetaRequired, cfg.MetaOptional)
	}
	return nil
}

// DispatchedChild derives the child of a dispatch at now; suffix is 8 hex
// characters making the ID unique within the second.
func DispatchedChild(parent *Job, payload []byte, meta map[string]string, token string, now time.Time, suffix string) *Job {
	child := parent.Copy()
	child.ID = fmt.Sprintf("%s%s%d-%s", parent.ID, DispatchLaunchSuffix, now.Unix(), suffix)
	child.Name = child.ID
	child.ParentID = parent.ID
	child.Dispatched = true
	child.DispatchIdempotencyToken = token
	child.Payload = payload
	child.Status, child.StatusDescription = "", ""
	child.Version, child.Stable = 0, false
	child.CreateIndex, child.ModifyIndex, child.JobModifyIndex = 0, 0, 0
	if len(meta) > 0 {
		if child.Meta == nil {
			child.Meta = map[string]string{}
		}
		for k, v := range meta {
			child.Meta[k] = v
		}
	}
	return child
}
