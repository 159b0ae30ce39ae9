package structs

// Search RPCs (Nomad's Search.PrefixSearch and Search.FuzzySearch).
const (
	SearchPrefixRPC = "Search.PrefixSearch"
	SearchFuzzyRPC  = "Search.FuzzySearch"
)

// Search contexts, Nomad's names (api/contexts): what a search looks in.
const (
	SearchAll         = "all"
	SearchAllocs      = "allocs"
	SearchDeployments = "deployment"
	SearchEvals       = "evals"
	SearchJobs        = "jobs"
	SearchNodes       = "nodes"
	SearchNodePools   = "node_pools"
	SearchNamespaces  = "namespaces"
	SearchVariables   = "vars"
	SearchServices    = "services"
	// Fuzzy search only: parts of jobs, each match scoped by its job.
	SearchGroups   = "groups"
	SearchTasks    = "tasks"
	SearchImages   = "images"
	SearchCommands = "commands"
)

// Search bounds, Nomad's defaults: a prefix search answers at most
// SearchPrefixLimit IDs per context, a fuzzy one SearchFuzzyLimit matches,
// for a text of at least SearchFuzzyMinTerm characters; more is marked in
// Truncations.
const (
	SearchPrefixLimit  = 20
	SearchFuzzyLimit   = 100
	SearchFuzzyMinTerm = 2
)

// SearchRequest is a prefix search (POST /v1/search): IDs (names for
// namespaces, node pools, services; paths for variables) starting with
// Prefix, in Context ("all": every context the token may read).
type SearchRequest struct {
	Prefix  string
	Context string
	QueryOptions
}

// SearchResponse maps each searched context to its matches and whether
// they were cut at SearchPrefixLimit.
type SearchResponse struct {
	Matches     map[string][]string
	Truncations map[string]bool
	QueryMeta
}

// FuzzySearchRequest is a fuzzy search (POST /v1/search/fuzzy): names
// containing Text (case-insensitive) in Context ("all": every one).
type FuzzySearchRequest struct {
	Text    string
	Context string
	QueryOptions
}

// FuzzyMatch is one match: the object's ID or name, and for a part of a
// job the IDs of its parents from the namespace down (["default", "web",
// "frontend"] for a task of group frontend).
type FuzzyMatch struct {
	ID    string
	Scope []string `json:",omitempty"`
}

// FuzzySearchResponse maps each searched context to its matches and
// whether they were cut at SearchFuzzyLimit.
type FuzzySearchResponse struct {
	Matches     map[string][]FuzzyMatch
	Truncations map[string]bool
	QueryMeta
}
