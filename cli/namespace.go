package cli

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strings"

	"github.com/nomadish/nomadish/structs"
)

// namespaces is GET /v1/namespaces.
func (c *apiClient) namespaces() ([]*structs.Namespace, error) {
	var out []*structs.Namespace
	_, err := c.get("/v1/namespaces", nil, &out)
	return out, err
}

// namespaceInfo is GET /v1/namespace/:name (an *APIError 404 when absent).
func (c *apiClient) namespaceInfo(name string) (*structs.Namespace, error) {
	var out structs.Namespace
	_, err := c.get("/v1/namespace/"+esc(name), nil, &out)
	return &out, err
}

// namespaceApply is PUT /v1/namespace/:name.
func (c *apiClient) namespaceApply(ns *structs.Namespace) error {
	_, err := c.do(http.MethodPut, "/v1/namespace/"+esc(ns.Name), nil, ns, nil)
	return err
}

// namespaceDelete is DELETE /v1/namespace/:name.
func (c *apiClient) namespaceDelete(name string) error {
	_, err := c.do(http.MethodDelete, "/v1/namespace/"+esc(name), nil, nil, nil)
	return err
}

// readSpec reads a spec file argument ("-": stdin).
func (m *Meta) readSpec(path string) ([]byte, error) {
	if path == "-" {
		return io.ReadAll(os.Stdin)
	}
	return os.ReadFile(path)
}

// isSpecFile reports whether arg names a spec file rather than a name: "-"
// or an existing regular file (as Nomad decides).
func isSpecFile(arg string) bool {
	if arg == "-" {
		return true
	}
	fi, err := os.Stat(arg)
	return err == nil && fi.Mode().IsRegular()
}

// namespaceApplyCommand is `namespace apply [-description D] [-quota Q]
// [-meta k=v]... NAME` or `namespace apply [-json] FILE`: create or update
// a namespace. With a name, flags not given keep the current values.
func namespaceApplyCommand(m *Meta, args []string) int {
	f := m.newFlags("namespace apply", "[options] NAME|FILE")
	desc := f.String("description", "", "the namespace's description")
	quota := f.String("quota", "", "the quota attached to the namespace (stored)")
	asJSON := f.Bool("json", false, "the file is the API's JSON")
	var meta stringList
	f.Var(&meta, "meta", "a metadata key=value (repeatable)")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return m.wrongArgs(f, "one argument: the namespace name or a spec file")
	}
	c := m.client(f)
	var ns *structs.Namespace
	if isSpecFile(pos[0]) {
		src, err := m.readSpec(pos[0])
		if err != nil {
			return m.errorf("reading %s: %v", pos[0], err)
		}
		if ns, err = parseNamespaceSpec(pos[0], src, *asJSON); err != nil {
			return m.errorf("parsing namespace spec: %v", err)
		}
	} else {
		ns = &structs.Namespace{Name: pos[0]}
		if cur, err := c.namespaceInfo(pos[0]); err == nil {
			ns = cur
		} else if ae, ok := err.(*APIError); !ok || ae.Status != http.StatusNotFound {
			return m.errorf("querying namespace: %v", err)
		}
		set := map[string]bool{}
		f.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
		if set["description"] {
			ns.Description = *desc
		}
		if set["quota"] {
			ns.Quota = *quota
		}
		for _, kv := range meta {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || k == "" {
				return m.errorf("in -meta %q: want key=value", kv)
			}
			if ns.Meta == nil {
				ns.Meta = map[string]string{}
			}
			ns.Meta[k] = v
		}
	}
	if err := ns.Validate(); err != nil {
		return m.errorf("applying namespace: %v", err)
	}
	if err := c.namespaceApply(ns); err != nil {
		return m.errorf("applying namespace: %v", err)
	}
	fmt.Fprintf(m.Out, "Successfully applied namespace %q!\n", ns.Name)
	return exitOK
}

// namespaceListCommand is `namespace list`.
func namespaceListCommand(m *Meta, args []string) int {
	f := m.newFlags("namespace list", "[options]")
	ff := addFormatFlags(f)
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		return m.wrongArgs(f, "no arguments")
	}
	list, err := m.client(f).namespaces()
	if err != nil {
		return m.errorf("retrieving namespaces: %v", err)
	}
	if code, done := ff.print(m, list); done {
		return code
	}
	rows := [][]string{{"Name", "Description"}}
	for _, ns := range list {
		rows = append(rows, []string{ns.Name, ns.Description})
	}
	table(m.Out, rows)
	return exitOK
}

// namespaceStatusCommand is `namespace status NAME`.
func namespaceStatusCommand(m *Meta, args []string) int {
	f := m.newFlags("namespace status", "[options] NAME")
	ff := addFormatFlags(f)
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return m.wrongArgs(f, "one argument: the namespace name")
	}
	ns, err := m.client(f).namespaceInfo(pos[0])
	if err != nil {
		return m.errorf("retrieving namespace %q: %v", pos[0], err)
	}
	if code, done := ff.print(m, ns); done {
		return code
	}
	pairs := []string{"Name", ns.Name, "Description", ns.Description, "Quota", ns.Quota}
	if c := ns.Capabilities; c != nil {
		pairs = append(pairs, "EnabledDrivers", strings.Join(c.EnabledTaskDrivers, ","),
			"DisabledDrivers", strings.Join(c.DisabledTaskDrivers, ","))
	}
	kv(m.Out, pairs...)
	printMeta(m, ns.Meta)
	return exitOK
}

// printMeta prints a "Metadata" section (nothing for an empty map).
func printMeta(m *Meta, meta map[string]string) {
	if len(meta) == 0 {
		return
	}
	keys := make([]string, 0, len(meta))
	for k := range meta {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var pairs []string
	for _, k := range keys {
		pairs = append(pairs, k, meta[k])
	}
	fmt.Fprintln(m.Out, "\nMetadata")
	kv(m.Out, pairs...)
}

// namespaceDeleteCommand is `namespace delete NAME`.
func namespaceDeleteCommand(m *Meta, args []string) int {
	f := m.newFlags("namespace delete", "[options] NAME")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return m.wrongArgs(f, "one argument: the namespace name")
	}
	if err := m.client(f).namespaceDelete(pos[0]); err != nil {
		return m.errorf("deleting namespace: %v", err)
	}
	fmt.Fprintf(m.Out, "Successfully deleted namespace %q!\n", pos[0])
	return exitOK
}
