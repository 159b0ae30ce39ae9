package template

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"

	"github.com/nomadish/nomadish/structs"
)

// Dependency kinds of Nomad's native services (nomadService,
// nomadServices); a service dep's Path is the service name, the list's "".
const (
	DepService  DepKind = iota + 10 // one service's registrations
	DepServices                     // the service names of the namespace
)

// ServiceStub is one service name of the task's namespace with the union
// of its instances' tags (nomadServices' elements: .Name, .Tags).
type ServiceStub struct {
	Name string
	Tags []string
}

// ServiceLister is the optional list side of a ServiceReader
// (nomadServices): blocking as ServiceReader.Service.
type ServiceLister interface {
	Services(ctx context.Context, waitIndex uint64) ([]*ServiceStub, uint64, error)
}

// serviceQueryRe is consul-template's nomadService query: an optional
// "<tag>." before the name and an optional "@<region>" after it.
var serviceQueryRe = regexp.MustCompile(`^(?:([\w\-]+)\.)?([\w\-]+)(?:@([\w\.\-]+))?$`)

// nomadService is consul-template's nomadService: `nomadService "name"`,
// `nomadService "tag.name"`, or `nomadService n "key" "name"` (the n
// instances rendezvous hashing on key ranks first, as the servers'
// choose=n|key). Instances are ordered by ID, chosen ones by weight.
func (rc *renderCtx) nomadService(args ...any) ([]*Service, error) {
	var query string
	n, key := 0, ""
	switch len(args) {
	case 1:
		query = fmt.Sprint(args[0])
	case 3:
		c, err := strconv.Atoi(fmt.Sprint(args[0]))
		if err != nil || c < 1 {
			return nil, fmt.Errorf("nomadService: the count %q must be a number of at least 1", fmt.Sprint(args[0]))
		}
		n, key, query = c, fmt.Sprint(args[1]), fmt.Sprint(args[2])
	default:
		return nil, fmt.Errorf("nomadService takes a service name, or a count, a key and a service name; got %d arguments", len(args))
	}
	m := serviceQueryRe.FindStringSubmatch(query)
	if m == nil {
		return nil, fmt.Errorf("nomadService: invalid service query %q: want [tag.]name[@region]", query)
	}
	tag, name := m[1], m[2]
	all, err := rc.lookupService(name)
	if err != nil {
		return nil, fmt.Errorf("nomadService %q: %w", query, err)
	}
	out := make([]*Service, 0, len(all))
	for _, s := range all {
		if tag == "" || slices.Contains(s.Tags, tag) {
			out = append(out, s)
		}
	}
	if n > 0 {
		sort.SliceStable(out, func(i, j int) bool {
			return structs.RendezvousWeight(key, out[i].ID) > structs.RendezvousWeight(key, out[j].ID)
		})
		out = out[:min(n, len(out))]
	}
	return out, nil
}

// nomadServices lists the service names of the task's namespace with
// their tags, sorted by name.
func (rc *renderCtx) nomadServices(args ...any) ([]*ServiceStub, error) {
	if len(args) > 0 {
		return nil, fmt.Errorf("nomadServices takes no arguments in nomadish (a task lists its own namespace), got %d", len(args))
	}
	if rc.in.Data == nil || !rc.in.Services {
		return nil, fmt.Errorf("nomadServices: %w", ErrNoServices)
	}
	d := Dep{Kind: DepServices}
	first := !rc.seen[d]
	rc.seen[d] = true
	l, ok := rc.in.Data.ServiceNames[""]
	if !ok && first {
		rc.unfetched = append(rc.unfetched, d)
	}
	return l, nil
}

func (rc *renderCtx) lookupService(name string) ([]*Service, error) {
	if rc.in.Data == nil || !rc.in.Services {
		return nil, ErrNoServices
	}
	d := Dep{Kind: DepService, Path: name}
	first := !rc.seen[d]
	rc.seen[d] = true
	s, ok := rc.in.Data.Services[name]
	if !ok && first {
		rc.unfetched = append(rc.unfetched, d)
	}
	return s, nil
}

// fetchService reads a service dep with the reader (blocking while
// waitIndex > 0) into u.
func (m *Manager) fetchService(ctx context.Context, d Dep, waitIndex uint64) (update, error) {
	u := update{dep: d}
	var err error
	switch {
	case m.services == nil:
		return u, ErrNoServices
	case d.Kind == DepService:
		u.s, u.idx, err = m.services.Service(ctx, d.Path, waitIndex)
		if err != nil {
			err = fmt.Errorf("reading service %q: %w", d.Path, err)
		}
	default:
		l, ok := m.services.(ServiceLister)
		if !ok {
			return u, fmt.Errorf("nomadServices: %w", ErrNoServices)
		}
		u.n, u.idx, err = l.Services(ctx, waitIndex)
		if err != nil {
			err = fmt.Errorf("listing services: %w", err)
		}
	}
	return u, err
}

// isService reports whether d is a service dep.
func (d Dep) isService() bool { return d.Kind == DepService || d.Kind == DepServices }
