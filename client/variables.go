package client

import (
	"context"
	"errors"

	"github.com/nomadish/nomadish/structs"
)

// Workload access to Nomad Variables: the templates of a task read the
// variables at nomad/jobs/<job>[/<group>[/<task>]] of its own allocation.
// The client asks the servers with its node's secret and names the
// allocation and task (Variables.WorkloadRead/WorkloadList); the servers
// check the allocation runs here, is not terminal and the path is the
// task's. Both calls may be made from any goroutine.

// ReadWorkloadVar reads the variable at path for task of allocID: nil and
// no error when absent. With waitIndex > 0 it is a blocking query that
// returns once the variable's index passes waitIndex (or the server's
// wait ends) or ctx ends (ctx's error). It returns the index to wait on
// next. A path outside the task's is a 403 coded error.
func (c *Client) ReadWorkloadVar(ctx context.Context, allocID, task, path string, waitIndex uint64) (*structs.VariableDecrypted, uint64, error) {
	var reply structs.VariablesWorkloadResponse
	if err := c.workloadVarRPC(ctx, structs.VariablesWorkloadReadRPC, allocID, task, path, "", waitIndex, &reply); err != nil {
		return nil, 0, err
	}
	return reply.Data, reply.Index, nil
}

// ListWorkloadVars lists, with their items, the variables under prefix
// that task of allocID may read, sorted by path; blocking as
// ReadWorkloadVar.
func (c *Client) ListWorkloadVars(ctx context.Context, allocID, task, prefix string, waitIndex uint64) ([]*structs.VariableDecrypted, uint64, error) {
	var reply structs.VariablesWorkloadResponse
	if err := c.workloadVarRPC(ctx, structs.VariablesWorkloadListRPC, allocID, task, "", prefix, waitIndex, &reply); err != nil {
		return nil, 0, err
	}
	return reply.List, reply.Index, nil
}

// workloadVarRPC sends one workload variables query; it returns when the
// server answers, ctx ends or the client shuts down (the abandoned call
// finishes in its own goroutine, writing into a reply nobody reads).
func (c *Client) workloadVarRPC(ctx context.Context, method, allocID, task, path, prefix string, waitIndex uint64, out *structs.VariablesWorkloadResponse) error {
	if allocID == "" || task == "" {
		return errors.New("client: workload variables need an allocation and a task")
	}
	args := &structs.VariablesWorkloadRequest{AllocID: allocID, Task: task, Path: path, QueryOptions: structs.QueryOptions{
		Region: c.cfg.Region, Prefix: prefix, MinQueryIndex: waitIndex, AuthToken: c.secret()}}
	reply := &structs.VariablesWorkloadResponse{}
	done := make(chan error, 1)
	go func() { done <- c.blockingRPC(method, args, reply) }()
	select {
	case err := <-done:
		if err != nil {
			return err
		}
		*out = *reply
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
