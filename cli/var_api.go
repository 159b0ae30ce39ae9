package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/nomadish/nomadish/internal/hclutil"
	"github.com/nomadish/nomadish/structs"
)

// errVarNotFound is a read of an absent variable (Nomad's message).
var errVarNotFound = errors.New("variable not found")

// casConflict is a 409 answer: the variable the server holds.
type casConflict struct {
	check uint64
	cur   *structs.VariableDecrypted
}

func (e *casConflict) Error() string {
	return fmt.Sprintf("cas conflict: expected ModifyIndex %d; found %d", e.check, e.cur.ModifyIndex)
}

// asConflict turns a 409 APIError into a *casConflict.
func asConflict(err error, check uint64) error {
	ae, ok := err.(*APIError)
	if !ok || ae.Status != http.StatusConflict {
		return err
	}
	var cur structs.VariableDecrypted
	if json.Unmarshal([]byte(ae.Body), &cur) != nil {
		return err
	}
	return &casConflict{check: check, cur: &cur}
}

func varURL(path string) string { return "/v1/var/" + strings.Trim(path, "/ ") }

// varRead is GET /v1/var/:path (errVarNotFound when absent).
func (c *apiClient) varRead(path string) (*structs.VariableDecrypted, error) {
	var out structs.VariableDecrypted
	if _, err := c.get(varURL(path), nil, &out); err != nil {
		if isNotFound(err) {
			return nil, errVarNotFound
		}
		return nil, err
	}
	return &out, nil
}

// varPut is PUT /v1/var/:path with op the query (nil: a plain set; e.g.
// cas=N, lock-acquire); a 409 is a *casConflict.
func (c *apiClient) varPut(v *structs.VariableDecrypted, q url.Values) (*structs.VariableDecrypted, error) {
	var out structs.VariableDecrypted
	if _, err := c.do(http.MethodPut, varURL(v.Path), q, v, &out); err != nil {
		return nil, asConflict(err, v.ModifyIndex)
	}
	return &out, nil
}

// varDelete is DELETE /v1/var/:path (cas >= 0: ?cas=); a 409 is a
// *casConflict.
func (c *apiClient) varDelete(path string, cas int64) error {
	var q url.Values
	if cas >= 0 {
		q = url.Values{"cas": {strconv.FormatInt(cas, 10)}}
	}
	if _, err := c.do(http.MethodDelete, varURL(path), q, nil, nil); err != nil {
		return asConflict(err, uint64(max(cas, 0)))
	}
	return nil
}

// varList is GET /v1/vars?prefix=.
func (c *apiClient) varList(prefix string) ([]*structs.VariableMetadata, error) {
	var out []*structs.VariableMetadata
	_, err := c.get("/v1/vars", prefixQuery(prefix), &out)
	return out, err
}

// parseVarSpec reads a variable spec: the API's JSON (a name ending in
// .json, or content starting with "{") or Nomad's HCL (path, namespace,
// items { k = "v" }). Errors name file:line:col.
func parseVarSpec(name string, src []byte) (*structs.VariableDecrypted, error) {
	if strings.HasSuffix(name, ".json") || strings.HasPrefix(strings.TrimSpace(string(src)), "{") {
		var v structs.VariableDecrypted
		return &v, decodeSpecJSON(name, src, &v)
	}
	f, diags := hclsyntax.ParseConfig(src, name, hcl.Pos{Line: 1, Column: 1})
	if diags.HasErrors() {
		return nil, hclutil.DiagError(diags)
	}
	b, err := content(f.Body, []string{"path", "namespace"}, nil, hcl.BlockHeaderSchema{Type: "items"})
	if err != nil {
		return nil, err
	}
	v := &structs.VariableDecrypted{}
	if err := b.str("path", &v.Path); err != nil {
		return nil, err
	}
	if err := b.str("namespace", &v.Namespace); err != nil {
		return nil, err
	}
	items, err := decodeMeta(b.block("items"))
	if err != nil {
		return nil, err
	}
	v.Items = items
	return v, nil
}

// varSpecTemplate is what `var init` writes (Nomad's spec layout).
const varSpecTemplate = `# A variable path can be set in the specification file; it is used when
# writing the variable without a path on the command line.
# path = "path/to/variable"

# The namespace to write the variable in; the -namespace flag of
# "var put" overrides it.
# namespace = "default"

# The items map is the only required part of a variable specification. It
# holds the sensitive material Nomad encrypts and stores; the whole map is
# encrypted and decrypted as one unit.
#
# Keys may contain dots, but templates read keys without dots more easily.
items {
  key1 = "value 1"
  key2 = "value 2"
}
`

const varSpecTemplateJSON = `{
  "Path": "path/to/variable",
  "Namespace": "default",
  "Items": {
    "key1": "value 1",
    "key2": "value 2"
  }
}
`
