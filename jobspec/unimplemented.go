package jobspec

// Blocks and arguments that Nomad's job specification defines but nomadish
// does not implement yet. They are accepted, skipped without evaluation, and
// reported as warnings, so that Nomad's job files keep parsing. When one is
// implemented, move it to the decoder in job.go.
var (
	ignoredBlocks = map[string]map[string]bool{
		"job":   set("consul", "multiregion", "ui", "vault"),
		"group": set("consul", "vault"),
		"task": set("action", "consul", "csi_plugin",
			"identity", "scaling", "schedule", "secret", "vault"),
		"resources": set("device", "network"),
		"service":   set("identity", "tagged_addresses", "weights"),
		"network":   set("cni"),
	}
	ignoredAttrs = map[string]map[string]bool{
		"job": set("consul_namespace", "consul_token", "vault_namespace", "vault_token"),
		"group": set("prevent_reschedule_on_lost",
			"stop_after_client_disconnect"),
		"task":      set("kind"),
		"service":   set("kind", "tagged_addresses"),
		"check":     set("notes"),
		"resources": set("iops", "secrets"),
	}
)

func ignoredBlock(where, typ string) bool { return ignoredBlocks[where][typ] }

func ignoredAttr(where, name string) bool { return ignoredAttrs[where][name] }

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}
