package pluginmgr

import (
	"context"
	"errors"
	"time"
)

// watch fingerprints the plugin every HealthInterval; when the plugin is
// gone (fingerprint error) it marks the driver unhealthy, kills what is
// left of the process and relaunches it with backoff. Every wait ends at
// once on Shutdown. It returns when the plugin rejected its config
// (ErrInvalidConfig): the driver stays unhealthy with that message.
func (m *Manager) watch(inst *instance) {
	if m.invalid(inst) {
		return
	}
	backoff := time.Second
	t := time.NewTimer(m.cfg.HealthInterval)
	defer t.Stop()
	for {
		select {
		case <-m.ctx.Done():
			return
		case <-t.C:
		case <-inst.poke:
		}
		m.mu.Lock()
		p := inst.plugin
		m.mu.Unlock()
		next := m.cfg.HealthInterval
		if p != nil {
			ctx, cancel := context.WithTimeout(m.ctx, m.cfg.StartTimeout)
			fp, err := p.Fingerprint(ctx)
			cancel()
			if err == nil {
				backoff = time.Second
				if m.setInfo(inst, p, fp, nil) {
					m.changed()
				}
				t.Reset(next)
				continue
			}
			m.logger.Warn("driver plugin unreachable; relaunching", "driver", inst.name, "error", err)
			m.dropPlugin(inst)
			m.setInfo(inst, nil, nil, err)
			m.changed()
		}
		if m.ctx.Err() != nil {
			return
		}
		err := m.launch(inst)
		if errors.Is(err, ErrInvalidConfig) {
			m.logger.Error("driver plugin config rejected; not relaunching", "driver", inst.name, "error", err)
			m.changed()
			return
		}
		if err != nil {
			m.logger.Warn("relaunching driver plugin", "driver", inst.name, "error", err, "retry_in", backoff)
			next = backoff
			backoff = min(backoff*2, maxRelaunchBackoff)
		} else {
			m.logger.Info("driver plugin relaunched", "driver", inst.name)
			backoff = time.Second
			m.changed()
		}
		t.Reset(next)
	}
}

// invalid reports whether the plugin rejected its config.
func (m *Manager) invalid(inst *instance) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return inst.configErr != nil
}

func (m *Manager) dropPlugin(inst *instance) {
	m.mu.Lock()
	kill := inst.kill
	inst.plugin, inst.kill = nil, nil
	m.mu.Unlock()
	if kill != nil {
		kill()
	}
}

func (m *Manager) changed() {
	if m.cfg.OnChange != nil {
		m.cfg.OnChange()
	}
}
