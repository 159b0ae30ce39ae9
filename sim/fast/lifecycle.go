package fast

import (
	"fmt"
	"time"

	"github.com/nomadish/nomadish/structs"
)

// stopJob stops a finite service job at the end of its duration, as its
// owner's `job stop` would.
func (s *Sim) stopJob(id string) error {
	job, err := s.store.Snapshot().ReadView().JobByID(structs.DefaultNamespaceName, id)
	if err != nil || job == nil || job.Stop {
		return err
	}
	job = job.Copy()
	job.Stop = true
	now := s.clock().UnixNano()
	e := &structs.Evaluation{ID: s.newEvalID(), Namespace: job.Namespace, Priority: job.Priority, Type: job.Type,
		TriggeredBy: structs.EvalTriggerJobDeregister, JobID: job.ID, Status: structs.EvalStatusPending,
		CreateTime: now, ModifyTime: now}
	if err := s.store.UpsertJob(s.nextIndex(), job, e); err != nil {
		return fmt.Errorf("stopping job %q: %w", id, err)
	}
	if j := s.jobs[id]; j != nil && !j.stopped {
		j.stopped = true
		s.pending -= max(0, j.count-j.placed)
	}
	return nil
}

// clientUpdate writes allocs' client status, as Node.UpdateAlloc.
func (s *Sim) clientUpdate(ids []string, status string) error {
	upd := make([]*structs.Allocation, 0, len(ids))
	for _, id := range ids {
		upd = append(upd, &structs.Allocation{ID: id, ClientStatus: status, ModifyTime: s.clock().UnixNano()})
	}
	if len(upd) == 0 {
		return nil
	}
	return s.store.UpdateAllocsFromClient(s.nextIndex(), upd, nil)
}

// startAllocs reports placed allocs running; batch allocs with a duration
// finish after it.
func (s *Sim) startAllocs(ids []string) error {
	live := s.liveOnly(ids)
	if err := s.clientUpdate(live, structs.AllocClientStatusRunning); err != nil {
		return err
	}
	byEnd := map[time.Duration][]string{}
	var ends []time.Duration
	for _, id := range live {
		if d := s.jobs[s.allocs[id].job].duration; d > 0 && s.jobs[s.allocs[id].job].typ == structs.JobTypeBatch {
			if _, ok := byEnd[d]; !ok {
				ends = append(ends, d)
			}
			byEnd[d] = append(byEnd[d], id)
		}
	}
	for _, d := range ends {
		s.schedule(s.now+d, &event{kind: evFinish, allocs: byEnd[d]})
	}
	return nil
}

// finishAllocs reports allocs complete, freeing their resources.
func (s *Sim) finishAllocs(ids []string) error {
	live := s.liveOnly(ids)
	if err := s.clientUpdate(live, structs.AllocClientStatusComplete); err != nil {
		return err
	}
	for _, id := range live {
		s.release(id)
	}
	return nil
}
