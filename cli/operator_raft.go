package cli

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/nomadish/nomadish/structs"
)

// raftConfiguration is GET /v1/operator/raft/configuration (?stale with
// stale: this agent's view, with no leader needed).
func (c *apiClient) raftConfiguration(stale bool) (*structs.RaftConfigurationResponse, error) {
	q := url.Values{}
	if stale {
		q.Set("stale", "")
	}
	var out structs.RaftConfigurationResponse
	if _, err := c.get("/v1/operator/raft/configuration", q, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// removeRaftPeer is DELETE /v1/operator/raft/peer?<key>=<val>, key being
// "id" or "address".
func (c *apiClient) removeRaftPeer(key, val string) error {
	_, err := c.do(http.MethodDelete, "/v1/operator/raft/peer", url.Values{key: {val}}, nil, nil)
	return err
}

// operatorRaftListPeersCommand is `operator raft list-peers [-stale]`: one
// row per raft server, as Nomad prints them.
func operatorRaftListPeersCommand(m *Meta, args []string) int {
	f := m.newFlags("operator raft list-peers", "[options]")
	stale := f.Bool("stale", false, "answer from the agent's own view, without a leader")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		return m.wrongArgs(f, "no arguments")
	}
	conf, err := m.client(f).raftConfiguration(*stale)
	if err != nil {
		return m.errorf("querying the raft configuration: %v", err)
	}
	rows := [][]string{{"Node", "ID", "Address", "State", "Voter", "RaftProtocol"}}
	for _, s := range conf.Servers {
		state := "follower"
		if s.Leader {
			state = "leader"
		}
		rows = append(rows, []string{s.Node, s.ID, s.Address, state, strconv.FormatBool(s.Voter), s.RaftProtocol})
	}
	table(m.Out, rows)
	return exitOK
}

// operatorRaftRemovePeerCommand is `operator raft remove-peer -peer-id=ID`
// or `-peer-address=IP:PORT` (exactly one).
func operatorRaftRemovePeerCommand(m *Meta, args []string) int {
	f := m.newFlags("operator raft remove-peer", "[options]")
	id := f.String("peer-id", "", "the raft ID of the server to remove")
	addr := f.String("peer-address", "", "the raft address (IP:port) of the server to remove")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 0 || (*id == "") == (*addr == "") {
		return m.wrongArgs(f, "exactly one of -peer-id or -peer-address")
	}
	key, val := "id", *id
	if *addr != "" {
		key, val = "address", *addr
	}
	if err := m.client(f).removeRaftPeer(key, val); err != nil {
		return m.errorf("removing the raft peer: %v", err)
	}
	fmt.Fprintf(m.Out, "Removed peer with %s %q\n", key, val)
	return exitOK
}
