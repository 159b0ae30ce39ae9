package cli

// Nomad's `service list|info|delete` over /v1/services and
// /v1/service/:name (website/services.md); the command table in cli.go
// names them.

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/nomadish/nomadish/structs"
)

// services is GET /v1/services.
func (c *apiClient) services() ([]*structs.ServiceRegistrationListStub, error) {
	var out []*structs.ServiceRegistrationListStub
	_, err := c.get("/v1/services", nil, &out)
	return out, err
}

// service is GET /v1/service/:name (?tag=).
func (c *apiClient) service(name, tag string) ([]*structs.ServiceRegistration, error) {
	q := url.Values{}
	if tag != "" {
		q.Set("tag", tag)
	}
	var out []*structs.ServiceRegistration
	_, err := c.get("/v1/service/"+esc(name), q, &out)
	return out, err
}

// deleteService is DELETE /v1/service/:name/:id.
func (c *apiClient) deleteService(name, id string) error {
	_, err := c.do(http.MethodDelete, "/v1/service/"+esc(name)+"/"+esc(id), nil, nil, nil)
	return err
}

// serviceListCommand is `service list [-namespace NS|*] [-json] [-t TMPL]`.
func serviceListCommand(m *Meta, args []string) int {
	f := m.newFlags("service list", "[options]")
	ff := addFormatFlags(f)
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		return m.wrongArgs(f, "no arguments")
	}
	c := m.client(f)
	list, err := c.services()
	if err != nil {
		return m.errorf("listing services: %v", err)
	}
	if code, done := ff.print(m, list); done {
		return code
	}
	all := c.namespace == structs.AllNamespaces
	header := []string{"Service Name", "Tags"}
	if all {
		header = []string{"Service Name", "Namespace", "Tags"}
	}
	rows := [][]string{header}
	for _, ns := range list {
		for _, s := range ns.Services {
			tags := "[" + strings.Join(s.Tags, ",") + "]"
			if all {
				rows = append(rows, []string{s.ServiceName, ns.Namespace, tags})
			} else {
				rows = append(rows, []string{s.ServiceName, tags})
			}
		}
	}
	if len(rows) == 1 {
		fmt.Fprintln(m.Out, "No service registrations found")
		return exitOK
	}
	table(m.Out, rows)
	return exitOK
}

// serviceInfoCommand is `service info [-verbose] [-json] [-t TMPL] [-tag
// TAG] NAME`.
func serviceInfoCommand(m *Meta, args []string) int {
	f := m.newFlags("service info", "[options] <service name>")
	ff := addFormatFlags(f)
	verbose := f.Bool("verbose", false, "full IDs, one block per registration")
	tag := f.String("tag", "", "only the registrations carrying this tag")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return m.wrongArgs(f, "one argument: the service name")
	}
	regs, err := m.client(f).service(pos[0], *tag)
	if err != nil {
		return m.errorf("reading service %q: %v", pos[0], err)
	}
	if code, done := ff.print(m, regs); done {
		return code
	}
	if len(regs) == 0 {
		fmt.Fprintln(m.Out, "No service registrations found")
		return exitOK
	}
	if *verbose {
		for i, r := range regs {
			if i > 0 {
				fmt.Fprintln(m.Out)
			}
			kv(m.Out, "ID", r.ID, "Service Name", r.ServiceName, "Namespace", r.Namespace, "Job ID", r.JobID,
				"Alloc ID", r.AllocID, "Node ID", r.NodeID, "Datacenter", r.Datacenter, "Address", addrPort(r),
				"Tags", "["+strings.Join(r.Tags, ",")+"]")
		}
		return exitOK
	}
	rows := [][]string{{"Job ID", "Address", "Tags", "Node ID", "Alloc ID"}}
	for _, r := range regs {
		rows = append(rows, []string{r.JobID, addrPort(r), "[" + strings.Join(r.Tags, ",") + "]",
			shortID(r.NodeID, false), shortID(r.AllocID, false)})
	}
	table(m.Out, rows)
	return exitOK
}

func addrPort(r *structs.ServiceRegistration) string {
	if strings.Contains(r.Address, ":") {
		return "[" + r.Address + "]:" + strconv.Itoa(r.Port)
	}
	return r.Address + ":" + strconv.Itoa(r.Port)
}

// serviceDeleteCommand is `service delete NAME ID`.
func serviceDeleteCommand(m *Meta, args []string) int {
	f := m.newFlags("service delete", "[options] <service name> <service id>")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 2 {
		return m.wrongArgs(f, "two arguments: the service name and the registration ID")
	}
	if err := m.client(f).deleteService(pos[0], pos[1]); err != nil {
		return m.errorf("deleting service registration %q: %v", pos[1], err)
	}
	fmt.Fprintln(m.Out, "Successfully deleted service registration")
	return exitOK
}
