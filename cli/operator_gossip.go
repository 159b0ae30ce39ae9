package cli

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/http"
	"sort"
	"strconv"
)

// keyringResponse is GET /v1/agent/keyring/list (api.KeyringResponse).
type keyringResponse struct {
	Messages map[string]string
	Keys     map[string]int
	NumNodes int
}

// operatorGossipKeyringCommand is `operator gossip keyring list | install
// KEY | use KEY | remove KEY | generate`: the servers' serf keyring. generate
// prints a new 32-byte key without asking any agent.
func operatorGossipKeyringCommand(m *Meta, args []string) int {
	f := m.newFlags("operator gossip keyring", "[options] list | install KEY | use KEY | remove KEY | generate")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) == 0 {
		return m.wrongArgs(f, "an operation")
	}
	op := pos[0]
	switch {
	case op == "generate" && len(pos) == 1:
		key := make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return m.errorf("generating a key: %v", err)
		}
		fmt.Fprintln(m.Out, base64.StdEncoding.EncodeToString(key))
		return exitOK
	case op == "list" && len(pos) == 1:
		var out keyringResponse
		if _, err := m.client(f).get("/v1/agent/keyring/list", nil, &out); err != nil {
			return m.errorf("listing gossip keys: %v", err)
		}
		keys := make([]string, 0, len(out.Keys))
		for k := range out.Keys {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		rows := [][]string{{"Key", "Servers"}}
		for _, k := range keys {
			rows = append(rows, []string{k, strconv.Itoa(out.Keys[k]) + "/" + strconv.Itoa(out.NumNodes)})
		}
		table(m.Out, rows)
		return exitOK
	case (op == "install" || op == "use" || op == "remove") && len(pos) == 2:
		body := map[string]string{"Key": pos[1]}
		if _, err := m.client(f).do(http.MethodPut, "/v1/agent/keyring/"+op, nil, body, nil); err != nil {
			return m.errorf("%s gossip key: %v", op, err)
		}
		fmt.Fprintf(m.Out, "Gossip key %s: done on every server\n", op)
		return exitOK
	}
	return m.wrongArgs(f, "list, install KEY, use KEY, remove KEY or generate")
}
