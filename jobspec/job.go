package jobspec

import (
	"time"

	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/nomadish/nomadish/structs"
)

// decodeJob decodes the job block. The job's Name is its label unless the
// block sets name; nothing else is defaulted (that is Canonicalize's job).
func (p *parser) decodeJob(b *hclsyntax.Block) *structs.Job {
	job := &structs.Job{ID: b.Labels[0], Name: b.Labels[0]}
	var jobResched *rescheduleBlock
	groupResched := map[*structs.TaskGroup]*rescheduleBlock{}
	p.decodeBody(b.Body, bodySpec{
		where: "job",
		attrs: map[string]any{
			"name": &job.Name, "type": &job.Type, "datacenters": &job.Datacenters,
			"priority": &job.Priority, "region": &job.Region, "namespace": &job.Namespace,
			"node_pool": &job.NodePool, "all_at_once": &job.AllAtOnce, "meta": &job.Meta,
		},
		blocks: blockFuncs{
			"meta":     func(b *hclsyntax.Block) { p.stringMapBlock(b, &job.Meta) },
			"affinity": func(b *hclsyntax.Block) { job.Affinities = appendNonNil(job.Affinities, p.decodeAffinity(b)) },
			"spread":   func(b *hclsyntax.Block) { job.Spreads = appendNonNil(job.Spreads, p.decodeSpread(b)) },
			"group": func(b *hclsyntax.Block) {
				if tg, rb := p.decodeGroup(b); tg != nil {
					job.TaskGroups = append(job.TaskGroups, tg)
					if rb != nil {
						groupResched[tg] = rb
					}
				}
			},
			"constraint": func(b *hclsyntax.Block) {
				job.Constraints = appendNonNil(job.Constraints, p.decodeConstraint(b))
			},
			"reschedule": func(b *hclsyntax.Block) { jobResched = p.decodeReschedule(b) },
			"migrate":    func(b *hclsyntax.Block) { job.Migrate = p.decodeMigrate(b) },
			"update":     func(b *hclsyntax.Block) { job.Update = p.decodeUpdate(b) },
			// periodic.go
			"periodic":      func(b *hclsyntax.Block) { job.Periodic = p.decodePeriodic(b) },
			"parameterized": func(b *hclsyntax.Block) { job.ParameterizedJob = p.decodeParameterized(b) },
			"task": func(b *hclsyntax.Block) {
				if t := p.decodeTask(b); t != nil {
					job.TaskGroups = append(job.TaskGroups, taskAsGroup(t))
				}
			},
		},
		multi: map[string]bool{"group": true, "affinity": true, "spread": true, "constraint": true, "task": true},
	})
	p.fillUpdate(job)
	fillRestartDefaults(job, p.restartSet)
	fillTaskRestart(job, p.restartSet) // lifecycle.go
	p.fillReschedule(job, jobResched, groupResched)
	return job
}

// decodeGroup decodes a group block and returns its reschedule block, if
// any, for fillReschedule.
func (p *parser) decodeGroup(b *hclsyntax.Block) (*structs.TaskGroup, *rescheduleBlock) {
	if !p.labels(b, "name") {
		return nil, nil
	}
	tg := &structs.TaskGroup{Name: b.Labels[0]}
	var resched *rescheduleBlock
	var maxDisconnect, shutdownDelay time.Duration
	p.decodeBody(b.Body, bodySpec{
		where: "group",
		attrs: map[string]any{"count": &tg.Count, "meta": &tg.Meta, "max_client_disconnect": &maxDisconnect,
			"shutdown_delay": &shutdownDelay},
		blocks: blockFuncs{
			"disconnect": func(b *hclsyntax.Block) { tg.Disconnect = p.decodeDisconnect(b) },
			"meta":       func(b *hclsyntax.Block) { p.stringMapBlock(b, &tg.Meta) },
			"affinity":   func(b *hclsyntax.Block) { tg.Affinities = appendNonNil(tg.Affinities, p.decodeAffinity(b)) },
			"spread":     func(b *hclsyntax.Block) { tg.Spreads = appendNonNil(tg.Spreads, p.decodeSpread(b)) },
			"restart": func(b *hclsyntax.Block) {
				tg.RestartPolicy = &structs.RestartPolicy{}
				p.decodeRestart(b, tg.RestartPolicy)
				p.noteRestart(tg.RestartPolicy, b)
			},
			"reschedule": func(b *hclsyntax.Block) { resched = p.decodeReschedule(b) },
			"migrate":    func(b *hclsyntax.Block) { tg.Migrate = p.decodeMigrate(b) },
			"update":     func(b *hclsyntax.Block) { tg.Update = p.decodeUpdate(b) },
			"task": func(b *hclsyntax.Block) {
				if t := p.decodeTask(b); t != nil {
					tg.Tasks = append(tg.Tasks, t)
				}
			},
			"constraint": func(b *hclsyntax.Block) {
				tg.Constraints = appendNonNil(tg.Constraints, p.decodeConstraint(b))
			},
			"ephemeral_disk": func(b *hclsyntax.Block) {
				tg.EphemeralDisk = p.decodeEphemeralDisk(b)
			},
			"network": func(b *hclsyntax.Block) { tg.Networks = appendNonNil(tg.Networks, p.decodeNetwork(b)) },
			"volume":  func(b *hclsyntax.Block) { p.decodeVolume(b, tg) },           // volumes.go
			"scaling": func(b *hclsyntax.Block) { tg.Scaling = p.decodeScaling(b) }, // periodic.go

			"service": func(b *hclsyntax.Block) { tg.Services = appendNonNil(tg.Services, p.decodeService(b)) },
		},
		multi: map[string]bool{"task": true, "affinity": true, "spread": true, "constraint": true, "volume": true,
			"service": true},
	})
	p.checkGroupServices(tg) // service.go
	p.checkVolumeMounts(b, tg)
	p.setMaxClientDisconnect(b, tg, maxDisconnect)
	tg.ShutdownDelay = p.checkShutdownDelay(b.Body, shutdownDelay) // lifecycle.go
	return tg, resched
}

