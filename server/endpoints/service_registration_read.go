package endpoints

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// serviceNameRe is Nomad's rule for a service name (RFC 1123 label).
var serviceNameRe = regexp.MustCompile(`^(?i:[a-z0-9]|[a-z0-9][a-z0-9\-]{0,61}[a-z0-9])$`)

// validateRegistration checks the fields every registration needs.
func validateRegistration(r *structs.ServiceRegistration) error {
	switch {
	case r == nil:
		return errors.New("null registration")
	case r.ID == "":
		return errors.New("missing ID")
	case !serviceNameRe.MatchString(r.ServiceName):
		return fmt.Errorf("service name %q must be 1-63 letters, digits and dashes, not starting or ending with a dash", r.ServiceName)
	case r.Namespace == "":
		return errors.New("missing Namespace")
	case r.NodeID == "":
		return errors.New("missing NodeID")
	case r.AllocID == "":
		return errors.New("missing AllocID")
	case r.JobID == "":
		return errors.New("missing JobID")
	case r.Port < 0 || r.Port > 65535:
		return fmt.Errorf("port %d out of range 0-65535", r.Port)
	}
	return nil
}

// List lists the service names of args.Namespace with their tags ("*":
// every namespace the token may read-job in); blocking on the table. A
// node's secret may list one namespace (templates' nomadServices).
func (e *ServiceRegistration) List(args *structs.ServiceRegistrationListRequest, reply *structs.ServiceRegistrationListResponse) error {
	ns := namespaceOf(args.Namespace)
	node, err := e.d.callingNode(e.d.State().Snapshot(), args.AuthToken)
	if err != nil {
		return err
	}
	var keep func(string) bool
	if node == nil || ns == structs.AllNamespaces {
		if keep, err = e.d.namespaceFilter(args.AuthToken, ns, capReadJob); err != nil {
			return err
		}
	}
	return e.d.blockingList(&args.QueryOptions, &reply.QueryMeta, []string{state.TableServiceRegistrations}, func(_ memdb.WatchSet, st *state.StateSnapshot) (uint64, error) {
		regs, err := st.ServiceRegistrations(nil, ns)
		if err != nil {
			return 0, err
		}
		reply.Services = serviceStubs(regs, keep)
		return st.Index(state.TableServiceRegistrations)
	})
}

// serviceStubs groups regs by namespace (sorted) and service name
// (sorted), with the union of their tags (sorted), keeping the namespaces
// keep allows (nil: all).
func serviceStubs(regs []*structs.ServiceRegistration, keep func(string) bool) []*structs.ServiceRegistrationListStub {
	tags := map[string]map[string]map[string]bool{} // ns -> name -> tag set
	for _, r := range regs {
		if keep != nil && !keep(r.Namespace) {
			continue
		}
		if tags[r.Namespace] == nil {
			tags[r.Namespace] = map[string]map[string]bool{}
		}
		set := tags[r.Namespace][r.ServiceName]
		if set == nil {
			set = map[string]bool{}
			tags[r.Namespace][r.ServiceName] = set
		}
		for _, t := range r.Tags {
			set[t] = true
		}
	}
	out := []*structs.ServiceRegistrationListStub{}
	for _, ns := range sortedKeysOf(tags) {
		stub := &structs.ServiceRegistrationListStub{Namespace: ns}
		for _, name := range sortedKeysOf(tags[ns]) {
			stub.Services = append(stub.Services, &structs.ServiceRegistrationStub{ServiceName: name, Tags: sortedKeysOf(tags[ns][name])})
		}
		out = append(out, stub)
	}
	return out
}

func sortedKeysOf[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// GetService returns the registrations of args.ServiceName in
// args.Namespace, ordered by ID, or with Choose ("<n>|<key>") the n that
// rendezvous hashing on key ranks first; blocking on the table (its index,
// as Nomad's: deletes leave no row to carry an index). A token needs
// read-job there; a node's secret may read (templates render on clients).
func (e *ServiceRegistration) GetService(args *structs.ServiceRegistrationByNameRequest, reply *structs.ServiceRegistrationByNameResponse) error {
	ns := namespaceOf(args.Namespace)
	if ns == structs.AllNamespaces {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "a service is read in one namespace, not %q", ns)
	}
	if args.ServiceName == "" {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "missing service name")
	}
	n, key, err := parseChoose(args.Choose)
	if err != nil {
		return err
	}
	node, err := e.d.callingNode(e.d.State().Snapshot(), args.AuthToken)
	if err != nil {
		return err
	}
	if node == nil {
		if err := e.d.allowNamespaceOp(args.AuthToken, ns, capReadJob); err != nil {
			return err
		}
	}
	return e.d.blockingList(&args.QueryOptions, &reply.QueryMeta, []string{state.TableServiceRegistrations}, func(_ memdb.WatchSet, st *state.StateSnapshot) (uint64, error) {
		regs, err := st.ServiceRegistrationsByName(nil, ns, args.ServiceName)
		if err != nil {
			return 0, err
		}
		if n > 0 {
			regs = chooseServices(regs, n, key)
		}
		reply.Services = append([]*structs.ServiceRegistration{}, regs...)
		return st.Index(state.TableServiceRegistrations)
	})
}

// parseChoose parses Nomad's choose parameter "<n>|<key>" ("" : 0, all).
func parseChoose(s string) (int, string, error) {
	if s == "" {
		return 0, "", nil
	}
	num, key, ok := strings.Cut(s, "|")
	n, err := strconv.Atoi(num)
	if !ok || err != nil || n < 1 || key == "" {
		return 0, "", structs.NewCodedError(structs.ErrCodeBadRequest, "invalid choose parameter %q: want <number>|<key>, the number at least 1", s)
	}
	return n, key, nil
}

// chooseServices returns the n of regs with the highest rendezvous weight
// for key (the hash of key and the registration's ID), highest first: the
// same key picks the same instances while they live, and losing one moves
// only the callers that had picked it.
func chooseServices(regs []*structs.ServiceRegistration, n int, key string) []*structs.ServiceRegistration {
	type weighted struct {
		r *structs.ServiceRegistration
		w uint64
	}
	ws := make([]weighted, len(regs))
	for i, r := range regs {
		ws[i] = weighted{r, structs.RendezvousWeight(key, r.ID)}
	}
	sort.Slice(ws, func(i, j int) bool {
		if ws[i].w != ws[j].w {
			return ws[i].w > ws[j].w
		}
		return ws[i].r.ID < ws[j].r.ID
	})
	out := make([]*structs.ServiceRegistration, 0, min(n, len(ws)))
	for _, x := range ws[:min(n, len(ws))] {
		out = append(out, x.r)
	}
	return out
}
