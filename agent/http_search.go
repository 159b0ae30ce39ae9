package agent

import (
	"net/http"

	"github.com/nomadish/nomadish/structs"
)

// searchBody is the body of POST /v1/search and /v1/search/fuzzy
// (api.SearchRequest, api.FuzzySearchRequest): the official client also
// sends its QueryOptions' fields, of which Namespace is read.
type searchBody struct {
	Prefix    string
	Text      string
	Context   string
	Namespace string
}

// searchRoutes registers the search endpoints (PUT as the official client
// sends them, POST as Nomad documents them). The Search RPCs check the
// token per context and leave out what it may not read.
func (s *httpServer) searchRoutes(h func(string, handlerFunc)) {
	for _, m := range []string{"PUT", "POST"} {
		h(m+" /v1/search", s.searchPrefix)
		h(m+" /v1/search/fuzzy", s.searchFuzzy)
	}
}

// searchQuery reads a search's body and options: the body's namespace
// wins over ?namespace=.
func (s *httpServer) searchQuery(r *http.Request) (searchBody, structs.QueryOptions, error) {
	var body searchBody
	q, err := s.parseQuery(r)
	if err != nil {
		return body, q, err
	}
	if err := decodeBody(r, &body); err != nil {
		return body, q, err
	}
	if body.Namespace != "" {
		q.Namespace = body.Namespace
	}
	if body.Context == "" {
		return body, q, badRequest("search context is required")
	}
	return body, q, nil
}

// searchPrefix serves PUT|POST /v1/search.
func (s *httpServer) searchPrefix(w http.ResponseWriter, r *http.Request) (any, error) {
	body, q, err := s.searchQuery(r)
	if err != nil {
		return nil, err
	}
	args := structs.SearchRequest{Prefix: body.Prefix, Context: body.Context, QueryOptions: q}
	var reply structs.SearchResponse
	if err := s.RPC.RPC(structs.SearchPrefixRPC, &args, &reply); err != nil {
		return nil, err
	}
	setMeta(w, &reply.QueryMeta)
	return reply, nil
}

// searchFuzzy serves PUT|POST /v1/search/fuzzy.
func (s *httpServer) searchFuzzy(w http.ResponseWriter, r *http.Request) (any, error) {
	body, q, err := s.searchQuery(r)
	if err != nil {
		return nil, err
	}
	args := structs.FuzzySearchRequest{Text: body.Text, Context: body.Context, QueryOptions: q}
	var reply structs.FuzzySearchResponse
	if err := s.RPC.RPC(structs.SearchFuzzyRPC, &args, &reply); err != nil {
		return nil, err
	}
	setMeta(w, &reply.QueryMeta)
	return reply, nil
}
