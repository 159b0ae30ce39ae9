package server

import (
	"context"
	"strings"
	"time"

	metrics "github.com/hashicorp/go-metrics"

	"github.com/nomadish/nomadish/server/broker"
	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// publishMetrics is a leader duty: every MetricsInterval (on the server's
// clock) it samples the leader's gauges, with Nomad's names, until ctx ends
// with leadership. Counters and timings are emitted where they happen
// (rpcserver, planapply, worker); these are the values that only exist as
// a state to look at.
func (s *Server) publishMetrics(ctx context.Context) {
	tick := make(chan struct{}, 1)
	// recent holds the state index of the last deadJobWindow's rounds,
	// oldest first: a job that died after recent[0] is still published.
	keep := int(deadJobWindow/s.cfg.MetricsInterval) + 1
	recent := make([]uint64, 0, keep)
	var nextSummaries time.Time // job summaries skip the rounds before it
	for {
		t := s.cfg.Clock.AfterFunc(s.cfg.MetricsInterval, func() {
			select {
			case tick <- struct{}{}:
			default:
			}
		})
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-tick:
		}
		s.publishLeaderGauges()
		snap := s.State().Snapshot()
		idx, err := snap.LatestIndex(nil)
		if err == nil {
			if len(recent) == keep {
				recent = append(recent[:0], recent[1:]...)
			}
			recent = append(recent, idx)
			if now := s.cfg.Clock.Now(); !now.Before(nextSummaries) {
				err = publishJobSummaries(snap, recent[0], s.cfg.DisableDispatchedJobSummaryMetrics)
				nextSummaries = nextSummaryRound(now, s.cfg.Clock.Now())
			}
		}
		if err != nil {
			s.logger.Warn("publishing job summary metrics", "error", err)
		}
	}
}

// deadJobWindow is how long a dead job's summary is still published.
const deadJobWindow = time.Minute

// summaryPace bounds the leader's time in publishJobSummaries to about a
// tenth of its time: a round that took d skips the rounds of the next
// summaryPace*d. It reads every live job's allocations and evaluations, so
// with tens of thousands of jobs pending a round takes a good part of a
// second, and at every collection_interval it took a core from the
// scheduler and the plan applier (found by tools/gcbench). On a small
// cluster a round takes microseconds and none is skipped.
const summaryPace = 10

// nextSummaryRound is when the job summaries may run again after a round
// that started at start and ended at end.
func nextSummaryRound(start, end time.Time) time.Time {
	return start.Add(summaryPace * end.Sub(start))
}

// publishLeaderGauges emits the broker, blocked evals, plan queue and
// heartbeat gauges.
func (s *Server) publishLeaderGauges() {
	publishBrokerStats(s.broker.Stats())
	metrics.SetGauge([]string{"nomad", "blocked_evals", "total_blocked"}, float32(s.blocked.Stats().TotalBlocked))
	metrics.SetGauge([]string{"nomad", "plan", "queue_depth"}, float32(s.planner.QueueDepth()))
	metrics.SetGauge([]string{"nomad", "heartbeat", "active"}, float32(s.heartbeats.Tracked()))
}

// publishBrokerStats emits nomad.nomad.broker.*: Nomad's totals
// (total_pending is what waits behind another eval of its job, as Nomad's,
// also kept under its older name total_blocked; total_waiting what waits
// for a delay: a nack's redelivery or a WaitUntil), Nomad's per-scheduler
// <type>_ready and <type>_unacked, and the same per scheduler as
// ready/unacked/pending with a "type" label.
func publishBrokerStats(st broker.BrokerStats) {
	g := func(name string, v int) { metrics.SetGauge([]string{"nomad", "broker", name}, float32(v)) }
	g("total_ready", st.TotalReady)
	g("total_unacked", st.TotalUnacked)
	g("total_blocked", st.TotalBlocked)
	g("total_pending", st.TotalBlocked)
	g("total_waiting", st.TotalWaiting+st.TotalDelayed)
	for typ, ss := range st.ByScheduler {
		name := strings.ReplaceAll(typ, "-", "_")
		g(name+"_ready", ss.Ready)
		g(name+"_unacked", ss.Unacked)
		l := []metrics.Label{{Name: "type", Value: typ}}
		metrics.SetGaugeWithLabels([]string{"nomad", "broker", "ready"}, float32(ss.Ready), l)
		metrics.SetGaugeWithLabels([]string{"nomad", "broker", "unacked"}, float32(ss.Unacked), l)
		metrics.SetGaugeWithLabels([]string{"nomad", "broker", "pending"}, float32(ss.Blocked), l)
	}
}

// publishJobSummaries emits nomad.nomad.job_summary.* per job and group
// (labels job, task_group, namespace): allocations by client status,
// counted from the snapshot, and queued, what the job's blocked evals
// could not place. Periodic and parameterized parents have no allocations
// of their own and are skipped, as Nomad's. A dead job is published only
// while its death is recent (its status changed after index deadSince: the
// status change sets its ModifyIndex), not Nomad's choice: a cluster that
// ran 100,000 batch jobs would otherwise pay seven gauges per group per job
// every interval until GC; its final counts are published for
// deadJobWindow, then its series expire from the sinks. skipDispatched
// leaves dispatched jobs out (Nomad's disable_dispatched_job_summary_metrics).
func publishJobSummaries(snap *state.StateSnapshot, deadSince uint64, skipDispatched bool) error {
	jobs, err := snap.Jobs(nil, "")
	if err != nil {
		return err
	}
	for _, j := range jobs {
		if j.IsPeriodic() || j.IsParameterized() || (skipDispatched && j.Dispatched) ||
			(j.Status == structs.JobStatusDead && j.ModifyIndex <= deadSince) {
			continue
		}
		allocs, err := snap.AllocsByJob(nil, j.Namespace, j.ID)
		if err != nil {
			return err
		}
		sum := structs.NewJobSummary(j)
		for _, a := range allocs {
			sum.Count(a.TaskGroup, a.ClientStatus)
		}
		evals, err := snap.EvalsByJob(nil, j.Namespace, j.ID)
		if err != nil {
			return err
		}
		for _, e := range evals {
			if e.Status != structs.EvalStatusBlocked {
				continue
			}
			for tg, n := range e.QueuedAllocations {
				if row, ok := sum.Summary[tg]; ok {
					row.Queued += n
					sum.Summary[tg] = row
				}
			}
		}
		for tg, row := range sum.Summary {
			l := []metrics.Label{{Name: "job", Value: j.ID}, {Name: "task_group", Value: tg}, {Name: "namespace", Value: j.Namespace}}
			for _, v := range []struct {
				name string
				n    int
			}{{"queued", row.Queued}, {"complete", row.Complete}, {"failed", row.Failed}, {"running", row.Running}, {"starting", row.Starting}, {"lost", row.Lost}, {"unknown", row.Unknown}} {
				metrics.SetGaugeWithLabels([]string{"nomad", "job_summary", v.name}, float32(v.n), l)
			}
		}
	}
	return nil
}
