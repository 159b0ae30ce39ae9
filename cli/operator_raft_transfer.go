package cli

import (
	"fmt"
	"net/http"
	"net/url"
)

// operatorRaftTransferLeadershipCommand is `operator raft
// transfer-leadership [-peer-address A | -peer-id I]`: PUT
// /v1/operator/raft/transfer-leadership; with neither flag raft picks the
// voter.
func operatorRaftTransferLeadershipCommand(m *Meta, args []string) int {
	f := m.newFlags("operator raft transfer-leadership", "[options]")
	id := f.String("peer-id", "", "the raft ID of the server to hand leadership to")
	addr := f.String("peer-address", "", "the raft address (IP:port) of the server to hand leadership to")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 0 || (*id != "" && *addr != "") {
		return m.wrongArgs(f, "at most one of -peer-id or -peer-address")
	}
	q := url.Values{}
	what := "a peer raft chooses"
	switch {
	case *id != "":
		q.Set("id", *id)
		what = fmt.Sprintf("peer with id %q", *id)
	case *addr != "":
		q.Set("address", *addr)
		what = fmt.Sprintf("peer with address %q", *addr)
	}
	if _, err := m.client(f).do(http.MethodPut, "/v1/operator/raft/transfer-leadership", q, nil, nil); err != nil {
		return m.errorf("transferring raft leadership: %v", err)
	}
	fmt.Fprintf(m.Out, "Transferred leadership to %s\n", what)
	return exitOK
}
