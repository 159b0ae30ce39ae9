package cli

import (
	"fmt"
	"net/http"
	"sort"
	"strconv"

	"github.com/nomadish/nomadish/structs"
)

// nodePools is GET /v1/node/pools.
func (c *apiClient) nodePools() ([]*structs.NodePool, error) {
	var out []*structs.NodePool
	_, err := c.get("/v1/node/pools", nil, &out)
	return out, err
}

// nodePoolInfo is GET /v1/node/pool/:name.
func (c *apiClient) nodePoolInfo(name string) (*structs.NodePool, error) {
	var out structs.NodePool
	_, err := c.get("/v1/node/pool/"+esc(name), nil, &out)
	return &out, err
}

// nodePoolApply is PUT /v1/node/pools.
func (c *apiClient) nodePoolApply(p *structs.NodePool) error {
	_, err := c.do(http.MethodPut, "/v1/node/pools", nil, p, nil)
	return err
}

// nodePoolDelete is DELETE /v1/node/pool/:name.
func (c *apiClient) nodePoolDelete(name string) error {
	_, err := c.do(http.MethodDelete, "/v1/node/pool/"+esc(name), nil, nil, nil)
	return err
}

// nodePoolCommand runs the one-argument node pool commands (info, delete,
// jobs, nodes), which share their flags and argument check.
func nodePoolCommand(name string, run func(m *Meta, c *apiClient, pool string) int) func(*Meta, []string) int {
	return func(m *Meta, args []string) int {
		f := m.newFlags("node pool "+name, "[options] POOL")
		pos, code, ok := m.parse(f, args)
		if !ok {
			return code
		}
		if len(pos) != 1 {
			return m.wrongArgs(f, "one argument: the node pool name")
		}
		return run(m, m.client(f), pos[0])
	}
}

// nodePoolApplyCommand is `node pool apply [-json] FILE`.
func nodePoolApplyCommand(m *Meta, args []string) int {
	f := m.newFlags("node pool apply", "[options] FILE")
	asJSON := f.Bool("json", false, "the file is the API's JSON")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return m.wrongArgs(f, "one argument: the node pool spec file (\"-\": stdin)")
	}
	src, err := m.readSpec(pos[0])
	if err != nil {
		return m.errorf("reading %s: %v", pos[0], err)
	}
	p, err := parseNodePoolSpec(pos[0], src, *asJSON)
	if err != nil {
		return m.errorf("parsing node pool spec: %v", err)
	}
	if err := p.Validate(); err != nil {
		return m.errorf("applying node pool: %v", err)
	}
	if err := m.client(f).nodePoolApply(p); err != nil {
		return m.errorf("applying node pool: %v", err)
	}
	fmt.Fprintf(m.Out, "Successfully applied node pool %q!\n", p.Name)
	return exitOK
}

// nodePoolListCommand is `node pool list`.
func nodePoolListCommand(m *Meta, args []string) int {
	f := m.newFlags("node pool list", "[options]")
	ff := addFormatFlags(f)
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		return m.wrongArgs(f, "no arguments")
	}
	pools, err := m.client(f).nodePools()
	if err != nil {
		return m.errorf("retrieving node pools: %v", err)
	}
	if code, done := ff.print(m, pools); done {
		return code
	}
	rows := [][]string{{"Name", "Description"}}
	for _, p := range pools {
		rows = append(rows, []string{p.Name, p.Description})
	}
	table(m.Out, rows)
	return exitOK
}

// nodePoolInfoCommand is `node pool info [-json] [-t TMPL] POOL`.
func nodePoolInfoCommand(m *Meta, args []string) int {
	f := m.newFlags("node pool info", "[options] POOL")
	ff := addFormatFlags(f)
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return m.wrongArgs(f, "one argument: the node pool name")
	}
	if code, bad := ff.check(m); bad {
		return code
	}
	c := m.client(f)
	if !ff.set() {
		return nodePoolInfo(m, c, pos[0])
	}
	p, err := c.nodePoolInfo(pos[0])
	if err != nil {
		return m.errorf("retrieving node pool %q: %v", pos[0], err)
	}
	code, _ = ff.print(m, p)
	return code
}

func nodePoolInfo(m *Meta, c *apiClient, name string) int {
	p, err := c.nodePoolInfo(name)
	if err != nil {
		return m.errorf("retrieving node pool %q: %v", name, err)
	}
	kv(m.Out, "Name", p.Name, "Description", p.Description)
	printMeta(m, p.Meta)
	if sc := p.SchedulerConfiguration; sc != nil {
		mem := "<cluster's>"
		if sc.MemoryOversubscriptionEnabled != nil {
			mem = strconv.FormatBool(*sc.MemoryOversubscriptionEnabled)
		}
		fmt.Fprintln(m.Out, "\nScheduler Configuration")
		kv(m.Out, "Scheduler Algorithm", orDefault(sc.SchedulerAlgorithm, "<cluster's>"), "Memory Oversubscription Enabled", mem)
	}
	return exitOK
}

func nodePoolDelete(m *Meta, c *apiClient, name string) int {
	if err := c.nodePoolDelete(name); err != nil {
		return m.errorf("deleting node pool: %v", err)
	}
	fmt.Fprintf(m.Out, "Successfully deleted node pool %q!\n", name)
	return exitOK
}

func nodePoolJobs(m *Meta, c *apiClient, name string) int {
	var jobs []*structs.JobListStub
	if _, err := c.get("/v1/node/pool/"+esc(name)+"/jobs", nil, &jobs); err != nil {
		return m.errorf("retrieving the jobs of node pool %q: %v", name, err)
	}
	if len(jobs) == 0 {
		fmt.Fprintln(m.Out, "No jobs")
		return exitOK
	}
	sort.Slice(jobs, func(i, j int) bool { return jobs[i].Namespace+jobs[i].ID < jobs[j].Namespace+jobs[j].ID })
	rows := [][]string{{"ID", "Namespace", "Type", "Priority", "Status", "Submit Date"}}
	for _, j := range jobs {
		rows = append(rows, []string{j.ID, j.Namespace, j.Type, strconv.Itoa(j.Priority), jobStatusWord(j.Status, j.Stop), formatTime(unixNano(j.SubmitTime))})
	}
	table(m.Out, rows)
	return exitOK
}

func nodePoolNodes(m *Meta, c *apiClient, name string) int {
	var nodes []*structs.NodeListStub
	if _, err := c.get("/v1/node/pool/"+esc(name)+"/nodes", nil, &nodes); err != nil {
		return m.errorf("retrieving the nodes of node pool %q: %v", name, err)
	}
	if len(nodes) == 0 {
		fmt.Fprintln(m.Out, "No nodes")
		return exitOK
	}
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].Name < nodes[j].Name })
	rows := [][]string{{"ID", "Node Pool", "DC", "Name", "Class", "Drain", "Eligibility", "Status"}}
	for _, n := range nodes {
		rows = append(rows, []string{shortID(n.ID, false), n.NodePool, n.Datacenter, n.Name,
			orDefault(n.NodeClass, "<none>"), strconv.FormatBool(n.Drain), n.SchedulingEligibility, n.Status})
	}
	table(m.Out, rows)
	return exitOK
}
