package fsm

import "github.com/nomadish/nomadish/structs"

// applyNamespaceUpsert writes namespaces; the response is nil or an error.
func (f *FSM) applyNamespaceUpsert(buf []byte, index uint64) any {
	var req structs.NamespaceUpsertRequest
	decode(buf, &req, index)
	if err := f.State().UpsertNamespaces(index, req.Namespaces); err != nil {
		f.logger.Error("upserting namespaces", "error", err)
		return err
	}
	return nil
}

// applyNamespaceDelete deletes namespaces; a refusal (default, jobs left)
// is the coded error response and changes nothing.
func (f *FSM) applyNamespaceDelete(buf []byte, index uint64) any {
	var req structs.NamespaceDeleteRequest
	decode(buf, &req, index)
	if err := f.State().DeleteNamespaces(index, req.Namespaces); err != nil {
		return err
	}
	return nil
}

// applyNodePoolUpsert writes node pools; the response is nil or an error.
func (f *FSM) applyNodePoolUpsert(buf []byte, index uint64) any {
	var req structs.NodePoolUpsertRequest
	decode(buf, &req, index)
	if err := f.State().UpsertNodePools(index, req.NodePools); err != nil {
		return err
	}
	return nil
}

// applyNodePoolDelete deletes node pools; a refusal (built-in, in use) is
// the coded error response and changes nothing.
func (f *FSM) applyNodePoolDelete(buf []byte, index uint64) any {
	var req structs.NodePoolDeleteRequest
	decode(buf, &req, index)
	if err := f.State().DeleteNodePools(index, req.Names); err != nil {
		return err
	}
	return nil
}
