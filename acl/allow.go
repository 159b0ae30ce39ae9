package acl

import "strings"

// Every Allow method answers true on a nil *ACL (ACLs off) and on a
// management ACL.

// IsManagement is true for a management token's ACL (and for nil).
func (a *ACL) IsManagement() bool { return a == nil || a.management }

// AllowNamespaceOperation reports whether capability op is granted in
// namespace ns.
func (a *ACL) AllowNamespaceOperation(ns, op string) bool {
	if a.IsManagement() {
		return true
	}
	s, ok := lookup(a.namespaces, a.nsGlobs, ns)
	return ok && s[op]
}

// AllowNamespace reports whether any capability but deny is granted in ns:
// whether the namespace is visible at all.
func (a *ACL) AllowNamespace(ns string) bool {
	if a.IsManagement() {
		return true
	}
	s, ok := lookup(a.namespaces, a.nsGlobs, ns)
	return ok && len(s) > 0 && !s[NamespaceCapabilityDeny]
}

// AllowVariableOperation reports whether op (read, list, write, destroy)
// is granted on the variable at path in ns: the namespace rule is chosen as
// AllowNamespaceOperation does, then its closest matching path glob.
func (a *ACL) AllowVariableOperation(ns, path, op string) bool {
	if a.IsManagement() {
		return true
	}
	if s, ok := lookup(a.namespaces, a.nsGlobs, ns); ok && s[NamespaceCapabilityDeny] {
		return false
	}
	exact, globs := map[string]map[string]capSet{}, map[string]map[string]capSet{}
	for k, v := range a.variables {
		if strings.Contains(k, "*") {
			globs[k] = v
		} else {
			exact[k] = v
		}
	}
	_, paths, ok := lookupKey(exact, globs, ns)
	if !ok {
		return false
	}
	pexact, pglobs := map[string]capSet{}, map[string]capSet{}
	for k, v := range paths {
		if strings.Contains(k, "*") {
			pglobs[k] = v
		} else {
			pexact[k] = v
		}
	}
	s, ok := lookup(pexact, pglobs, path)
	return ok && s[op] && !s[VariablesCapabilityDeny]
}

// AllowNodePoolOperation reports whether op is granted on node pool pool.
func (a *ACL) AllowNodePoolOperation(pool, op string) bool {
	if a.IsManagement() {
		return true
	}
	s, ok := lookup(a.nodePools, a.poolGlobs, pool)
	return ok && s[op] && !s[NodePoolCapabilityDeny]
}

// AllowNodePool reports whether node pool pool is visible.
func (a *ACL) AllowNodePool(pool string) bool {
	if a.IsManagement() {
		return true
	}
	s, ok := lookup(a.nodePools, a.poolGlobs, pool)
	return ok && len(s) > 0 && !s[NodePoolCapabilityDeny]
}

// AllowHostVolumeOperation reports whether op is granted on host volume v.
func (a *ACL) AllowHostVolumeOperation(v, op string) bool {
	if a.IsManagement() {
		return true
	}
	s, ok := lookup(a.hostVolumes, a.volumeGlobs, v)
	return ok && s[op] && !s[HostVolumeCapabilityDeny]
}

// AllowOperatorOperation reports whether operator capability op
// (snapshot-save, license-read) is granted.
func (a *ACL) AllowOperatorOperation(op string) bool {
	if a.IsManagement() {
		return true
	}
	return a.operatorCap[op] && !a.operatorCap[OperatorCapabilityDeny]
}

func readable(level string) bool { return level == PolicyRead || level == PolicyWrite }

// AllowAgentRead and the other level checks: read holds for read and
// write, write only for write; deny and no rule refuse.
func (a *ACL) AllowAgentRead() bool     { return a.IsManagement() || readable(a.agent) }
func (a *ACL) AllowAgentWrite() bool    { return a.IsManagement() || a.agent == PolicyWrite }
func (a *ACL) AllowNodeRead() bool      { return a.IsManagement() || readable(a.node) }
func (a *ACL) AllowNodeWrite() bool     { return a.IsManagement() || a.node == PolicyWrite }
func (a *ACL) AllowOperatorRead() bool  { return a.IsManagement() || readable(a.operator) }
func (a *ACL) AllowOperatorWrite() bool { return a.IsManagement() || a.operator == PolicyWrite }
func (a *ACL) AllowQuotaRead() bool     { return a.IsManagement() || readable(a.quota) }
func (a *ACL) AllowQuotaWrite() bool    { return a.IsManagement() || a.quota == PolicyWrite }
func (a *ACL) AllowPluginRead() bool    { return a.IsManagement() || readable(a.plugin) }
func (a *ACL) AllowPluginWrite() bool   { return a.IsManagement() || a.plugin == PolicyWrite }

// AllowPluginList holds for list, read and write plugin policies.
func (a *ACL) AllowPluginList() bool {
	return a.IsManagement() || a.plugin == PolicyList || readable(a.plugin)
}