func (p *parser) decodeRestart(b *hclsyntax.Block, rp *structs.RestartPolicy) {
	if !p.labels(b) {
		return
	}
	p.decodeBody(b.Body, bodySpec{
		where: "restart",
		attrs: map[string]any{
			"attempts": &rp.Attempts, "interval": &rp.Interval, "delay": &rp.Delay,
			"mode": &rp.Mode, "render_templates": &rp.RenderTemplates,
		},
	})
}

func (p *parser) decodeTask(b *hclsyntax.Block) *structs.Task {
	if !p.labels(b, "name") {
		return nil
	}
	t := &structs.Task{Name: b.Labels[0]}
	configBroken := false // the config block had errors: its required keys may be there
	p.decodeBody(b.Body, bodySpec{
		where: "task",
		attrs: map[string]any{
			"driver": &t.Driver, "user": &t.User, "kill_timeout": &t.KillTimeout,
			"kill_signal": &t.KillSignal, "leader": &t.Leader, "env": &t.Env, "meta": &t.Meta,
			"shutdown_delay": &t.ShutdownDelay,
		},
		blocks: blockFuncs{
			"config": func(b *hclsyntax.Block) {
				n := len(p.diags)
				if p.labels(b) {
					t.Config = p.decodeConfig(b.Body)
				}
				configBroken = p.diags[n:].HasErrors()
			},
			"constraint": func(b *hclsyntax.Block) {
				t.Constraints = appendNonNil(t.Constraints, p.decodeConstraint(b))
			},
			"env":      func(b *hclsyntax.Block) { p.stringMapBlock(b, &t.Env) },
			"meta":     func(b *hclsyntax.Block) { p.stringMapBlock(b, &t.Meta) },
			"affinity": func(b *hclsyntax.Block) { t.Affinities = appendNonNil(t.Affinities, p.decodeAffinity(b)) },
			"resources": func(b *hclsyntax.Block) {
				t.Resources = p.decodeResources(b)
			},
			"logs": func(b *hclsyntax.Block) { t.LogConfig = p.decodeLogs(b) },
			"artifact": func(b *hclsyntax.Block) { // artifact.go
				t.Artifacts = appendNonNil(t.Artifacts, p.decodeArtifact(b))
			},
			"volume_mount": func(b *hclsyntax.Block) {
				t.VolumeMounts = appendNonNil(t.VolumeMounts, p.decodeVolumeMount(b))
			},
			"template":         func(b *hclsyntax.Block) { t.Templates = appendNonNil(t.Templates, p.decodeTemplate(b)) },
			"lifecycle":        func(b *hclsyntax.Block) { t.Lifecycle = p.decodeLifecycle(b) },             // lifecycle.go
			"restart":          func(b *hclsyntax.Block) { t.RestartPolicy = p.decodeTaskRestart(b) },       // lifecycle.go
			"dispatch_payload": func(b *hclsyntax.Block) { t.DispatchPayload = p.decodeDispatchPayload(b) }, // periodic.go

			"service": func(b *hclsyntax.Block) { t.Services = appendNonNil(t.Services, p.decodeService(b)) }, // service.go
		},
		multi: map[string]bool{"affinity": true, "constraint": true, "artifact": true, "volume_mount": true, "template": true,
			"service": true},
	})
	p.checkShutdownDelay(b.Body, t.ShutdownDelay)
	p.checkDriver(b, t, configBroken) // driver_config.go
	return t
}

