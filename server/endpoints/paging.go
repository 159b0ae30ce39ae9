package endpoints

import (
	"github.com/nomadish/nomadish/server/paginate"
	"github.com/nomadish/nomadish/structs"
)

// pageList picks the page a list query asks for (?filter, ?per_page,
// ?next_token, ?reverse: server/paginate) out of rows and records the next
// page's token in meta. A query asking for none of them gets rows back
// untouched, at no cost. A bad filter or token is a 400 naming it.
func pageList[T any](rows []T, order paginate.Order, key func(T) paginate.Key, q *structs.QueryOptions, meta *structs.QueryMeta) ([]T, error) {
	opts := paginate.Options{Filter: q.Filter, PerPage: q.PerPage, NextToken: q.NextToken, Reverse: q.Reverse}
	page, next, err := paginate.Page(rows, order, key, opts)
	if err != nil {
		return nil, structs.NewCodedError(structs.ErrCodeBadRequest, "%v", err)
	}
	meta.NextToken = next
	return page, nil
}

// The keys of the paged lists, as Nomad orders them: allocations,
// evaluations and deployments by create index, jobs by namespace and ID,
// nodes by ID.
func allocKey(a *structs.AllocListStub) paginate.Key {
	return paginate.Key{Index: a.CreateIndex, ID: a.ID}
}

func evalKey(e *structs.Evaluation) paginate.Key { return paginate.Key{Index: e.CreateIndex, ID: e.ID} }

func deploymentKey(d *structs.Deployment) paginate.Key {
	return paginate.Key{Index: d.CreateIndex, ID: d.ID}
}

func jobKey(j *structs.JobListStub) paginate.Key {
	return paginate.Key{Namespace: j.Namespace, ID: j.ID}
}

func nodeKey(n *structs.NodeListStub) paginate.Key { return paginate.Key{ID: n.ID} }
