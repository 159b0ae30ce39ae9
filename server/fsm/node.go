package fsm

import "github.com/nomadish/nomadish/structs"

func (f *FSM) applyNodeRegister(buf []byte, index uint64) any {
	var req structs.NodeRegisterRequest
	decode(buf, &req, index)
	if err := f.State().UpsertNode(index, req.Node); err != nil {
		f.logger.Error("applying node register", "node", req.Node.ID, "error", err)
		return err
	}
	return nil
}

func (f *FSM) applyNodeDeregister(buf []byte, index uint64) any {
	var req structs.NodeSpecificRequest
	decode(buf, &req, index)
	if err := f.State().DeleteNode(index, req.NodeID); err != nil {
		f.logger.Error("applying node deregister", "node", req.NodeID, "error", err)
		return err
	}
	return nil
}

func (f *FSM) applyNodeUpdateStatus(buf []byte, index uint64) any {
	var req structs.NodeUpdateStatusRequest
	decode(buf, &req, index)
	if err := f.State().UpdateNodeStatus(index, req.NodeID, req.Status, req.UpdatedAt); err != nil {
		f.logger.Error("applying node status", "node", req.NodeID, "error", err)
		return err
	}
	return nil
}
