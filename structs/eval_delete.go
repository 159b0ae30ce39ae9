package structs

// EvalDeleteRPC deletes evaluations (DELETE /v1/evaluations).
const EvalDeleteRPC = "Eval.Delete"

// EvalDeleteRequest is Nomad's api.EvalDeleteRequest: the evaluations to
// delete, by ID or by a go-bexpr filter over them (one of the two).
type EvalDeleteRequest struct {
	EvalIDs []string
	Filter  string
	WriteRequest
}

// EvalDeleteResponse is Nomad's api.EvalDeleteResponse: how many were
// deleted.
type EvalDeleteResponse struct {
	Count int
	WriteMeta
}
