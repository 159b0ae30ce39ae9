package cli

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"

	"github.com/nomadish/nomadish/structs"
)

// serverMembers is GET /v1/agent/members.
func (c *apiClient) serverMembers() (*structs.ServerMembersResponse, error) {
	var out structs.ServerMembersResponse
	if _, err := c.get("/v1/agent/members", nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// serverMembersCommand is `server members [-detailed]`: the servers gossip
// knows, as Nomad prints them.
func serverMembersCommand(m *Meta, args []string) int {
	f := m.newFlags("server members", "[options]")
	detailed := f.Bool("detailed", false, "show every member's tags")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		return m.wrongArgs(f, "no arguments")
	}
	resp, err := m.client(f).serverMembers()
	if err != nil {
		return m.errorf("querying the servers: %v", err)
	}
	members := resp.Members
	sort.Slice(members, func(i, j int) bool { return members[i].Name < members[j].Name })
	rows := [][]string{{"Name", "Address", "Port", "Status", "Leader", "Build", "Datacenter", "Region"}}
	if *detailed {
		rows = [][]string{{"Name", "Address", "Port", "Status", "Tags"}}
	}
	for _, mb := range members {
		if *detailed {
			rows = append(rows, []string{mb.Name, mb.Addr, strconv.Itoa(int(mb.Port)), mb.Status, tagString(mb.Tags)})
			continue
		}
		rows = append(rows, []string{mb.Name, mb.Addr, strconv.Itoa(int(mb.Port)), mb.Status,
			mb.Tags["leader"], mb.Tags["build"], mb.Tags["dc"], mb.Tags["region"]})
	}
	table(m.Out, rows)
	return exitOK
}

func tagString(tags map[string]string) string {
	keys := make([]string, 0, len(tags))
	for k := range tags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := ""
	for i, k := range keys {
		if i > 0 {
			out += ","
		}
		out += k + "=" + tags[k]
	}
	return out
}

// serverJoinCommand is `server join ADDR...`: the agent's server joins the
// servers at the given serf addresses (host or host:port).
func serverJoinCommand(m *Meta, args []string) int {
	f := m.newFlags("server join", "[options] ADDRESS...")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) == 0 {
		return m.wrongArgs(f, "at least one address")
	}
	var out struct {
		NumJoined int    `json:"num_joined"`
		Error     string `json:"error"`
	}
	if _, err := m.client(f).do(http.MethodPut, "/v1/agent/join", url.Values{"address": pos}, nil, &out); err != nil {
		return m.errorf("joining: %v", err)
	}
	if out.NumJoined == 0 {
		return m.errorf("joining: %s", out.Error)
	}
	fmt.Fprintf(m.Out, "Joined %d servers successfully\n", out.NumJoined)
	return exitOK
}

// serverForceLeaveCommand is `server force-leave NAME`: a failed server is
// marked left, so the leader drops it from raft at once.
func serverForceLeaveCommand(m *Meta, args []string) int {
	f := m.newFlags("server force-leave", "[options] NAME")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return m.wrongArgs(f, "one server name")
	}
	if _, err := m.client(f).do(http.MethodPut, "/v1/agent/force-leave", url.Values{"node": pos}, nil, nil); err != nil {
		return m.errorf("forcing %s to leave: %v", pos[0], err)
	}
	return exitOK
}
