package trace

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestRoundTrip(t *testing.T) {
	for _, kind := range Kinds {
		orig, err := Generate(kind, Options{Seed: 3, Nodes: 20, Duration: 2 * time.Hour, Racks: 4, NodeClasses: []string{"small", "big"}})
		if err != nil {
			t.Fatal(err)
		}
		// Values CSV must keep: spaces inside a constraint's value.
		orig.Jobs[0].Constraints = append(orig.Jobs[0].Constraints, Constraint{Attribute: "${attr.os.name}", Operator: "=", Value: "Debian GNU/Linux"},
			Constraint{Attribute: "${meta.zone}", Operator: "set_contains_any", Value: "a,b \"c\""})
		for _, format := range []string{FormatJSON, FormatCSV} {
			var buf bytes.Buffer
			if err := Write(&buf, orig, format); err != nil {
				t.Fatalf("%s %s: write: %v", kind, format, err)
			}
			got, err := Parse("t."+format, format, buf.Bytes())
			if err != nil {
				t.Fatalf("%s %s: read back: %v", kind, format, err)
			}
			if !reflect.DeepEqual(got.Jobs, orig.Jobs) {
				for i := range orig.Jobs {
					if !reflect.DeepEqual(got.Jobs[i], orig.Jobs[i]) {
						t.Fatalf("%s %s: job %d differs:\n got %+v\nwant %+v", kind, format, i, got.Jobs[i], orig.Jobs[i])
					}
				}
				t.Fatalf("%s %s: jobs differ", kind, format)
			}
			if format == FormatJSON && got.Source != orig.Source {
				t.Errorf("source %q, want %q", got.Source, orig.Source)
			}
		}
	}
}

func TestReadForms(t *testing.T) {
	bare := `[{"arrival": 90, "id": "b", "type": "batch", "priority": 50, "count": 2, "memory_mb": 256, "duration": "1m30s"},
  {"arrival": "30s", "id": "a", "type": "service", "priority": 70, "count": 1, "memory_mb": 512, "cores": 2, "numa": "require",
   "constraints": [{"attribute": "${meta.rack}", "value": "r1"}], "spread": [{"attribute": "${meta.rack}", "weight": 50}]},
  {"arrival": 1.5, "id": "c", "type": "batch", "priority": 1, "count": 1, "memory_mb": 1, "duration": 0.25}]`
	csvText := "# a comment\nid,arrival,type,priority,count,memory_mb,cores,numa,duration,constraints,spread\n" +
		"b,90,batch,50,2,256,,,1m30s,,\n" +
		"a,30s,service,70,1,512,2,require,,${meta.rack} r1,${meta.rack}:50\n" +
		"c,1.5,batch,1,1,1,,,0.25,,\n"
	for _, c := range []struct{ name, text string }{{"bare.json", bare}, {"t.csv", csvText}, {"noext", bare}, {"noext2", csvText}} {
		got, err := Parse(c.name, FormatFor(c.name, []byte(c.text)), []byte(c.text))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got.Source != c.name {
			t.Errorf("%s: source %q", c.name, got.Source)
		}
		ids := []string{got.Jobs[0].ID, got.Jobs[1].ID, got.Jobs[2].ID}
		if !reflect.DeepEqual(ids, []string{"c", "a", "b"}) {
			t.Errorf("%s: order %v, want by arrival c a b", c.name, ids)
		}
		c0, a, b := got.Jobs[0], got.Jobs[1], got.Jobs[2]
		if b.Arrival != 90*time.Second || b.Duration != 90*time.Second || c0.Arrival != 1500*time.Millisecond || c0.Duration != 250*time.Millisecond {
			t.Errorf("%s: durations %v %v %v %v", c.name, b.Arrival, b.Duration, c0.Arrival, c0.Duration)
		}
		want := []Constraint{{Attribute: "${meta.rack}", Operator: "r1"}}
		if strings.HasSuffix(c.name, "json") || c.name == "noext" {
			want = []Constraint{{Attribute: "${meta.rack}", Operator: "=", Value: "r1"}}
		}
		if !reflect.DeepEqual(a.Constraints, want) || !reflect.DeepEqual(a.Spread, []Spread{{"${meta.rack}", 50}}) || a.Cores != 2 || a.NUMA != "require" {
			t.Errorf("%s: job a = %+v", c.name, a)
		}
	}
}

