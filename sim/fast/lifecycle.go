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

// clientBatch is the most allocations one client-update write carries. A
// go-memdb write that modifies more radix nodes than its transaction tracks
// (8,192 watch channels, about 400 allocations here) notifies by walking the
// whole table (go-immutable-radix slowNotify): 25% of the CPU of a
// 1.5-million-allocation day when thousands of allocations start or finish
// at one instant. Clients report in batches anyway.
const clientBatch = 256

// clientUpdate writes allocs' client status, as Node.UpdateAlloc, in writes
// of at most clientBatch allocations.
func (s *Sim) clientUpdate(ids []string, status string) error {
	for len(ids) > 0 {
		n := min(len(ids), clientBatch)
		upd := make([]*structs.Allocation, 0, n)
		for _, id := range ids[:n] {
			upd = append(upd, &structs.Allocation{ID: id, ClientStatus: status, ModifyTime: s.clock().UnixNano()})
		}
		if err := s.store.UpdateAllocsFromClient(s.nextIndex(), upd, nil); err != nil {
			return err
		}
		ids = ids[n:]
	}
	return nil
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
