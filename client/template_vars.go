package client

import (
	"context"
	"time"

	"github.com/nomadish/nomadish/client/template"
	"github.com/nomadish/nomadish/structs"
)

// taskVars is the variable reader of one task's templates
// (template.VarReader) over the workload variable queries (variables.go).
type taskVars struct {
	c       *Client
	allocID string
	task    string
}

var _ template.VarReader = taskVars{}

// varsFor returns the variable reader of a task of allocID.
func (c *Client) varsFor(allocID, task string) template.VarReader {
	return taskVars{c: c, allocID: allocID, task: task}
}

// Var reads the variable at path; with waitIndex > 0 it blocks until the
// index moves past waitIndex (the server's own wait may end first: it
// asks again) or ctx ends.
func (v taskVars) Var(ctx context.Context, path string, waitIndex uint64) (*template.Var, uint64, error) {
	for {
		d, idx, err := v.c.ReadWorkloadVar(ctx, v.allocID, v.task, path, waitIndex)
		if err != nil {
			return nil, 0, err
		}
		if waitIndex == 0 || idx > waitIndex {
			return templateVar(d), idx, nil
		}
	}
}

// List lists the variables under prefix, blocking as Var.
func (v taskVars) List(ctx context.Context, prefix string, waitIndex uint64) ([]*template.Var, uint64, error) {
	for {
		ds, idx, err := v.c.ListWorkloadVars(ctx, v.allocID, v.task, prefix, waitIndex)
		if err != nil {
			return nil, 0, err
		}
		if waitIndex == 0 || idx > waitIndex {
			out := make([]*template.Var, 0, len(ds))
			for _, d := range ds {
				out = append(out, templateVar(d))
			}
			return out, idx, nil
		}
	}
}

// templateVar maps a decrypted variable to the template's view (nil: nil).
func templateVar(d *structs.VariableDecrypted) *template.Var {
	if d == nil {
		return nil
	}
	return &template.Var{
		Path: d.Path, Namespace: d.Namespace, Items: d.Items,
		CreateIndex: d.CreateIndex, ModifyIndex: d.ModifyIndex,
		CreateTime: time.Unix(0, d.CreateTime), ModifyTime: time.Unix(0, d.ModifyTime),
	}
}
