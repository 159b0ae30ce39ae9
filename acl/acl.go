package acl

import (
	"sort"
	"strings"
)

// capSet is a set of capability names.
type capSet map[string]bool

// add unions caps into s; deny replaces everything and stays alone.
func (s capSet) add(caps []string, deny string) {
	if s[deny] {
		return
	}
	for _, c := range caps {
		if c == deny {
			clear(s)
			s[deny] = true
			return
		}
		s[c] = true
	}
}

// ACL is a compiled set of policies: what one token may do. It is
// read-only once built and safe to share between goroutines. A nil *ACL
// means ACLs are off: callers allow everything (see the Allow* methods,
// which answer true on a nil receiver).
type ACL struct {
	management bool

	namespaces  map[string]capSet // exact names
	nsGlobs     map[string]capSet // names holding '*'
	variables   map[string]map[string]capSet
	nodePools   map[string]capSet
	poolGlobs   map[string]capSet
	hostVolumes map[string]capSet
	volumeGlobs map[string]capSet
	operatorCap capSet

	agent, node, operator, quota, plugin string
}

// ManagementACL allows everything: the ACL of a management token.
func ManagementACL() *ACL { return &ACL{management: true} }

// NewACL compiles policies into one ACL. Capabilities of rules for the
// same name are unioned, deny wins; of agent, node, operator, quota and
// plugin levels the most privileged wins, deny again winning. management
// gives an ACL that allows everything whatever the policies say.
func NewACL(management bool, policies []*Policy) *ACL {
	if management {
		return ManagementACL()
	}
	a := &ACL{
		namespaces: map[string]capSet{}, nsGlobs: map[string]capSet{},
		variables: map[string]map[string]capSet{},
		nodePools: map[string]capSet{}, poolGlobs: map[string]capSet{},
		hostVolumes: map[string]capSet{}, volumeGlobs: map[string]capSet{},
		operatorCap: capSet{},
	}
	for _, p := range policies {
		for _, ns := range p.Namespaces {
			setFor(a.namespaces, a.nsGlobs, ns.Name).add(ns.Capabilities, NamespaceCapabilityDeny)
			if len(ns.Variables) > 0 {
				paths := a.variables[ns.Name]
				if paths == nil {
					paths = map[string]capSet{}
					a.variables[ns.Name] = paths
				}
				for _, vp := range ns.Variables {
					s := paths[vp.PathSpec]
					if s == nil {
						s = capSet{}
						paths[vp.PathSpec] = s
					}
					s.add(vp.Capabilities, VariablesCapabilityDeny)
				}
			}
		}
		for _, np := range p.NodePools {
			setFor(a.nodePools, a.poolGlobs, np.Name).add(np.Capabilities, NodePoolCapabilityDeny)
		}
		for _, hv := range p.HostVolumes {
			setFor(a.hostVolumes, a.volumeGlobs, hv.Name).add(hv.Capabilities, HostVolumeCapabilityDeny)
		}
		a.agent = maxPrivilege(a.agent, p.Agent)
		a.node = maxPrivilege(a.node, p.Node)
		a.quota = maxPrivilege(a.quota, p.Quota)
		a.plugin = maxPrivilege(a.plugin, p.Plugin)
		if p.Operator != nil {
			a.operator = maxPrivilege(a.operator, p.Operator.Policy)
			a.operatorCap.add(p.Operator.Capabilities, OperatorCapabilityDeny)
		}
	}
	return a
}

func setFor(exact, globs map[string]capSet, name string) capSet {
	m := exact
	if strings.Contains(name, "*") {
		m = globs
	}
	s := m[name]
	if s == nil {
		s = capSet{}
		m[name] = s
	}
	return s
}

// privilegeRank orders levels; deny is handled before ranking.
var privilegeRank = map[string]int{"": 0, PolicyList: 1, PolicyRead: 2, PolicyWrite: 3}

func maxPrivilege(a, b string) string {
	if a == PolicyDeny || b == PolicyDeny {
		return PolicyDeny
	}
	if privilegeRank[b] > privilegeRank[a] {
		return b
	}
	return a
}

// lookup is the capability set for name: the exact rule when there is
// one, else the closest matching glob (Nomad's rule: the glob that leaves
// the fewest characters to the wildcards; ties go to the lexically first
// glob, so the answer is stable).
func lookup(exact, globs map[string]capSet, name string) (capSet, bool) {
	_, s, ok := lookupKey(exact, globs, name)
	return s, ok
}

// lookupKey is lookup that also returns the rule's name.
func lookupKey[V any](exact, globs map[string]V, name string) (string, V, bool) {
	if s, ok := exact[name]; ok {
		return name, s, true
	}
	best, bestDiff, found := "", 0, false
	keys := make([]string, 0, len(globs))
	for k := range globs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, g := range keys {
		if !globMatch(g, name) {
			continue
		}
		diff := len(name) - len(g) + strings.Count(g, "*")
		if !found || diff < bestDiff {
			best, bestDiff, found = g, diff, true
		}
	}
	if !found {
		var zero V
		return "", zero, false
	}
	return best, globs[best], true
}

// globMatch reports whether name matches pattern, where '*' matches any
// run of characters (possibly empty) and everything else is literal.
func globMatch(pattern, name string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == name
	}
	if !strings.HasPrefix(name, parts[0]) {
		return false
	}
	name = name[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(name, p)
		if i < 0 {
			return false
		}
		name = name[i+len(p):]
	}
	return strings.HasSuffix(name, last)
}
