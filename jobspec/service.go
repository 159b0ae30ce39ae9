package jobspec

import (
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/nomadish/nomadish/internal/hclutil"
	"github.com/nomadish/nomadish/structs"
)

// decodeService decodes a group's or a task's service block:
//
//	service {
//	  provider = "nomad"            # or "consul": nomadish's catalog serves both
//	  name     = "web"              # default <job>-<group>[-<task>]
//	  port     = "http"             # a port label of the group's network, or a number
//	  tags     = ["v1"]
//	  check {
//	    type     = "http"
//	    path     = "/health"
//	    interval = "10s"
//	    timeout  = "2s"
//	    check_restart { limit = 3 }
//	  }
//	  check_restart { limit = 3  grace = "10s" }   # merged into each check
//	}
//
// Each problem structs.Service/ServiceCheck.Problems finds is reported at
// the argument it concerns. A connect block is kept as decoded in
// Service.Connect, with a warning naming what nomadish ignores; a service of
// the "consul" provider gets one warning per job. The block is remembered
// (p.svcBlocks) for checkGroupServices, which needs the whole group.
func (p *parser) decodeService(b *hclsyntax.Block) *structs.Service {
	if !p.labels(b) {
		return nil
	}
	s := &structs.Service{}
	p.decodeBody(b.Body, bodySpec{
		where: "service",
		attrs: map[string]any{
			"provider": &s.Provider, "name": &s.Name, "port": &s.PortLabel, "tags": &s.Tags,
			"canary_tags": &s.CanaryTags, "meta": &s.Meta, "canary_meta": &s.CanaryMeta,
			"address": &s.Address, "address_mode": &s.AddressMode, "on_update": &s.OnUpdate,
			"enable_tag_override": &s.EnableTagOverride, "task": &s.TaskName, "cluster": &s.Cluster,
		},
		blocks: blockFuncs{
			"check": func(cb *hclsyntax.Block) { s.Checks = appendNonNil(s.Checks, p.decodeCheck(cb, s)) },
			"check_restart": func(cb *hclsyntax.Block) {
				s.CheckRestart = p.decodeCheckRestart(cb)
			},
			"meta":        func(mb *hclsyntax.Block) { p.stringMapBlock(mb, &s.Meta) },
			"canary_meta": func(mb *hclsyntax.Block) { p.stringMapBlock(mb, &s.CanaryMeta) },
			"connect":     func(cb *hclsyntax.Block) { s.Connect = p.decodeConnect(cb) },
		},
		multi: map[string]bool{"check": true},
	})
	p.reportProblems(b, "Invalid service", "service", s.Problems())
	consul := s.Provider == "" || s.Provider == structs.ServiceProviderConsul
	if consul && !p.consulWarned {
		p.consulWarned = true
		rng := b.TypeRange
		if a, ok := b.Body.Attributes["provider"]; ok {
			rng = a.Expr.Range()
		}
		p.warnf(rng, "Consul service served by nomadish",
			"This service's provider is %q (Nomad's default when provider is left out). nomadish has no Consul: its own catalog serves the service exactly like provider = %q (the client registers it and runs its checks). This warning is given once per job.",
			structs.ServiceProviderConsul, structs.ServiceProviderNomad)
	}
	if p.svcBlocks == nil {
		p.svcBlocks = map[*structs.Service]*hclsyntax.Block{}
	}
	p.svcBlocks[s] = b
	return s
}

// decodeCheck decodes a service's check block; svc is its service (for the
// port a check falls back to).
func (p *parser) decodeCheck(b *hclsyntax.Block, svc *structs.Service) *structs.ServiceCheck {
	if !p.labels(b) {
		return nil
	}
	c := &structs.ServiceCheck{}
	p.decodeBody(b.Body, bodySpec{
		where: "check",
		attrs: map[string]any{
			"name": &c.Name, "type": &c.Type, "path": &c.Path, "method": &c.Method, "body": &c.Body,
			"protocol": &c.Protocol, "port": &c.PortLabel, "address_mode": &c.AddressMode,
			"interval": &c.Interval, "timeout": &c.Timeout, "expose": &c.Expose,
			"success_before_passing": &c.SuccessBeforePassing, "failures_before_critical": &c.FailuresBeforeCritical,
			"failures_before_warning": &c.FailuresBeforeWarning, "on_update": &c.OnUpdate,
			"initial_status": &c.InitialStatus, "task": &c.TaskName, "command": &c.Command, "args": &c.Args,
			"grpc_service": &c.GRPCService, "grpc_use_tls": &c.GRPCUseTLS, "tls_skip_verify": &c.TLSSkipVerify,
			"tls_server_name": &c.TLSServerName,
		},
		blocks: blockFuncs{
			"header":        func(hb *hclsyntax.Block) { c.Header = p.decodeHeader(hb) },
			"check_restart": func(cb *hclsyntax.Block) { c.CheckRestart = p.decodeCheckRestart(cb) },
		},
	})
	// The service's arguments are decoded before its blocks, so Problems
	// knows whether the service has the port a check falls back to.
	probs := c.Problems(svc)
	p.reportProblems(b, "Invalid check", "check", probs)
	if p.checkBlocks == nil {
		p.checkBlocks = map[*structs.ServiceCheck]*hclsyntax.Block{}
	}
	p.checkBlocks[c] = b
	return c
}

