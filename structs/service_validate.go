package structs

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// MinCheckInterval is the shortest check interval (Nomad's and Consul's 1s).
const MinCheckInterval = time.Second

// Ceilings on services (website/jobspec.md, "Limits"): far above any real
// job, so only nonsense meets them.
const (
	MaxServices         = 1000 // services of a group, or of a task
	MaxChecksPerService = 1000
)

// FieldProblem is one thing wrong with a service, a check or a
// check_restart block. Field is the job-file argument it concerns
// ("interval", "address_mode"...; "" for the block as a whole), so the
// jobspec can report it at its file:line:col; Validate reports it with the
// group, task and service names.
type FieldProblem struct {
	Field string
	Msg   string
}

func (p FieldProblem) Error() string { return p.Msg }

// Problems returns what is wrong with the service's own arguments (not its
// checks: see ServiceCheck.Problems). Empty values that Canonicalize fills
// (name, address_mode, on_update, provider) are accepted, so the jobspec
// can call it before canonicalization.
func (s *Service) Problems() []FieldProblem {
	var out []FieldProblem
	add := func(field, format string, args ...any) {
		out = append(out, FieldProblem{Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	if s.Name != "" {
		if err := ValidateServiceName(s.Name); err != nil {
			add("name", "%v", err)
		}
	}
	switch s.AddressMode {
	case "", AddressModeAuto:
	case AddressModeHost, AddressModeDriver, AddressModeAlloc:
		if s.Address != "" {
			add("address", "address may only be set with address_mode %q (not %q)", AddressModeAuto, s.AddressMode)
		}
	default:
		add("address_mode", "address_mode must be %q, %q, %q or %q, not %q",
			AddressModeAuto, AddressModeHost, AddressModeDriver, AddressModeAlloc, s.AddressMode)
	}
	if !validOnUpdate(s.OnUpdate) {
		add("on_update", "on_update must be %q, %q or %q, not %q", OnUpdateRequireHealthy, OnUpdateIgnoreWarn, OnUpdateIgnore, s.OnUpdate)
	}
	switch s.Provider {
	case "", ServiceProviderConsul:
	case ServiceProviderNomad:
		if s.Connect != nil {
			add("provider", "provider %q cannot have a connect block (Connect is Consul's)", ServiceProviderNomad)
		}
	default:
		add("provider", "provider must be %q or %q, not %q", ServiceProviderNomad, ServiceProviderConsul, s.Provider)
	}
	if s.PortLabel != "" && strings.HasPrefix(s.PortLabel, "-") {
		add("port", "port %q is neither a port label nor a port number", s.PortLabel)
	}
	for _, p := range s.CheckRestart.Problems() {
		p.Field = "check_restart." + p.Field
		out = append(out, p)
	}
	return out
}

// serviceNameRE is RFC 1123's host label: what a service name must be once
// its interpolations are replaced.
var serviceNameRE = regexp.MustCompile(`^(?i:[a-z0-9]|[a-z0-9][a-z0-9\-]{0,61}[a-z0-9])$`)

// interpolationRE matches one ${...} interpolation.
var interpolationRE = regexp.MustCompile(`\$\{[^}]*\}`)

// ValidateServiceName checks a service name as Nomad does: RFC 1123 (letters,
// digits and dashes, at most 63 characters), each ${...} counting as a valid
// piece (it is interpolated on the client).
func ValidateServiceName(name string) error {
	stripped := interpolationRE.ReplaceAllString(name, "ENV-VAR")
	if !serviceNameRE.MatchString(stripped) {
		return fmt.Errorf("name %q must be valid per RFC 1123: only letters, digits and dashes, not starting or ending with a dash, at most 63 characters", name)
	}
	return nil
}

func validOnUpdate(v string) bool {
	switch v {
	case "", OnUpdateRequireHealthy, OnUpdateIgnoreWarn, OnUpdateIgnore:
		return true
	}
	return false
}

// Problems returns what is wrong with the check as a check of svc (its
// port, the type's required arguments, intervals, statuses), as Nomad's
// validation of a check does. nomadish runs all four types for either
// provider.
func (c *ServiceCheck) Problems(svc *Service) []FieldProblem {
	var out []FieldProblem
	add := func(field, format string, args ...any) {
		out = append(out, FieldProblem{Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	typ := strings.ToLower(c.Type)
	switch typ {
	case ServiceCheckHTTP:
		if c.Path == "" {
			add("path", "path is required for an http check")
		} else if u, err := url.Parse(c.Path); err != nil {
			add("path", "path %q is not a valid URL path", c.Path)
		} else if u.IsAbs() {
			add("path", "path %q must be relative (like \"/health\"); the address comes from the service", c.Path)
		}
		if c.Method != "" && !validHTTPMethod(c.Method) {
			add("method", "method %q is not an HTTP method", c.Method)
		}
		if c.Protocol != "" && c.Protocol != "http" && c.Protocol != "https" {
			add("protocol", "protocol must be \"http\" or \"https\", not %q", c.Protocol)
		}
	case ServiceCheckScript:
		if c.Command == "" {
			add("command", "command is required for a script check")
		}
	case ServiceCheckTCP, ServiceCheckGRPC:
	case "":
		add("type", "type is required: %q, %q, %q or %q", ServiceCheckHTTP, ServiceCheckTCP, ServiceCheckScript, ServiceCheckGRPC)
	default:
		add("type", "type %q must be %q, %q, %q or %q", c.Type, ServiceCheckHTTP, ServiceCheckTCP, ServiceCheckScript, ServiceCheckGRPC)
	}
	needsPort := typ == ServiceCheckHTTP || typ == ServiceCheckTCP || typ == ServiceCheckGRPC
	if needsPort && c.PortLabel == "" && svc != nil && svc.PortLabel == "" {
		add("port", "port is required for a %s check, and neither the check nor its service sets one", typ)
	}
	if c.Expose && typ != ServiceCheckHTTP && typ != ServiceCheckGRPC {
		add("expose", "expose may only be set on http and grpc checks")
	}
	switch {
	case c.Interval == 0:
		add("interval", "interval is required (at least %v)", MinCheckInterval)
	case c.Interval < MinCheckInterval:
		add("interval", "interval %v is shorter than the minimum %v", c.Interval, MinCheckInterval)
	}
	switch {
	case c.Timeout == 0:
		add("timeout", "timeout is required (like \"2s\")")
	case c.Timeout < 0:
		add("timeout", "timeout %v must be positive", c.Timeout)
	}
	switch c.InitialStatus {
	case "", CheckPassing, CheckWarning, CheckCritical:
	default:
		add("initial_status", "initial_status must be %q, %q or %q, not %q", CheckPassing, CheckWarning, CheckCritical, c.InitialStatus)
	}
	switch c.AddressMode {
	case "", AddressModeHost, AddressModeDriver, AddressModeAlloc:
	case AddressModeAuto:
		add("address_mode", "address_mode %q is only valid for services; a check takes %q, %q or %q", AddressModeAuto, AddressModeHost, AddressModeDriver, AddressModeAlloc)
	default:
		add("address_mode", "address_mode must be %q, %q or %q, not %q", AddressModeHost, AddressModeDriver, AddressModeAlloc, c.AddressMode)
	}
	if !validOnUpdate(c.OnUpdate) {
		add("on_update", "on_update must be %q, %q or %q, not %q", OnUpdateRequireHealthy, OnUpdateIgnoreWarn, OnUpdateIgnore, c.OnUpdate)
	}
	for name, n := range map[string]int{"success_before_passing": c.SuccessBeforePassing,
		"failures_before_critical": c.FailuresBeforeCritical, "failures_before_warning": c.FailuresBeforeWarning} {
		if n < 0 {
			add(name, "%s must not be negative (got %d)", name, n)
		} else if n > 0 && typ == ServiceCheckScript {
			add(name, "%s is not supported by script checks", name)
		}
	}
	if cr := c.CheckRestart; cr != nil {
		if c.OnUpdate == OnUpdateIgnore {
			add("on_update", "on_update %q is not compatible with check_restart", OnUpdateIgnore)
		} else if c.OnUpdate == OnUpdateIgnoreWarn && !cr.IgnoreWarnings {
			add("on_update", "on_update %q needs check_restart's ignore_warnings = true", OnUpdateIgnoreWarn)
		}
		for _, p := range cr.Problems() {
			p.Field = "check_restart." + p.Field
			out = append(out, p)
		}
	}
	sortProblems(out)
	return out
}

func validHTTPMethod(m string) bool {
	switch strings.ToUpper(m) {
	case "GET", "HEAD", "POST", "PUT", "PATCH",
		"DELETE", "CONNECT", "OPTIONS", "TRACE":
		return true
	}
	return false
}

// Problems returns what is wrong with a check_restart block (nil: nothing).
func (cr *CheckRestart) Problems() []FieldProblem {
	if cr == nil {
		return nil
	}
	var out []FieldProblem
	if cr.Limit < 0 {
		out = append(out, FieldProblem{Field: "limit", Msg: fmt.Sprintf("check_restart limit must not be negative (got %d)", cr.Limit)})
	}
	if cr.Grace < 0 {
		out = append(out, FieldProblem{Field: "grace", Msg: fmt.Sprintf("check_restart grace must not be negative (got %v)", cr.Grace)})
	}
	return out
}

// sortProblems orders problems by field, so messages are stable.
func sortProblems(ps []FieldProblem) {
	for i := 1; i < len(ps); i++ {
		for j := i; j > 0 && ps[j].Field < ps[j-1].Field; j-- {
			ps[j], ps[j-1] = ps[j-1], ps[j]
		}
	}
}

// validateServices checks the group's services and its tasks' services
// (canonicalized): each service and check, names unique per group or task
// (with the port), port labels that exist in the group's network (or are
// numbers), one provider for the whole group, and group checks that run
// in a task (script) naming a task of the group.
func (tg *TaskGroup) validateServices(errs *MultiError) {
	labels := tg.portLabels()
	providers := map[string]string{} // provider -> the first service using it
	tasks := map[string]bool{}
	for _, t := range tg.Tasks {
		if t != nil {
			tasks[t.Name] = true
		}
	}
	check := func(where string, services []*Service, group bool) {
		if len(services) > MaxServices {
			errs.Add(fmt.Errorf("%s: has %d services, over the limit of %d", where, len(services), MaxServices))
			return
		}
		seen := map[string]bool{}
		for i, s := range services {
			if s == nil {
				errs.Add(fmt.Errorf("%s: service %d is empty", where, i+1))
				continue
			}
			sw := fmt.Sprintf("%s: service %q", where, s.Name)
			for _, p := range s.Problems() {
				errs.Add(fmt.Errorf("%s: %s", sw, p.Msg))
			}
			if key := s.Name + "\x00" + s.PortLabel; seen[key] {
				errs.Add(fmt.Errorf("%s: defined more than once (same name and port)", sw))
			} else {
				seen[key] = true
			}
			if msg := PortLabelProblem(s.PortLabel, labels); msg != "" {
				errs.Add(fmt.Errorf("%s: %s", sw, msg))
			}
			if _, ok := providers[s.Provider]; !ok {
				providers[s.Provider] = s.Name
				if len(providers) > 1 {
					errs.Add(fmt.Errorf("%s: provider %q differs from the other services' of the group: a group's services must all use one provider", sw, s.Provider))
				}
			}
			if group && s.TaskName != "" && !tasks[s.TaskName] {
				errs.Add(fmt.Errorf("%s: task %q is not a task of the group", sw, s.TaskName))
			}
			if len(s.Checks) > MaxChecksPerService {
				errs.Add(fmt.Errorf("%s: has %d checks, over the limit of %d", sw, len(s.Checks), MaxChecksPerService))
				continue
			}
			for _, c := range s.Checks {
				if c == nil {
					continue
				}
				cw := fmt.Sprintf("%s: check %q", sw, c.Name)
				for _, p := range c.Problems(s) {
					errs.Add(fmt.Errorf("%s: %s", cw, p.Msg))
				}
				if msg := PortLabelProblem(c.PortLabel, labels); msg != "" {
					errs.Add(fmt.Errorf("%s: %s", cw, msg))
				}
				if group {
					if msg := GroupCheckTaskProblem(c, tasks); msg != "" {
						errs.Add(fmt.Errorf("%s: %s", cw, msg))
					}
				}
			}
		}
	}
	check(fmt.Sprintf("group %q", tg.Name), tg.Services, true)
	for _, t := range tg.Tasks {
		if t != nil {
			check(fmt.Sprintf("group %q: task %q", tg.Name, t.Name), t.Services, false)
		}
	}
}

// portLabels returns the labels of the group's network ports.
func (tg *TaskGroup) portLabels() map[string]bool {
	labels := map[string]bool{}
	for _, n := range tg.Networks {
		if n == nil {
			continue
		}
		for _, p := range n.ReservedPorts {
			labels[p.Label] = true
		}
		for _, p := range n.DynamicPorts {
			labels[p.Label] = true
		}
	}
	return labels
}

// PortLabelProblem says what is wrong with a service's or check's port
// ("" : nothing): it must be empty, a label of the group's network, a
// port number, or an interpolation the client resolves ("${NOMAD_PORT_x}").
func PortLabelProblem(label string, labels map[string]bool) string {
	if label == "" || labels[label] || strings.Contains(label, "${") {
		return ""
	}
	if n, err := strconv.Atoi(label); err == nil {
		if n < 1 || n > MaxValidPort {
			return fmt.Sprintf("port %d out of range [1, %d]", n, MaxValidPort)
		}
		return ""
	}
	return fmt.Sprintf("port %q is not a port label of the group's network (nor a number)", label)
}

// GroupCheckTaskProblem says what is wrong with where a group service's
// check runs ("" : nothing): a script check runs in a task, which must be a
// task of the group (tasks).
func GroupCheckTaskProblem(c *ServiceCheck, tasks map[string]bool) string {
	switch {
	case strings.ToLower(c.Type) == ServiceCheckScript && c.TaskName == "":
		return "a script check of a group service must name the task it runs in (task = \"...\")"
	case c.TaskName != "" && !tasks[c.TaskName]:
		return fmt.Sprintf("task %q is not a task of the group", c.TaskName)
	}
	return ""
}
