package structs

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// failedAt returns a failed alloc whose tracker has events with the delays
// given, each rescheduled `gap` after the previous one, failing `gap` after
// the last.
func failedAt(gap time.Duration, delays ...time.Duration) *Allocation {
	a := &Allocation{ID: "a", NodeID: "n", ClientStatus: AllocClientStatusFailed, DesiredStatus: AllocDesiredStatusRun}
	at := t0
	if len(delays) > 0 {
		a.RescheduleTracker = &RescheduleTracker{}
	}
	for _, d := range delays {
		at = at.Add(gap)
		a.RescheduleTracker.Events = append(a.RescheduleTracker.Events, &RescheduleEvent{RescheduleTime: at.UnixNano(), Delay: d})
	}
	a.ModifyTime = at.Add(gap).UnixNano()
	return a
}

func TestNextDelay(t *testing.T) {
	s := time.Second
	exp := &ReschedulePolicy{Delay: 30 * s, DelayFunction: RescheduleDelayExponential, MaxDelay: 120 * s, Unlimited: true}
	fib := &ReschedulePolicy{Delay: 5 * s, DelayFunction: RescheduleDelayFibonacci, MaxDelay: 20 * s, Unlimited: true}
	con := &ReschedulePolicy{Delay: 5 * s, DelayFunction: RescheduleDelayConstant, Attempts: 3, Interval: time.Hour}
	for _, tc := range []struct {
		name   string
		policy *ReschedulePolicy
		alloc  *Allocation
		want   time.Duration
	}{
		{"first", exp, failedAt(s), 30 * s},
		{"exponential doubles", exp, failedAt(s, 30*s), 60 * s},
		{"exponential doubles again", exp, failedAt(s, 30*s, 60*s), 120 * s},
		{"exponential capped", exp, failedAt(s, 30*s, 60*s, 120*s), 120 * s},
		{"capped, then a long healthy run resets", exp, failedAt(time.Hour, 30*s, 60*s, 120*s), 30 * s},
		{"fibonacci 5,5 -> 10", fib, failedAt(s, 5*s, 5*s), 10 * s},
		{"fibonacci 5,10 -> 15", fib, failedAt(s, 5*s, 5*s, 10*s), 15 * s},
		{"fibonacci capped", fib, failedAt(s, 5*s, 10*s, 15*s), 20 * s},
		{"fibonacci second is the delay", fib, failedAt(s, 5*s), 5 * s},
		{"constant", con, failedAt(s, 5*s, 5*s), 5 * s},
		{"no policy", nil, failedAt(s), 0},
	} {
		if got := tc.alloc.NextDelay(tc.policy); got != tc.want {
			t.Errorf("%s: NextDelay = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestRescheduleEligibleAndTime(t *testing.T) {
	batch := DefaultBatchReschedulePolicy() // 1 attempt in 24h
	a := failedAt(time.Minute)
	at, ok := a.NextRescheduleTime(batch)
	if !ok || !at.Equal(t0.Add(time.Minute+5*time.Second)) {
		t.Fatalf("first failure: %v %v", at, ok)
	}
	if _, ok := failedAt(time.Minute, 5*time.Second).NextRescheduleTime(batch); ok {
		t.Fatal("second failure within the interval is eligible")
	}
	if _, ok := failedAt(25*time.Hour, 5*time.Second).NextRescheduleTime(batch); !ok {
		t.Fatal("a failure after the interval is not eligible")
	}
	never := &ReschedulePolicy{DelayFunction: RescheduleDelayConstant}
	if _, ok := a.NextRescheduleTime(never); ok {
		t.Fatal("attempts = 0 is eligible")
	}
	if _, ok := failedAt(time.Second, 30*time.Second, 30*time.Second, 30*time.Second).NextRescheduleTime(DefaultServiceReschedulePolicy()); !ok {
		t.Fatal("unlimited is not eligible")
	}
	// The fail time is the latest task FinishedAt.
	a.TaskStates = map[string]*TaskState{"x": {FinishedAt: t0.Add(time.Hour)}, "y": {FinishedAt: t0.Add(2 * time.Hour)}, "z": {}}
	if got := a.FailTime(); !got.Equal(t0.Add(2 * time.Hour)) {
		t.Fatalf("FailTime = %v", got)
	}
}

func TestNextRescheduleTracker(t *testing.T) {
	now := t0.Add(48 * time.Hour)
	limited := &ReschedulePolicy{Attempts: 2, Interval: 24 * time.Hour, Delay: 5 * time.Second, DelayFunction: RescheduleDelayConstant}
	a := failedAt(time.Second, 5*time.Second)                                     // event at t0+1s, out of the interval at now
	a.RescheduleTracker.Events[0].RescheduleTime = now.Add(-time.Hour).UnixNano() // in it
	old := &RescheduleEvent{RescheduleTime: t0.UnixNano(), Delay: 5 * time.Second}
	a.RescheduleTracker.Events = append([]*RescheduleEvent{old}, a.RescheduleTracker.Events...)
	rt := a.NextRescheduleTracker(limited, now)
	if len(rt.Events) != 2 || rt.Events[1].PrevAllocID != "a" || rt.Events[1].PrevNodeID != "n" ||
		rt.Events[1].RescheduleTime != now.UnixNano() || rt.Events[1].Delay != 5*time.Second {
		t.Fatalf("events %+v %+v", rt.Events[0], rt.Events[len(rt.Events)-1])
	}
	var ds []time.Duration
	for range 8 {
		ds = append(ds, 30*time.Second)
	}
	rt = failedAt(time.Second, ds...).NextRescheduleTracker(DefaultServiceReschedulePolicy(), now)
	if len(rt.Events) != maxPastRescheduleEvents+1 {
		t.Fatalf("unlimited kept %d events", len(rt.Events))
	}
}

func TestReschedulePolicyCanonicalizeAndValidate(t *testing.T) {
	job := func(typ string, jobLevel, group *ReschedulePolicy) *Job {
		j := &Job{ID: "j", Type: typ, Reschedule: jobLevel, TaskGroups: []*TaskGroup{{
			Name: "g", ReschedulePolicy: group, Tasks: []*Task{{Name: "t", Driver: "raw_exec"}},
		}}}
		j.Canonicalize()
		return j
	}
	if got := job(JobTypeService, nil, nil).TaskGroups[0].ReschedulePolicy; *got != *DefaultServiceReschedulePolicy() {
		t.Errorf("service default %+v", got)
	}
	if got := job(JobTypeBatch, nil, nil).TaskGroups[0].ReschedulePolicy; *got != *DefaultBatchReschedulePolicy() {
		t.Errorf("batch default %+v", got)
	}
	if got := job(JobTypeSystem, nil, nil).TaskGroups[0].ReschedulePolicy; got != nil {
		t.Errorf("system default %+v", got)
	}
	jl := &ReschedulePolicy{Delay: 2 * time.Second, DelayFunction: RescheduleDelayConstant, Unlimited: true}
	if got := job(JobTypeService, jl, nil).TaskGroups[0].ReschedulePolicy; *got != *jl || got == jl {
		t.Errorf("job-level inherited %+v", got)
	}
	// An API client's partial policy: the delay function and ceiling are filled.
	got := job(JobTypeService, nil, &ReschedulePolicy{Delay: 10 * time.Second, Unlimited: true}).TaskGroups[0].ReschedulePolicy
	if got.DelayFunction != RescheduleDelayExponential || got.MaxDelay != time.Hour {
		t.Errorf("partial %+v", got)
	}
	for _, tc := range []struct {
		p    ReschedulePolicy
		want string // "" = valid
	}{
		{ReschedulePolicy{DelayFunction: "linear"}, `delay_function "linear" must be one of`},
		{ReschedulePolicy{Attempts: -1, DelayFunction: "constant"}, "can't be negative"},
		{ReschedulePolicy{Attempts: 1, Unlimited: true, Interval: time.Hour, Delay: time.Minute, DelayFunction: "constant"}, "ambiguous"},
		{ReschedulePolicy{Attempts: 1, Delay: time.Minute, DelayFunction: "constant"}, "interval must be set"},
		{ReschedulePolicy{Unlimited: true, Delay: time.Millisecond, DelayFunction: "constant"}, "less than the minimum"},
		{ReschedulePolicy{Unlimited: true, Delay: time.Minute, MaxDelay: time.Second, DelayFunction: "exponential"}, "max_delay 1s is less than delay 1m0s"},
		{ReschedulePolicy{DelayFunction: "constant"}, ""}, // disabled: the rest does not matter
		{*DefaultServiceReschedulePolicy(), ""},
		{*DefaultBatchReschedulePolicy(), ""},
	} {
		j := &Job{ID: "j", Name: "j", Type: JobTypeService, Priority: 50, TaskGroups: []*TaskGroup{{
			Name: "g", Count: 1, ReschedulePolicy: &tc.p, Tasks: []*Task{{Name: "t", Driver: "raw_exec"}},
		}}}
		err := j.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%+v: %v", tc.p, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%+v: error %v, want %q", tc.p, err, tc.want)
		case tc.want != "" && !strings.Contains(err.Error(), `group "g": reschedule: `):
			t.Errorf("error does not name the group: %v", err)
		}
	}
}

// The official API client reads and writes the same JSON.
func TestRescheduleAPIRoundTrip(t *testing.T) {
	j := &Job{ID: "j", Reschedule: DefaultBatchReschedulePolicy(), TaskGroups: []*TaskGroup{{Name: "g", ReschedulePolicy: DefaultServiceReschedulePolicy()}}}
	a := &Allocation{ID: "a", FollowupEvalID: "e", RescheduleTracker: &RescheduleTracker{Events: []*RescheduleEvent{{RescheduleTime: 7, PrevAllocID: "p", PrevNodeID: "n", Delay: time.Second}}}}
	var aj api.Job
	var aa api.Allocation
	roundTrip(t, j, &aj)
	roundTrip(t, a, &aa)
	rp := aj.TaskGroups[0].ReschedulePolicy
	if rp == nil || *rp.Delay != 30*time.Second || *rp.DelayFunction != "exponential" || *rp.MaxDelay != time.Hour || !*rp.Unlimited || *rp.Attempts != 0 {
		t.Errorf("api group policy %+v", rp)
	}
	if aj.Reschedule == nil || *aj.Reschedule.Attempts != 1 || *aj.Reschedule.Interval != 24*time.Hour {
		t.Errorf("api job policy %+v", aj.Reschedule)
	}
	ev := aa.RescheduleTracker.Events[0]
	if aa.FollowupEvalID != "e" || ev.RescheduleTime != 7 || ev.PrevAllocID != "p" || ev.PrevNodeID != "n" {
		t.Errorf("api tracker %+v", ev)
	}
	var back Job
	roundTrip(t, &aj, &back)
	if *back.TaskGroups[0].ReschedulePolicy != *DefaultServiceReschedulePolicy() || *back.Reschedule != *DefaultBatchReschedulePolicy() {
		t.Errorf("back %+v %+v", back.TaskGroups[0].ReschedulePolicy, back.Reschedule)
	}
}

func roundTrip(t *testing.T, in, out any) {
	t.Helper()
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatal(err)
	}
}
