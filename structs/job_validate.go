package structs

import "fmt"

// A submitted job's defaults (Canonicalize) and its checks (Validate),
// which jobcheck runs one after the other.

// Canonicalize fills defaults in place: namespace, region, name, priority,
// datacenters, counts, restart and reschedule policies (a group without one
// takes the job's Reschedule, else the type's default), resources and kill
// timeouts.
// jobcheck.Prepare (the server, for every submitted job) and jobcheck.Check
// (`job validate`) call it before validation.
func (j *Job) Canonicalize() {
	if j == nil {
		return
	}
	if j.Namespace == "" {
		j.Namespace = "default"
	}
	if j.Region == "" {
		j.Region = DefaultRegion
	}
	if j.Name == "" {
		j.Name = j.ID
	}
	if j.Type == "" {
		j.Type = JobTypeService
	}
	if j.Priority == 0 {
		j.Priority = DefaultJobPriority
	}
	if len(j.Datacenters) == 0 {
		j.Datacenters = []string{"*"}
	}
	if j.NodePool == "" {
		j.NodePool = "default"
	}
	j.Periodic.Canonicalize()
	j.ParameterizedJob.Canonicalize()
	for _, tg := range j.TaskGroups {
		tg.canonicalize(j)
	}
}

func (tg *TaskGroup) canonicalize(j *Job) {
	switch {
	case j.Type == JobTypeSystem || j.Type == JobTypeSysBatch:
		// One allocation per feasible node: the count is ignored.
		tg.Count = 1
	case tg.Count == 0 && tg.Scaling != nil && tg.Scaling.Min >= 0:
		tg.Count = int(tg.Scaling.Min) // as Nomad: count defaults to min (scaling.go)
	case tg.Count == 0:
		// Nomad defaults a missing count to 1; an explicit 0 arrives as 0
		// only through the API, where we cannot tell them apart either.
		tg.Count = 1
	}
	if tg.RestartPolicy == nil {
		if j.Type == JobTypeBatch || j.Type == JobTypeSysBatch {
			tg.RestartPolicy = DefaultBatchRestartPolicy()
		} else {
			tg.RestartPolicy = DefaultServiceRestartPolicy()
		}
	}
	if tg.RestartPolicy.Mode == "" {
		tg.RestartPolicy.Mode = RestartPolicyModeFail
	}
	if tg.ReschedulePolicy == nil {
		if j.Reschedule != nil {
			tg.ReschedulePolicy = j.Reschedule.Copy()
		} else {
			tg.ReschedulePolicy = DefaultReschedulePolicy(j.Type)
		}
	}
	if tg.ReschedulePolicy != nil {
		tg.ReschedulePolicy.canonicalize(j.Type)
	}
	if tg.EphemeralDisk == nil {
		tg.EphemeralDisk = DefaultEphemeralDisk()
	}
	tg.canonicalizeScaling(j)
	tg.canonicalizeMigrate(j)
	tg.canonicalizeVolumes()
	tg.canonicalizeUpdate(j)
	tg.canonicalizeServices(j) // service_canonicalize.go
	for _, t := range tg.Tasks {
		t.canonicalizeRestart(tg) // lifecycle.go
		t.Canonicalize()
	}
}

// Canonicalize fills a task's defaults.
func (t *Task) Canonicalize() {
	if t.Resources == nil {
		t.Resources = DefaultResources()
	}
	t.Resources.Canonicalize()
	if t.KillTimeout == 0 {
		t.KillTimeout = DefaultKillTimeout
	}
	for _, a := range t.Artifacts {
		if a != nil {
			a.Canonicalize()
		}
	}
	for _, tmpl := range t.Templates {
		tmpl.Canonicalize()
	}
}