func TestReadErrors(t *testing.T) {
	const hdr = "arrival,id,type,priority,count,memory_mb,cores,numa,duration,constraints,spread\n"
	const ok = "0,a,batch,10,1,100,,,,,\n"
	cases := []struct{ name, text, want string }{
		{"t.csv", hdr + ok + "0,b,batch,x,1,100,,,,,\n", `t.csv:3: column "priority": "x" is not a number`},
		{"t.csv", hdr + ok + "\n\n0,b,batch,0,1,100,,,,,\n", `t.csv:5: field "priority": 0 is not in 1-100`},
		{"t.csv", hdr + ok + ok, `t.csv:3: duplicate id "a" (first on line 2)`},
		{"t.csv", hdr + "9x,a,batch,10,1,100,,,,,\n", `t.csv:2: column "arrival": "9x" is not a duration`},
		{"t.csv", hdr + "0,a,batch,10,1,100\n", `t.csv:2: wrong number of fields`},
		{"t.csv", hdr + "0,a,batch,10,1,100,,,,,${meta.rack}:x\n", `t.csv:2: column "spread": "${meta.rack}:x": weight "x" is not a number`},
		{"t.csv", hdr + "0,a,system,10,1,100,,,,,\n", `t.csv:2: field "type": "system" is not service or batch`},
		{"t.csv", hdr + "0,a,batch,10,1,100,,require,,,\n", `t.csv:2: field "numa": "require" needs cores > 0`},
		{"t.csv", hdr + "0,a,batch,10,0,100,,,,,\n", `t.csv:2: field "count": 0 is less than 1`},
		{"t.csv", hdr + "0,a,batch,10,1,0,,,,,\n", `t.csv:2: field "memory_mb": 0 is not positive`},
		{"t.csv", hdr + "0,a,batch,10,1,10,-1,,,,\n", `t.csv:2: field "cores": -1 is negative`},
		{"t.csv", hdr + "-5,a,batch,10,1,10,,,,,\n", `t.csv:2: field "arrival": -5s is negative`},
		{"t.csv", hdr + "0,a,batch,10,1,10,,numa9,,,\n", `t.csv:2: field "numa": "numa9" is not none, prefer or require`},
		{"t.csv", hdr + "0,a,batch,10,1,10,,,,bogus,\n", `t.csv:2: column "constraints": "bogus": want "attribute operator value"`},
		{"t.csv", "arrival,id,kind\n", `t.csv:1: unknown column "kind"`},
		{"t.csv", "arrival,id,type\n", `t.csv:1: missing column "priority"`},
		{"t.csv", "", `t.csv:1: empty file`},
		{"t.json", "{\"jobs\": [\n  {\"id\": \"a\", \"type\": \"batch\", \"priority\": \"x\"}]}", `t.json:2:44: job 0: field "priority": string is not of type int`},
		{"t.json", "{\"jobs\": [\n  {\"id\": \"a\" \"type\": \"batch\"}]}", `t.json:2:14: invalid character '"' after object key:value pair`},
		{"t.json", "[\n{\"id\": \"a\", \"type\": \"batch\", \"priority\": 10, \"count\": 1, \"memory_mb\": 1},\n {\"id\": \"a\", \"type\": \"batch\", \"priority\": 10, \"count\": 1, \"memory_mb\": 1}]", `t.json:3:2: job 1: duplicate id "a"`},
		{"t.json", "[\n {\"id\": \"a\", \"type\": \"batch\", \"priority\": 101, \"count\": 1, \"memory_mb\": 1}]", `t.json:2:2: job 0 ("a"): field "priority": 101 is not in 1-100`},
		{"t.json", "[\n {\"id\": \"a\", \"count\": 2.5}]", `t.json:2:23: job 0: field "count": number 2.5 is not of type int`},
		{"t.json", "[\n {\"id\": \"a\", \"prio\": 1}]", `t.json:2:2: job 0: unknown field "prio"`},
		{"t.json", "[\n {\"id\": \"a\", \"arrival\": \"soon\"}]", `t.json:2:2: job 0 ("a"): field "arrival": "soon" is not a duration`},
		{"t.json", "[\n {\"id\": \"a\", \"duration\": true}]", `t.json:2:2: job 0 ("a"): field "duration": true is not a duration`},
		{"t.json", "{\"source\": \"x\", \"jobz\": []}", `t.json:1:17: unknown field "jobz"`},
		{"t.json", "[]\n[]", `t.json:2:1: unexpected data after the trace`},
		{"t.json", "[\n", `t.json:2:1: unexpected end of JSON`},
		{"t.json", "\"jobs\"", `t.json:1:1: want an object`},
	}
	for _, c := range cases {
		_, err := Parse(c.name, FormatFor(c.name, []byte(c.text)), []byte(c.text))
		if err == nil {
			t.Errorf("%q: no error, want %q", c.text, c.want)
			continue
		}
		if !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q:\n got %q\nwant %q...", c.text, err, c.want)
		}
	}
}

