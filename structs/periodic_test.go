package structs

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// JSON jobs get the defaults Nomad's API gives before the server sees them:
// periodic and scaling enabled unless false, scaling min the group's count.
func TestJSONDefaultsOfPeriodicAndScaling(t *testing.T) {
	var j Job
	body := `{"ID":"x","Type":"batch","Periodic":{"Spec":"* * * * *"},
		"TaskGroups":[{"Name":"g","Count":3,"Scaling":{"Max":5},"Tasks":[{"Name":"t","Driver":"raw_exec"}]},
		              {"Name":"h","Scaling":{"Min":2,"Max":4,"Enabled":false},"Tasks":[{"Name":"t","Driver":"raw_exec"}]}]}`
	if err := json.Unmarshal([]byte(body), &j); err != nil {
		t.Fatal(err)
	}
	j.Canonicalize()
	if !j.Periodic.Enabled || j.Periodic.TimeZone != "UTC" || j.Periodic.SpecType != PeriodicSpecCron {
		t.Errorf("periodic = %+v", j.Periodic)
	}
	g, h := j.TaskGroups[0], j.TaskGroups[1]
	if g.Count != 3 || g.Scaling.Min != 3 || !g.Scaling.Enabled {
		t.Errorf("g: count %d scaling %+v", g.Count, g.Scaling)
	}
	if h.Count != 2 || h.Scaling.Min != 2 || h.Scaling.Enabled {
		t.Errorf("h: count %d scaling %+v", h.Count, h.Scaling)
	}
	if err := j.Validate(); err != nil {
		t.Errorf("validate: %v", err)
	}
	var off PeriodicConfig
	if err := json.Unmarshal([]byte(`{"Spec":"* * * * *","Enabled":false}`), &off); err != nil || off.Enabled {
		t.Errorf("enabled false = %+v, %v", off, err)
	}
}

func TestCheckDispatch(t *testing.T) {
	parent := &Job{ID: "p", ParameterizedJob: &ParameterizedJobConfig{Payload: DispatchPayloadForbidden, MetaRequired: []string{"a"}}}
	for _, tc := range []struct {
		payload []byte
		meta    map[string]string
		want    string
	}{
		{nil, map[string]string{"a": "1"}, ""},
		{[]byte("x"), map[string]string{"a": "1"}, "payload is forbidden"},
		{nil, nil, "missing required meta keys: [a]"},
		{nil, map[string]string{"a": "1", "z": "2"}, "unpermitted meta keys: [z]"},
	} {
		err := CheckDispatch(parent, tc.payload, tc.meta)
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("CheckDispatch(%q, %v) = %v, want %q", tc.payload, tc.meta, err, tc.want)
		}
	}
}

func TestPeriodicNextAndChildID(t *testing.T) {
	p := &PeriodicConfig{Enabled: true, Specs: []string{"0 */6 * * *", "30 1 * * *"}}
	from := time.Date(2026, 1, 1, 0, 10, 0, 0, time.UTC)
	if got := p.Next(from); !got.Equal(time.Date(2026, 1, 1, 1, 30, 0, 0, time.UTC)) {
		t.Errorf("next = %v", got)
	}
	if id := PeriodicChildID("j", from); id != "j/periodic-1767226200" {
		t.Errorf("child ID = %q", id)
	}
}
