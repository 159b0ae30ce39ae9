package structs

import (
	"fmt"
	"strings"
	"time"
)

// DefaultCheckRestartGrace is check_restart's grace when the block leaves it
// out (Nomad's 1s).
const DefaultCheckRestartGrace = time.Second

// canonicalizeServices fills the defaults of the group's services and of its
// tasks' services, as Nomad does: a name `<job>-<group>[-<task>]`
// (${JOB}, ${TASKGROUP}, ${TASK} and ${BASE} interpolated), address_mode
// "auto", provider "consul", on_update "require_healthy", the job's
// namespace, and each check with a name, the service's on_update and
// check_restart (the check's own settings win), check_restart's grace 1s.
// Called by TaskGroup.canonicalize.
func (tg *TaskGroup) canonicalizeServices(j *Job) {
	for _, s := range tg.Services {
		s.canonicalize(j, tg.Name, "")
	}
	for _, t := range tg.Tasks {
		for _, s := range t.Services {
			s.canonicalize(j, tg.Name, t.Name)
		}
	}
}

// canonicalize fills one service's defaults; task is "" for a group service.
func (s *Service) canonicalize(j *Job, group, task string) {
	if s == nil {
		return
	}
	base := j.Name + "-" + group
	if task != "" {
		base += "-" + task
	}
	if s.Name == "" {
		s.Name = base
	}
	s.Name = strings.NewReplacer("${JOB}", j.Name, "${TASKGROUP}", group, "${TASK}", task,
		"${BASE}", base).Replace(s.Name)
	if task != "" && s.TaskName == "" {
		s.TaskName = task
	}
	if len(s.Tags) == 0 {
		s.Tags = nil
	}
	if len(s.CanaryTags) == 0 {
		s.CanaryTags = nil
	}
	if s.AddressMode == "" {
		s.AddressMode = AddressModeAuto
	}
	if s.OnUpdate == "" {
		s.OnUpdate = OnUpdateRequireHealthy
	}
	if s.Provider == "" {
		s.Provider = ServiceProviderConsul
	}
	// nomadish's catalog serves both providers, keyed by the job's namespace.
	s.Namespace = j.Namespace
	for _, c := range s.Checks {
		c.canonicalize(s)
	}
	if len(s.Checks) == 0 {
		s.Checks = nil
	}
}

// canonicalize fills a check's defaults from its service.
func (c *ServiceCheck) canonicalize(s *Service) {
	if c == nil {
		return
	}
	if c.Name == "" {
		c.Name = fmt.Sprintf("service: %q check", s.Name)
	}
	if c.TaskName == "" {
		c.TaskName = s.TaskName
	}
	if c.OnUpdate == "" {
		c.OnUpdate = s.OnUpdate
	}
	if len(c.Args) == 0 {
		c.Args = nil
	}
	if len(c.Header) == 0 {
		c.Header = nil
	}
	c.CheckRestart = mergeCheckRestart(s.CheckRestart, c.CheckRestart)
	if c.CheckRestart != nil && c.CheckRestart.Grace == 0 {
		c.CheckRestart.Grace = DefaultCheckRestartGrace
	}
}

// mergeCheckRestart returns the check's own check_restart over the
// service's: each field the check leaves zero takes the service's value.
// Neither argument is modified; nil when both are nil.
func mergeCheckRestart(svc, own *CheckRestart) *CheckRestart {
	switch {
	case svc == nil && own == nil:
		return nil
	case svc == nil:
		out := *own
		return &out
	case own == nil:
		out := *svc
		return &out
	}
	out := *own
	if out.Limit == 0 {
		out.Limit = svc.Limit
	}
	if out.Grace == 0 {
		out.Grace = svc.Grace
	}
	if !out.IgnoreWarnings {
		out.IgnoreWarnings = svc.IgnoreWarnings
	}
	return &out
}
