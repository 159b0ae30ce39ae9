package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	"github.com/nomadish/nomadish/structs"
)

// keyringKeys is GET /v1/operator/keyring/keys.
func (c *apiClient) keyringKeys() ([]*structs.RootKeyMeta, error) {
	var out []*structs.RootKeyMeta
	_, err := c.get("/v1/operator/keyring/keys", nil, &out)
	return out, err
}

// keyringRotate is PUT /v1/operator/keyring/rotate (?full=true).
func (c *apiClient) keyringRotate(full bool) (*structs.RootKeyMeta, error) {
	var q url.Values
	if full {
		q = url.Values{"full": {"true"}}
	}
	var out struct{ Key *structs.RootKeyMeta }
	_, err := c.do(http.MethodPut, "/v1/operator/keyring/rotate", q, nil, &out)
	return out.Key, err
}

func printRootKeys(m *Meta, keys []*structs.RootKeyMeta, verbose bool) {
	rows := [][]string{{"Key", "State", "Create Time"}}
	for _, k := range keys {
		rows = append(rows, []string{shortID(k.KeyID, verbose), k.State, formatTime(unixNano(k.CreateTime))})
	}
	table(m.Out, rows)
}

// operatorRootKeyringListCommand is `operator root keyring list [-json]
// [-verbose]`.
func operatorRootKeyringListCommand(m *Meta, args []string) int {
	f := m.newFlags("operator root keyring list", "[options]")
	asJSON := f.Bool("json", false, "print the keys as JSON")
	verbose := f.Bool("verbose", false, "print full key IDs")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		return m.wrongArgs(f, "no arguments")
	}
	keys, err := m.client(f).keyringKeys()
	if err != nil {
		return m.errorf("querying the root keyring: %v", err)
	}
	if *asJSON {
		b, _ := json.MarshalIndent(keys, "", "  ")
		fmt.Fprintln(m.Out, string(b))
		return exitOK
	}
	printRootKeys(m, keys, *verbose)
	return exitOK
}

// operatorRootKeyringRotateCommand is `operator root keyring rotate
// [-full] [-verbose]`: a new active root key; with -full every variable is
// re-encrypted with it (older keys stay to decrypt what was not).
func operatorRootKeyringRotateCommand(m *Meta, args []string) int {
	f := m.newFlags("operator root keyring rotate", "[options]")
	full := f.Bool("full", false, "re-encrypt every variable with the new key")
	verbose := f.Bool("verbose", false, "print the full key ID")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		return m.wrongArgs(f, "no arguments")
	}
	k, err := m.client(f).keyringRotate(*full)
	if err != nil {
		return m.errorf("rotating the root key: %v", err)
	}
	printRootKeys(m, []*structs.RootKeyMeta{k}, *verbose)
	return exitOK
}
