package structs

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"
)

func diffTestJob() *Job {
	j := &Job{ID: "web", Type: JobTypeService, Datacenters: []string{"dc1"}, Meta: map[string]string{"owner": "ops"},
		TaskGroups: []*TaskGroup{{Name: "api", Count: 1, Tasks: []*Task{{
			Name: "server", Driver: "docker", Config: map[string]any{"image": "redis:7", "args": []any{"a", "b"}},
			Env: map[string]string{"PORT": "80"}, Resources: &Resources{CPU: 100, MemoryMB: 128},
		}}}}}
	j.Canonicalize()
	return j
}

// render flattens a diff into sorted lines "path: type old=>new" so a table
// can list what it expects without the nesting.
func render(d *JobDiff) []string {
	var out []string
	var obj func(prefix string, o *ObjectDiff)
	fields := func(prefix string, fs []*FieldDiff) {
		for _, f := range fs {
			line := fmt.Sprintf("%s%s: %s %s=>%s", prefix, f.Name, f.Type, f.Old, f.New)
			if len(f.Annotations) > 0 {
				line += " (" + strings.Join(f.Annotations, ",") + ")"
			}
			out = append(out, line)
		}
	}
	obj = func(prefix string, o *ObjectDiff) {
		p := prefix + o.Name + "/"
		out = append(out, fmt.Sprintf("%s%s %s", prefix, o.Name, o.Type))
		fields(p, o.Fields)
		for _, c := range o.Objects {
			obj(p, c)
		}
	}
	out = append(out, "job "+d.Type)
	fields("", d.Fields)
	for _, o := range d.Objects {
		obj("", o)
	}
	for _, tg := range d.TaskGroups {
		p := "group:" + tg.Name + "/"
		out = append(out, fmt.Sprintf("group:%s %s", tg.Name, tg.Type))
		fields(p, tg.Fields)
		for _, o := range tg.Objects {
			obj(p, o)
		}
		for _, t := range tg.Tasks {
			tp := p + "task:" + t.Name + "/"
			out = append(out, fmt.Sprintf("%stask:%s %s", p, t.Name, t.Type))
			fields(tp, t.Fields)
			for _, o := range t.Objects {
				obj(tp, o)
			}
		}
	}
	sort.Strings(out)
	return out
}

func TestJobDiff(t *testing.T) {
	cases := []struct {
		name   string
		change func(j *Job)
		want   []string
	}{
		{"none: status and indexes are ignored", func(j *Job) {
			j.Version, j.Status, j.JobModifyIndex, j.SubmitTime = 3, JobStatusRunning, 42, 7
		}, []string{"group:api None", "group:api/task:server None", "job None"}},
		{"count and meta", func(j *Job) {
			j.TaskGroups[0].Count = 3
			j.Meta["owner"] = "dev"
			j.Meta["team"] = "a"
		}, []string{"Meta[owner]: Edited ops=>dev", "Meta[team]: Added =>a", "group:api Edited",
			"group:api/Count: Edited 1=>3", "group:api/task:server None", "job Edited"}},
		{"task config, env and duration", func(j *Job) {
			tk := j.TaskGroups[0].Tasks[0]
			tk.Config["image"] = "redis:8"
			tk.Config["args"] = []any{"a"}
			delete(tk.Env, "PORT")
			tk.KillTimeout = 10 * time.Second
		}, []string{"group:api Edited", "group:api/task:server Edited",
			"group:api/task:server/Config Edited", "group:api/task:server/Config/args[1]: Deleted b=>",
			"group:api/task:server/Config/image: Edited redis:7=>redis:8", "group:api/task:server/Env[PORT]: Deleted 80=>",
			"group:api/task:server/KillTimeout: Edited 5000000000=>10000000000", "job Edited"}},
		{"datacenters set and a constraint", func(j *Job) {
			j.Datacenters = []string{"dc1", "dc2"}
			j.Constraints = []*Constraint{{LTarget: "${attr.kernel.name}", RTarget: "linux", Operand: "="}}
		}, []string{"Constraint Added", "Constraint/LTarget: Added =>${attr.kernel.name}", "Constraint/Operand: Added =>=",
			"Constraint/RTarget: Added =>linux", "Datacenters Edited", "Datacenters/Datacenters: Added =>dc2",
			"group:api None", "group:api/task:server None", "job Edited"}},
		{"resources nested object", func(j *Job) {
			j.TaskGroups[0].Tasks[0].Resources.MemoryMB = 256
		}, []string{"group:api Edited", "group:api/task:server Edited", "group:api/task:server/Resources Edited",
			"group:api/task:server/Resources/MemoryMB: Edited 128=>256", "job Edited"}},
		{"group and task added", func(j *Job) {
			j.TaskGroups[0].Tasks = append(j.TaskGroups[0].Tasks, &Task{Name: "side", Driver: "raw_exec"})
			j.TaskGroups = append(j.TaskGroups, &TaskGroup{Name: "zz", Count: 2, Tasks: []*Task{{Name: "t", Driver: "exec"}}})
		}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			old, cur := diffTestJob(), diffTestJob()
			tc.change(cur)
			got := render(old.Diff(cur))
			if tc.want == nil {
				assertHas(t, got, "job Edited", "group:api Edited", "group:api/task:side Added",
					"group:api/task:side/Driver: Added =>raw_exec", "group:zz Added", "group:zz/Count: Added =>2", "group:zz/task:t Added")
				return
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Fatalf("diff:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func assertHas(t *testing.T, got []string, want ...string) {
	t.Helper()
	have := map[string]bool{}
	for _, g := range got {
		have[g] = true
	}
	for _, w := range want {
		if !have[w] {
			t.Errorf("missing %q in\n%s", w, strings.Join(got, "\n"))
		}
	}
}

func TestJobDiffAddedAndDeleted(t *testing.T) {
	j := diffTestJob()
	if d := (*Job)(nil).Diff(j); d.Type != DiffTypeAdded || d.ID != "web" || d.TaskGroups[0].Type != DiffTypeAdded {
		t.Fatalf("added: %+v", d)
	}
	if d := j.Diff(nil); d.Type != DiffTypeDeleted || d.TaskGroups[0].Tasks[0].Type != DiffTypeDeleted {
		t.Fatalf("deleted: %+v", d)
	}
}
