package taskrunner

import (
	"errors"
	"testing"
	"time"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/structs"
)

func TestNextRestart(t *testing.T) {
	t0 := time.Unix(1_000_000, 0)
	fail := &structs.RestartPolicy{Attempts: 2, Interval: time.Minute, Delay: 5 * time.Second, Mode: structs.RestartPolicyModeFail}
	delay := &structs.RestartPolicy{Attempts: 1, Interval: time.Minute, Delay: 5 * time.Second, Mode: structs.RestartPolicyModeDelay}
	exit0 := &base.ExitResult{}
	exit1 := &base.ExitResult{ExitCode: 1}
	cases := []struct {
		name      string
		p         *structs.RestartPolicy
		jobType   string
		st        RestartState
		res       *base.ExitResult
		recov     bool
		now       time.Time
		restart   bool
		failed    bool
		wantDelay time.Duration
		wantCount int
	}{
		{"batch exit 0 done", fail, structs.JobTypeBatch, RestartState{}, exit0, false, t0, false, false, 0, 0},
		{"service exit 0 restarts", fail, structs.JobTypeService, RestartState{}, exit0, false, t0, true, false, 5 * time.Second, 1},
		{"batch exit 1 first", fail, structs.JobTypeBatch, RestartState{}, exit1, false, t0, true, false, 5 * time.Second, 1},
		{"second within", fail, structs.JobTypeBatch, RestartState{Count: 1, IntervalStart: t0}, exit1, false, t0.Add(10 * time.Second), true, false, 5 * time.Second, 2},
		{"third exceeds fail", fail, structs.JobTypeBatch, RestartState{Count: 2, IntervalStart: t0}, exit1, false, t0.Add(20 * time.Second), false, true, 0, 3},
		{"interval over resets", fail, structs.JobTypeBatch, RestartState{Count: 2, IntervalStart: t0}, exit1, false, t0.Add(time.Minute), true, false, 5 * time.Second, 1},
		{"signal is failure", fail, structs.JobTypeBatch, RestartState{}, &base.ExitResult{Signal: 9}, false, t0, true, false, 5 * time.Second, 1},
		{"driver error is failure", fail, structs.JobTypeBatch, RestartState{}, &base.ExitResult{Err: errors.New("x")}, false, t0, true, false, 5 * time.Second, 1},
		{"zero attempts fail", &structs.RestartPolicy{Mode: "fail", Interval: time.Minute}, structs.JobTypeService, RestartState{}, exit1, false, t0, false, true, 0, 1},
		{"delay mode waits out interval", delay, structs.JobTypeService, RestartState{Count: 1, IntervalStart: t0}, exit1, false, t0.Add(20 * time.Second), true, false, 40 * time.Second, 0},
		{"delay mode at least delay", delay, structs.JobTypeService, RestartState{Count: 1, IntervalStart: t0}, exit1, false, t0.Add(58 * time.Second), true, false, 5 * time.Second, 0},
		{"start error recoverable", fail, structs.JobTypeService, RestartState{}, nil, true, t0, true, false, 5 * time.Second, 1},
		{"start error unrecoverable", fail, structs.JobTypeService, RestartState{}, nil, false, t0, false, true, 0, 0},
		{"nil policy batch default", nil, structs.JobTypeBatch, RestartState{Count: 3, IntervalStart: t0}, exit1, false, t0.Add(time.Hour), false, true, 0, 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, st := NextRestart(c.p, c.jobType, c.st, c.res, c.recov, c.now)
			if d.Restart != c.restart || d.Failed != c.failed || d.Delay != c.wantDelay {
				t.Fatalf("decision = %+v, want restart=%v failed=%v delay=%v", d, c.restart, c.failed, c.wantDelay)
			}
			if st.Count != c.wantCount {
				t.Fatalf("count = %d, want %d", st.Count, c.wantCount)
			}
			if d.Reason == "" {
				t.Fatal("empty reason")
			}
		})
	}
}
