package structs

import (
	"fmt"
	"path/filepath"
	"strings"
)

// validatePeriodic checks the periodic, parameterized and dispatch_payload
// blocks: valid crons and payload rules, periodic jobs of batch type (as
// Nomad), and dispatch_payload files that stay inside the task's local dir.
func (j *Job) validatePeriodic(errs *MultiError) {
	if j.Periodic != nil && j.Periodic.Enabled { // as Nomad: a disabled block is not checked
		if j.Type != JobTypeBatch && j.Type != JobTypeSysBatch {
			errs.Add(fmt.Errorf("periodic can only be used with %q or %q scheduler", JobTypeBatch, JobTypeSysBatch))
		}
		if err := j.Periodic.Validate(); err != nil {
			errs.Add(err)
		}
	}
	if j.ParameterizedJob != nil {
		if j.Type != JobTypeBatch && j.Type != JobTypeSysBatch {
			errs.Add(fmt.Errorf("parameterized job can only be used with %q or %q scheduler", JobTypeBatch, JobTypeSysBatch))
		}
		if err := j.ParameterizedJob.Validate(); err != nil {
			errs.Add(err)
		}
	}
	if len(j.Payload) > DispatchPayloadSizeLimit {
		errs.Add(fmt.Errorf("payload exceeds maximum size of %d bytes", DispatchPayloadSizeLimit))
	}
	for _, tg := range j.TaskGroups {
		for _, t := range tg.Tasks {
			if t.DispatchPayload == nil {
				continue
			}
			if err := CheckPayloadFile(t.DispatchPayload.File); err != nil {
				errs.Add(fmt.Errorf("group %q task %q: dispatch_payload: %w", tg.Name, t.Name, err))
			}
		}
	}
}

// CheckPayloadFile refuses an empty, absolute or escaping dispatch_payload
// file (it is relative to the task's local dir).
func CheckPayloadFile(file string) error {
	if file == "" {
		return fmt.Errorf("file is required")
	}
	if filepath.IsAbs(file) {
		return fmt.Errorf("file %q must be relative to the task's local dir", file)
	}
	clean := filepath.Clean(file)
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return fmt.Errorf("file %q escapes the task's local dir", file)
	}
	return nil
}