func TestTraceValidate(t *testing.T) {
	j := Job{ID: "a", Type: "batch", Priority: 5, Count: 1, MemoryMB: 10}
	tr := &Trace{Jobs: []Job{j, j}}
	if err := tr.Validate(); err == nil || err.Error() != `job 1: duplicate id "a" (first at job 0)` {
		t.Errorf("duplicate: %v", err)
	}
	tr.Jobs[1].ID, tr.Jobs[1].Spread = "b", []Spread{{Attribute: "${meta.rack}", Weight: 101}}
	if err := tr.Validate(); err == nil || err.Error() != `job 1 ("b"): field "spread[0].weight": 101 is not in 0-100` {
		t.Errorf("weight: %v", err)
	}
}

func TestReadFile(t *testing.T) {
	if _, err := Read(t.TempDir() + "/missing.csv"); err == nil || !strings.Contains(err.Error(), "missing.csv") {
		t.Errorf("missing file: %v", err)
	}
	if err := Write(&bytes.Buffer{}, &Trace{}, "yaml"); err == nil {
		t.Error("yaml: no error")
	}
}

// TestExamples reads the documented examples (website/sim.md): the JSON
// and the CSV hold the same jobs.
func TestExamples(t *testing.T) {
	j, err := Read("testdata/example.json")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Read("testdata/example.csv")
	if err != nil {
		t.Fatal(err)
	}
	if j.Source != "nightly batch" || c.Source != "testdata/example.csv" {
		t.Errorf("sources %q %q", j.Source, c.Source)
	}
	if !reflect.DeepEqual(j.Jobs, c.Jobs) {
		t.Errorf("json and csv differ:\n%+v\n%+v", j.Jobs, c.Jobs)
	}
	db := j.Jobs[2]
	if db.ID != "db" || db.Cores != 8 || len(db.Constraints) != 2 || db.Constraints[1] != (Constraint{"${node.class}", "=", "big"}) {
		t.Errorf("db = %+v", db)
	}
}

func TestSummarize(t *testing.T) {
	tr, err := Read("testdata/example.csv")
	if err != nil {
		t.Fatal(err)
	}
	want := Summary{Jobs: 3, ServiceJobs: 2, BatchJobs: 1, Allocs: 205, CoreJobs: 1, LastArrival: 2 * time.Minute}
	if got := tr.Summarize(); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}
