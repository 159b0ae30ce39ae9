package cli

import (
	"encoding/json"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/nomadish/nomadish/structs"
)

// scalingPolicies is GET /v1/scaling/policies (?job=, ?type=).
func (c *apiClient) scalingPolicies(job, typ string) ([]*structs.ScalingPolicyListStub, error) {
	q := url.Values{}
	if job != "" {
		q.Set("job", job)
	}
	if typ != "" {
		q.Set("type", typ)
	}
	var out []*structs.ScalingPolicyListStub
	_, err := c.get("/v1/scaling/policies", q, &out)
	return out, err
}

// scalingPolicy is GET /v1/scaling/policy/:id (an *APIError 404 when absent).
func (c *apiClient) scalingPolicy(id string) (*structs.ScalingPolicy, error) {
	var out structs.ScalingPolicy
	_, err := c.get("/v1/scaling/policy/"+esc(id), nil, &out)
	return &out, err
}

// formatTarget is a policy's target as Nomad prints it:
// "Namespace:default,Job:web,Group:cache".
func formatTarget(t map[string]string) string {
	order := map[string]int{structs.ScalingTargetNamespace: 0, structs.ScalingTargetJob: 1, structs.ScalingTargetGroup: 2}
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		oi, iok := order[keys[i]]
		oj, jok := order[keys[j]]
		if iok != jok {
			return iok
		}
		if iok {
			return oi < oj
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + ":" + t[k]
	}
	return strings.Join(parts, ",")
}

// scalingPolicyListCommand is `scaling policy list [-job J] [-type T] [-json]`.
func scalingPolicyListCommand(m *Meta, args []string) int {
	f := m.newFlags("scaling policy list", "[options]")
	job := f.String("job", "", "only the policies of this job")
	typ := f.String("type", "", "only the policies of this type (horizontal)")
	ff := addFormatFlags(f)
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		return m.wrongArgs(f, "no arguments")
	}
	list, err := m.client(f).scalingPolicies(*job, *typ)
	if err != nil {
		return m.errorf("retrieving scaling policies: %v", err)
	}
	if code, done := ff.print(m, list); done {
		return code
	}
	if len(list) == 0 {
		m.Out.Write([]byte("No policies found\n"))
		return exitOK
	}
	rows := [][]string{{"ID", "Enabled", "Type", "Target"}}
	for _, p := range list {
		rows = append(rows, []string{p.ID, strconv.FormatBool(p.Enabled), p.Type, formatTarget(p.Target)})
	}
	table(m.Out, rows)
	return exitOK
}

// scalingPolicyInfoCommand is `scaling policy info [-json] ID`.
func scalingPolicyInfoCommand(m *Meta, args []string) int {
	f := m.newFlags("scaling policy info", "[options] ID")
	ff := addFormatFlags(f)
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return m.wrongArgs(f, "one argument: the policy ID")
	}
	p, err := m.client(f).scalingPolicy(pos[0])
	if err != nil {
		return m.errorf("retrieving scaling policy %q: %v", pos[0], err)
	}
	if code, done := ff.print(m, p); done {
		return code
	}
	kv(m.Out, "ID", p.ID, "Enabled", strconv.FormatBool(p.Enabled), "Type", p.Type, "Target", formatTarget(p.Target),
		"Min", strconv.FormatInt(p.Min, 10), "Max", strconv.FormatInt(p.Max, 10))
	if len(p.Policy) > 0 {
		b, err := json.MarshalIndent(p.Policy, "", "  ")
		if err != nil {
			return m.errorf("encoding the policy: %v", err)
		}
		m.Out.Write([]byte("\nPolicy:\n" + string(b) + "\n"))
	}
	return exitOK
}
