package state

import (
	"testing"

	"github.com/nomadish/nomadish/structs"
)

// A system job is running until stopped, even with no allocation (it waits
// for nodes), as in Nomad; a sysbatch job is dead once its allocs finish.
func TestJobStatusSystem(t *testing.T) {
	sys := &structs.Job{ID: "s", Type: structs.JobTypeSystem}
	if got := JobStatus(sys, nil, nil); got != structs.JobStatusRunning {
		t.Fatalf("system job without allocs: %q", got)
	}
	sys.Stop = true
	if got := JobStatus(sys, nil, nil); got != structs.JobStatusDead {
		t.Fatalf("stopped system job: %q", got)
	}
	sb := &structs.Job{ID: "b", Type: structs.JobTypeSysBatch}
	done := []*structs.Allocation{{DesiredStatus: structs.AllocDesiredStatusRun, ClientStatus: structs.AllocClientStatusComplete}}
	if got := JobStatus(sb, done, nil); got != structs.JobStatusDead {
		t.Fatalf("finished sysbatch job: %q", got)
	}
}