// Validate checks a canonicalized job. The error lists every problem found,
// each naming the place (group/task) it concerns.
func (j *Job) Validate() error {
	var errs MultiError
	if j.ID == "" {
		errs.Add(fmt.Errorf("missing job ID"))
	} else if containsSpace(j.ID) {
		errs.Add(fmt.Errorf("job ID %q contains a space", j.ID))
	}
	if j.Name == "" {
		errs.Add(fmt.Errorf("missing job name"))
	}
	switch j.Type {
	case JobTypeService, JobTypeBatch, JobTypeSystem, JobTypeSysBatch:
	default:
		errs.Add(fmt.Errorf("invalid job type %q", j.Type))
	}
	if j.Priority < MinJobPriority || j.Priority > MaxJobPriority {
		errs.Add(fmt.Errorf("job priority must be between [%d, %d]", MinJobPriority, MaxJobPriority))
	}
	if len(j.TaskGroups) == 0 {
		errs.Add(fmt.Errorf("missing job task groups"))
	}
	validatePreferences("job", j.Affinities, j.Spreads, &errs)
	seen := map[string]bool{}
	for i, tg := range j.TaskGroups {
		if tg.Name == "" {
			errs.Add(fmt.Errorf("task group %d: missing name", i+1))
			continue
		}
		if seen[tg.Name] {
			errs.Add(fmt.Errorf("task group %q defined more than once", tg.Name))
		}
		seen[tg.Name] = true
		tg.validate(&errs)
	}
	j.validatePeriodic(&errs) // periodic_validate.go
	j.validateConstraints(&errs)
	j.validateBounds(&errs) // validate_bounds.go: names, IDs, sizes
	return errs.ErrorOrNil()
}

func (tg *TaskGroup) validate(errs *MultiError) {
	if tg.Count < 0 {
		errs.Add(fmt.Errorf("group %q: count can't be negative", tg.Name))
	}
	if len(tg.Tasks) == 0 {
		errs.Add(fmt.Errorf("group %q: missing tasks", tg.Name))
	}
	tg.validateScaling(errs)
	if rp := tg.RestartPolicy; rp != nil {
		if rp.Mode != RestartPolicyModeDelay && rp.Mode != RestartPolicyModeFail {
			errs.Add(fmt.Errorf("group %q: restart mode %q must be %q or %q", tg.Name, rp.Mode, RestartPolicyModeDelay, RestartPolicyModeFail))
		}
		if rp.Attempts < 0 || rp.Delay < 0 || rp.Interval < 0 {
			errs.Add(fmt.Errorf("group %q: restart attempts, delay and interval can't be negative", tg.Name))
		}
	}
	if tg.ReschedulePolicy != nil {
		tg.ReschedulePolicy.validate(fmt.Sprintf("group %q", tg.Name), errs)
	}
	validatePreferences(fmt.Sprintf("group %q", tg.Name), tg.Affinities, tg.Spreads, errs)
	tg.validateUpdate(errs)
	tg.validateNetworks(errs)
	tg.validateServices(errs) // service_validate.go
	tg.validateDisconnect(errs)
	tg.validateVolumes(errs)
	tg.validateLifecycle(errs) // lifecycle.go
	seen := map[string]bool{}
	for i, t := range tg.Tasks {
		if t.Name == "" {
			errs.Add(fmt.Errorf("group %q: task %d: missing name", tg.Name, i+1))
			continue
		}
		if seen[t.Name] {
			errs.Add(fmt.Errorf("group %q: task %q defined more than once", tg.Name, t.Name))
		}
		seen[t.Name] = true
		if t.Driver == "" {
			errs.Add(fmt.Errorf("group %q: task %q: missing driver", tg.Name, t.Name))
		}
		validatePreferences(fmt.Sprintf("group %q: task %q", tg.Name, t.Name), t.Affinities, nil, errs)
		t.validateArtifacts(fmt.Sprintf("group %q: task %q", tg.Name, t.Name), errs) // artifact.go
		if t.KillTimeout < 0 {
			errs.Add(fmt.Errorf("group %q: task %q: kill_timeout can't be negative", tg.Name, t.Name))
		}
		if t.Resources != nil {
			if err := t.Resources.Validate(); err != nil {
				errs.Add(fmt.Errorf("group %q: task %q: %w", tg.Name, t.Name, err))
			}
		}
		t.validateTemplates(fmt.Sprintf("group %q: task %q", tg.Name, t.Name), errs)
	}
}

func containsSpace(s string) bool {
	for _, r := range s {
		if r == ' ' || r == '\t' || r == '\n' {
			return true
		}
	}
	return false
}
