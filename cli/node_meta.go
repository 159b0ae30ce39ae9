package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
)

// nodeMetaResponse is Nomad's NodeMetaResponse as the agent sends it.
type nodeMetaResponse struct {
	Meta    map[string]string
	Dynamic map[string]*string
	Static  map[string]string
}

// nodeMetaApplyCommand is `node meta apply [-node-id N] [-unset k1,k2]
// k=v...`: POST /v1/client/metadata, the keys set and the -unset ones
// null. Without -node-id the agent's own client's node.
func nodeMetaApplyCommand(m *Meta, args []string) int {
	f := m.newFlags("node meta apply", "[options] key=value...")
	node := f.String("node-id", "", "the node whose metadata to change (default: the agent's client)")
	unset := f.String("unset", "", "comma-separated keys to unset")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	meta := map[string]*string{}
	for _, kv := range pos {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return m.errorf("in %q: metadata must be given as key=value", kv)
		}
		meta[k] = &v
	}
	for _, k := range strings.Split(*unset, ",") {
		if k = strings.TrimSpace(k); k != "" {
			meta[k] = nil
		}
	}
	if len(meta) == 0 {
		return m.wrongArgs(f, "at least one key=value or -unset")
	}
	c := m.client(f)
	id, code := resolveNodeID(m, c, *node)
	if code != exitOK {
		return code
	}
	body := map[string]any{"NodeID": id, "Meta": meta}
	if _, err := c.do(http.MethodPost, "/v1/client/metadata", nil, body, nil); err != nil {
		return m.errorf("applying node metadata: %v", err)
	}
	return exitOK
}

// nodeMetaReadCommand is `node meta read [-node-id N] [-json]`: the node's
// metadata, then its dynamic and static parts, as Nomad prints them.
func nodeMetaReadCommand(m *Meta, args []string) int {
	f := m.newFlags("node meta read", "[options]")
	node := f.String("node-id", "", "the node whose metadata to read (default: the agent's client)")
	asJSON := f.Bool("json", false, "print the metadata as JSON")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		return m.wrongArgs(f, "no arguments")
	}
	c := m.client(f)
	id, code := resolveNodeID(m, c, *node)
	if code != exitOK {
		return code
	}
	q := url.Values{}
	if id != "" {
		q.Set("node_id", id)
	}
	var resp nodeMetaResponse
	if _, err := c.get("/v1/client/metadata", q, &resp); err != nil {
		return m.errorf("reading node metadata: %v", err)
	}
	if *asJSON {
		out, _ := json.MarshalIndent(resp, "", "    ")
		fmt.Fprintln(m.Out, string(out))
		return exitOK
	}
	dyn := map[string]string{}
	for k, v := range resp.Dynamic {
		if v == nil {
			dyn[k] = "<unset>"
		} else {
			dyn[k] = *v
		}
	}
	for _, sec := range []struct {
		title string
		kv    map[string]string
	}{{"All Meta", resp.Meta}, {"Dynamic Meta", dyn}, {"Static Meta", resp.Static}} {
		fmt.Fprintln(m.Out, sec.title)
		printSortedKV(m, sec.kv)
	}
	return exitOK
}

// printSortedKV prints "key = value" lines, keys sorted and aligned.
func printSortedKV(m *Meta, meta map[string]string) {
	keys := make([]string, 0, len(meta))
	for k := range meta {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	pairs := make([]string, 0, 2*len(keys))
	for _, k := range keys {
		pairs = append(pairs, k, meta[k])
	}
	if len(pairs) > 0 {
		kv(m.Out, pairs...)
	}
}

// resolveNodeID expands a node ID prefix to the node's ID ("" stays "":
// the agent's own client).
func resolveNodeID(m *Meta, c *apiClient, prefix string) (string, int) {
	if prefix == "" {
		return "", exitOK
	}
	nodes, err := c.nodes(prefix)
	if err != nil {
		return "", m.errorf("looking up node %q: %v", prefix, err)
	}
	for _, n := range nodes {
		if n.ID == prefix {
			return n.ID, exitOK
		}
	}
	switch len(nodes) {
	case 0:
		return "", m.errorf("no node with ID prefix %q", prefix)
	case 1:
		return nodes[0].ID, exitOK
	}
	return "", m.errorf("node ID prefix %q matches %d nodes", prefix, len(nodes))
}
