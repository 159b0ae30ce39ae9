package structs

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCheckDecodedNamesTheNullMember(t *testing.T) {
	job := func() *Job {
		return &Job{ID: "j", TaskGroups: []*TaskGroup{{Name: "g", Tasks: []*Task{{Name: "t", Resources: &Resources{CPU: 1}}}}}}
	}
	cases := []struct {
		name string
		req  any
		want string // "" = accepted
	}{
		{"whole job", &JobRegisterRequest{Job: job()}, ""},
		{"nil job (the endpoint decides)", &JobRegisterRequest{}, ""},
		{"nil request", (*JobRegisterRequest)(nil), ""},
		{"optional pointer fields", &JobRegisterRequest{Job: &Job{ID: "j", Update: nil, Reschedule: nil}}, ""},
		{"nil group", &JobRegisterRequest{Job: &Job{TaskGroups: []*TaskGroup{nil}}}, "Job.TaskGroups[0] is null"},
		{"nil task", func() any {
			j := job()
			j.TaskGroups[0].Tasks = append(j.TaskGroups[0].Tasks, nil)
			return &JobRegisterRequest{Job: j}
		}(), "Job.TaskGroups[0].Tasks[1] is null"},
		{"nil constraint", func() any {
			j := job()
			j.Constraints = []*Constraint{{LTarget: "a"}, nil}
			return &JobPlanRequest{Job: j}
		}(), "Job.Constraints[1] is null"},
		{"nil alloc", &AllocUpdateRequest{Alloc: []*Allocation{{ID: "a"}, nil}}, "Alloc[1] is null"},
		{"nil eval", &EvalUpdateRequest{Evals: []*Evaluation{nil}}, "Evals[0] is null"},
		{"nil map value", &JobPlanResponse{FailedTGAllocs: map[string]*AllocMetric{"web": nil}}, `FailedTGAllocs["web"] is null`},
		{"nil interface values are data", &JobRegisterRequest{Job: &Job{ID: "j", TaskGroups: []*TaskGroup{{Tasks: []*Task{{Config: map[string]any{"args": nil, "list": []any{nil}}}}}}}}, ""},
		{"strings only", &AllocsGetRequest{AllocIDs: []string{"", "x"}}, ""},
	}
	for _, c := range cases {
		err := CheckDecoded(c.req)
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: refused: %v", c.name, err)
			}
			continue
		}
		code, msg := ErrorCode(err)
		if code != ErrCodeBadRequest || !strings.Contains(msg, c.want) {
			t.Errorf("%s: got %d %q, want 400 naming %q", c.name, code, msg, c.want)
		}
	}
}

// TestCheckDecodedJSON: a JSON body's nulls reach CheckDecoded as nil
// pointers in lists (the HTTP class of the finding).
func TestCheckDecodedJSON(t *testing.T) {
	var req JobRegisterRequest
	body := `{"Job": {"ID": "x", "TaskGroups": [{"Name": "g", "Tasks": [{"Name": "t", "Constraints": [null]}]}]}}`
	if err := json.Unmarshal([]byte(body), &req); err != nil {
		t.Fatal(err)
	}
	_, msg := ErrorCode(CheckDecoded(&req))
	if want := "Job.TaskGroups[0].Tasks[0].Constraints[0] is null"; !strings.Contains(msg, want) {
		t.Fatalf("message %q does not name %q", msg, want)
	}
}

// TestCheckDecodedSharedPointers: in-process requests share one job among
// many allocations; it is walked once, and a shared pointer is not a cycle.
func TestCheckDecodedSharedPointers(t *testing.T) {
	j := &Job{ID: "j", TaskGroups: []*TaskGroup{{Name: "g"}}}
	req := &AllocUpdateRequest{}
	for i := 0; i < 1000; i++ {
		req.Alloc = append(req.Alloc, &Allocation{ID: "a", Job: j})
	}
	if err := CheckDecoded(req); err != nil {
		t.Fatal(err)
	}
	j.TaskGroups = append(j.TaskGroups, nil)
	if _, msg := ErrorCode(CheckDecoded(req)); !strings.Contains(msg, "Alloc[0].Job.TaskGroups[1] is null") {
		t.Fatalf("message %q", msg)
	}
}

type deep struct{ Next []*deep }

func TestCheckDecodedDepthBound(t *testing.T) {
	root := &deep{}
	cur := root
	for i := 0; i < maxCheckDepth; i++ {
		n := &deep{}
		cur.Next = []*deep{n}
		cur = n
	}
	_, msg := ErrorCode(CheckDecoded(root))
	if !strings.Contains(msg, "nested more than") {
		t.Fatalf("message %q", msg)
	}
}

func BenchmarkCheckDecodedJob(b *testing.B) {
	j := &Job{ID: "j"}
	for g := 0; g < 10; g++ {
		tg := &TaskGroup{Name: "g"}
		for k := 0; k < 5; k++ {
			tg.Tasks = append(tg.Tasks, &Task{Name: "t", Resources: &Resources{CPU: 1}, Config: map[string]any{"a": 1}})
		}
		j.TaskGroups = append(j.TaskGroups, tg)
	}
	req := &JobRegisterRequest{Job: j}
	for b.Loop() {
		if err := CheckDecoded(req); err != nil {
			b.Fatal(err)
		}
	}
}
