package agent

import (
	"net/http"
	"strconv"

	"github.com/nomadish/nomadish/structs"
)

// parsePaging reads the paging and filtering parameters of the lists that
// support them (Nomad's filter, per_page, next_token, reverse; the server
// pages: server/paginate). A per_page that is not a number, or negative, is
// a 400; so is a reverse that is not a boolean.
func parsePaging(r *http.Request, opts *structs.QueryOptions) error {
	q := r.URL.Query()
	opts.Filter = q.Get("filter")
	opts.NextToken = q.Get("next_token")
	if v := q.Get("per_page"); v != "" {
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil || n < 0 {
			return badRequest("Invalid per_page %q: want a number of rows, 0 or more", v)
		}
		opts.PerPage = int32(n)
	}
	rev, err := parseBool(r, "reverse")
	if err != nil {
		return err
	}
	opts.Reverse = rev
	return nil
}

// paged says whether a list query asks for a page or a filter: its answer
// is its own, not one shared by every reader of the list (http_shared.go).
func paged(q structs.QueryOptions) bool {
	return q.Filter != "" || q.PerPage > 0 || q.NextToken != "" || q.Reverse
}

// unpaged is q without paging and filtering, for a handler that reads a
// whole list to pick its own answer out of it.
func unpaged(q structs.QueryOptions) structs.QueryOptions {
	q.Filter, q.PerPage, q.NextToken, q.Reverse = "", 0, "", false
	return q
}