// decodeResources decodes a resources block; unset fields stay zero.
func (p *parser) decodeResources(b *hclsyntax.Block) *structs.Resources {
	r := &structs.Resources{}
	if !p.labels(b) {
		return r
	}
	p.decodeBody(b.Body, bodySpec{
		where: "resources",
		attrs: map[string]any{
			"cpu": &r.CPU, "cores": &r.Cores, "memory": &r.MemoryMB,
			"memory_max": &r.MemoryMaxMB, "disk": &r.DiskMB,
		},
		blocks: blockFuncs{"numa": func(nb *hclsyntax.Block) { r.NUMA = p.decodeNUMA(nb) }},
	})
	if r.NUMA != nil && r.Cores == 0 && r.NUMA.Affinity != structs.NUMAAffinityNone {
		p.errorf(b.Body.Blocks[numaIndex(b.Body)].TypeRange, "numa without cores",
			"A numa block only applies to whole cores: set cores = N in this resources block (cpu and cores are mutually exclusive).")
	}
	return r
}

// decodeNUMA decodes resources.numa and checks the affinity at its value.
func (p *parser) decodeNUMA(b *hclsyntax.Block) *structs.NUMA {
	n := &structs.NUMA{Affinity: structs.NUMAAffinityNone}
	if !p.labels(b) {
		return n
	}
	p.decodeBody(b.Body, bodySpec{where: "numa", attrs: map[string]any{"affinity": &n.Affinity}})
	if a, ok := b.Body.Attributes["affinity"]; ok {
		if err := n.Validate(); err != nil || n.Affinity == "" {
			p.errorf(a.Expr.Range(), "Invalid numa affinity", "The affinity %q is not one of %q, %q or %q.",
				n.Affinity, structs.NUMAAffinityNone, structs.NUMAAffinityPrefer, structs.NUMAAffinityRequire)
		}
	}
	return n
}

// numaIndex returns the index of the body's numa block.
func numaIndex(body *hclsyntax.Body) int {
	for i, b := range body.Blocks {
		if b.Type == "numa" {
			return i
		}
	}
	return 0
}

// decodeLogs decodes a logs block; unset sizes get Nomad's defaults, and the
// deprecated enabled = false means disabled.
func (p *parser) decodeLogs(b *hclsyntax.Block) *structs.LogConfig {
	lc := &structs.LogConfig{MaxFiles: structs.DefaultLogMaxFiles, MaxFileSizeMB: structs.DefaultLogMaxFileSizeMB}
	if !p.labels(b) {
		return lc
	}
	enabled := true
	p.decodeBody(b.Body, bodySpec{
		where: "logs",
		attrs: map[string]any{
			"max_files": &lc.MaxFiles, "max_file_size": &lc.MaxFileSizeMB,
			"disabled": &lc.Disabled, "enabled": &enabled,
		},
	})
	if !enabled {
		lc.Disabled = true
	}
	return lc
}

// noteRestart records which attributes a restart block set, so that
// fillRestartDefaults can give the others the job type's defaults (as Nomad
// does) once the whole job, and so its type, is known.
func (p *parser) noteRestart(rp *structs.RestartPolicy, b *hclsyntax.Block) {
	if p.restartSet == nil {
		p.restartSet = map[*structs.RestartPolicy]map[string]bool{}
	}
	set := map[string]bool{}
	for name := range b.Body.Attributes {
		set[name] = true
	}
	p.restartSet[rp] = set
}

// fillRestartDefaults gives every attribute a restart block left out the
// default of the job's type.
func fillRestartDefaults(job *structs.Job, set map[*structs.RestartPolicy]map[string]bool) {
	def := structs.DefaultServiceRestartPolicy()
	if job.Type == structs.JobTypeBatch || job.Type == structs.JobTypeSysBatch {
		def = structs.DefaultBatchRestartPolicy()
	}
	for _, tg := range job.TaskGroups {
		attrs, ok := set[tg.RestartPolicy]
		if tg.RestartPolicy == nil || !ok {
			continue
		}
		fillRestart(tg.RestartPolicy, def, attrs)
	}
}

// fillRestart gives rp base's value for every attribute the restart block
// did not set (attrs: the attributes written): a group's block over the
// job type's default, a task's over its group's.
func fillRestart(rp, base *structs.RestartPolicy, attrs map[string]bool) {
	if !attrs["attempts"] {
		rp.Attempts = base.Attempts
	}
	if !attrs["interval"] {
		rp.Interval = base.Interval
	}
	if !attrs["delay"] {
		rp.Delay = base.Delay
	}
	if !attrs["mode"] {
		rp.Mode = base.Mode
	}
	if !attrs["render_templates"] {
		rp.RenderTemplates = base.RenderTemplates
	}
}