// decodeHeader decodes a check's header block: each argument is a header
// name and its list of values (Name = ["v1", "v2"]).
func (p *parser) decodeHeader(b *hclsyntax.Block) map[string][]string {
	if !p.labels(b) {
		return nil
	}
	p.rejectBlocks(b.Body, b.Type)
	out := make(map[string][]string, len(b.Body.Attributes))
	for _, a := range hclutil.SortedAttrs(b.Body) {
		var vals []string
		if p.evalInto(a, p.ctx, &vals) {
			out[a.Name] = vals
		}
	}
	return out
}

// decodeCheckRestart decodes a check_restart block (of a service or a check).
func (p *parser) decodeCheckRestart(b *hclsyntax.Block) *structs.CheckRestart {
	if !p.labels(b) {
		return nil
	}
	cr := &structs.CheckRestart{}
	p.decodeBody(b.Body, bodySpec{
		where: "check_restart",
		attrs: map[string]any{"limit": &cr.Limit, "grace": &cr.Grace, "ignore_warnings": &cr.IgnoreWarnings},
	})
	for _, q := range cr.Problems() {
		p.errorf(fieldRange(b, q.Field), "Invalid check_restart", "The %s.", q.Msg)
	}
	return cr
}

// connectMeshKeys are the connect settings that need Consul's service mesh.
var connectMeshKeys = []string{"gateway", "native", "sidecar_service", "sidecar_task"}

// decodeConnect keeps a connect block as decoded (a generic map, like a
// task's config) and warns that nomadish has no service mesh, naming the
// settings it ignores. jobcheck refuses a job that cannot run without the
// mesh (upstreams, gateways, native).
func (p *parser) decodeConnect(b *hclsyntax.Block) map[string]any {
	if !p.labels(b) {
		return nil
	}
	m := p.decodeConfig(b.Body)
	var present []string
	for _, k := range connectMeshKeys {
		if _, ok := m[k]; ok {
			present = append(present, k)
		}
	}
	what := "its settings are"
	if len(present) > 0 {
		what = strings.Join(present, ", ") + " are"
	}
	p.warnf(b.TypeRange, "Consul Connect ignored",
		"nomadish does not bundle Consul, so it has no service mesh: this connect block's %s ignored (no sidecar proxy runs). The service itself is still registered in nomadish's catalog and reachable on its port.", what)
	return m
}

// reportProblems reports each problem at the argument it names in block b
// (a "check_restart." one was reported in its block by decodeCheckRestart),
// else at b's type: "The <what>'s <problem>.".
func (p *parser) reportProblems(b *hclsyntax.Block, summary, what string, probs []structs.FieldProblem) {
	for _, q := range probs {
		if strings.HasPrefix(q.Field, "check_restart.") {
			continue
		}
		p.errorf(fieldRange(b, q.Field), summary, "The %s's %s.", what, q.Msg)
	}
}

// fieldRange is the range of b's argument field (its value), or of b's type
// when b does not set it.
func fieldRange(b *hclsyntax.Block, field string) hcl.Range {
	if a, ok := b.Body.Attributes[field]; ok {
		return a.Expr.Range()
	}
	return b.TypeRange
}

// checkGroupServices checks what needs the whole group, at each place: the
// ports services and checks name exist in the group's network (or are
// numbers), the group's services use one provider, and a group service's
// check naming a task (script checks must) names a task of the group.
func (p *parser) checkGroupServices(tg *structs.TaskGroup) {
	labels := map[string]bool{}
	for _, n := range tg.Networks {
		for _, pt := range append(append([]structs.Port(nil), n.ReservedPorts...), n.DynamicPorts...) {
			labels[pt.Label] = true
		}
	}
	tasks := map[string]bool{}
	for _, t := range tg.Tasks {
		tasks[t.Name] = true
	}
	var firstProvider string
	var firstAt *hclsyntax.Block
	visit := func(s *structs.Service, group bool) {
		b := p.svcBlocks[s]
		if b == nil {
			return
		}
		if msg := structs.PortLabelProblem(s.PortLabel, labels); msg != "" {
			p.errorf(fieldRange(b, "port"), "Invalid service port", "The %s.", msg)
		}
		provider := s.Provider
		if provider == "" {
			provider = structs.ServiceProviderConsul
		}
		if firstAt == nil {
			firstProvider, firstAt = provider, b
		} else if provider != firstProvider {
			p.errorf(fieldRange(b, "provider"), "Mixed service providers",
				"This service's provider is %q but the group's service at %s uses %q: a group's services must all use one provider.",
				provider, hclutil.Pos(firstAt.TypeRange), firstProvider)
		}
		if group && s.TaskName != "" && !tasks[s.TaskName] {
			p.errorf(fieldRange(b, "task"), "Unknown task", "The task %q is not a task of group %q.", s.TaskName, tg.Name)
		}
		for _, c := range s.Checks {
			cb := p.checkBlocks[c]
			if cb == nil {
				continue
			}
			if msg := structs.PortLabelProblem(c.PortLabel, labels); msg != "" {
				p.errorf(fieldRange(cb, "port"), "Invalid check port", "The %s.", msg)
			}
			if group {
				if msg := structs.GroupCheckTaskProblem(c, tasks); msg != "" {
					p.errorf(fieldRange(cb, "task"), "Invalid check task", "%s.", upperFirst(msg))
				}
			}
		}
	}
	for _, s := range tg.Services {
		visit(s, true)
	}
	for _, t := range tg.Tasks {
		for _, s := range t.Services {
			visit(s, false)
		}
	}
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
