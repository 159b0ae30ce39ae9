package endpoints

import (
	"fmt"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// keptSubmission returns the submission Job.Register stores: sub, or nil
// with a warning when its source is over max bytes (0: the default), as
// Nomad does (the job is registered, its source is not kept).
func keptSubmission(sub *structs.JobSubmission, max int) (*structs.JobSubmission, string) {
	if sub == nil {
		return nil, ""
	}
	if max <= 0 {
		max = structs.DefaultJobMaxSourceSize
	}
	if len(sub.Source) > max {
		return nil, fmt.Sprintf("job source size of %d bytes exceeds maximum of %d bytes and will be discarded", len(sub.Source), max)
	}
	return sub.Copy(), ""
}

// GetJobSubmission reads the source one version of a job was submitted as
// (nil Submission when none is kept); read-job; blocking.
func (e *Job) GetJobSubmission(args *structs.JobSubmissionRequest, reply *structs.JobSubmissionResponse) error {
	ns := namespaceOf(args.Namespace)
	if err := e.d.allowNamespaceOp(args.AuthToken, ns, capReadJob); err != nil {
		return err
	}
	return e.d.blockingRPC(&args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateSnapshot) (uint64, error) {
		sub, err := st.JobSubmission(ws, ns, args.JobID, args.Version)
		if err != nil {
			return 0, err
		}
		reply.Submission = sub
		return st.Index(state.TableJobSubmissions)
	})
}
