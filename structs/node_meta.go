package structs

// NodeMetaApplyRequest changes a client's dynamic node metadata (POST
// /v1/client/metadata, Nomad's api.NodeMetaApplyRequest): a nil value
// unsets the key (a static key too: the null is kept so it stays unset).
type NodeMetaApplyRequest struct {
	NodeID string
	Meta   map[string]*string
}

// NodeMetaResponse is a client's node metadata (Nomad's
// api.NodeMetaResponse): Meta is what the node has, Static the agent
// configuration's client.meta, Dynamic what was applied since (null:
// unset).
type NodeMetaResponse struct {
	Meta    map[string]string
	Dynamic map[string]*string
	Static  map[string]string
}
