package structs

import (
	"strings"
	"testing"
)

func TestAffinityValidate(t *testing.T) {
	for _, tc := range []struct {
		a    Affinity
		want string // "" for valid
	}{
		{Affinity{LTarget: "${meta.rack}", Operand: "=", RTarget: "r1", Weight: 50}, ""},
		{Affinity{LTarget: "${meta.rack}", Operand: "regexp", RTarget: "^r[12]$", Weight: -100}, ""},
		{Affinity{LTarget: "${meta.rack}", Operand: "=", RTarget: "r1", Weight: 0}, "weight can't be zero"},
		{Affinity{LTarget: "${meta.rack}", Operand: "=", RTarget: "r1", Weight: 101}, "range [-100,100]"},
		{Affinity{LTarget: "${meta.rack}", Operand: "distinct_hosts", Weight: 10}, "unknown operator"},
		{Affinity{LTarget: "${meta.rack}", Operand: "regexp", RTarget: "(", Weight: 10}, "failed to compile"},
		{Affinity{LTarget: "${meta.rack}", Operand: "set_contains_any", Weight: 10}, "requires a value"},
		{Affinity{Operand: "=", RTarget: "x", Weight: 10}, "missing attribute"},
	} {
		checkErr(t, tc.a.String(), tc.a.Validate(), tc.want)
	}
}

func TestSpreadValidate(t *testing.T) {
	tgt := func(v string, p uint8) *SpreadTarget { return &SpreadTarget{Value: v, Percent: p} }
	for _, tc := range []struct {
		s    Spread
		want string
	}{
		{Spread{Attribute: "${meta.rack}", Weight: 50}, ""},
		{Spread{Attribute: "${meta.rack}", Weight: 100, SpreadTarget: []*SpreadTarget{tgt("r1", 60), tgt("r2", 40)}}, ""},
		{Spread{Attribute: "${meta.rack}", Weight: 0}, "weight must be between 1 and 100"},
		{Spread{Weight: 10}, "missing attribute"},
		{Spread{Attribute: "a", Weight: 10, SpreadTarget: []*SpreadTarget{tgt("r1", 101)}}, "between 0 and 100"},
		{Spread{Attribute: "a", Weight: 10, SpreadTarget: []*SpreadTarget{tgt("r1", 60), tgt("r2", 50)}}, "not be greater than 100%; got 110%"},
		{Spread{Attribute: "a", Weight: 10, SpreadTarget: []*SpreadTarget{tgt("r1", 10), tgt("r1", 10)}}, "defined more than once"},
	} {
		checkErr(t, tc.s.Attribute, tc.s.Validate(), tc.want)
	}
}

func TestJobValidatesPreferences(t *testing.T) {
	j := &Job{ID: "a", Name: "a", Type: JobTypeService, Priority: 50,
		Affinities: []*Affinity{{LTarget: "x", Operand: "=", RTarget: "y", Weight: 0}},
		TaskGroups: []*TaskGroup{{Name: "g", Count: 1,
			Spreads: []*Spread{{Attribute: "x", Weight: 10}, {Attribute: "x", Weight: 10}},
			Tasks: []*Task{{Name: "t", Driver: "d", Resources: DefaultResources(),
				Affinities: []*Affinity{{LTarget: "x", Operand: "=", RTarget: "y", Weight: 120}}}}}},
	}
	err := j.Validate()
	for _, want := range []string{`job: affinity "x = y": weight can't be zero`,
		`group "g": spread attribute "x" defined more than once`,
		`group "g": task "t": affinity "x = y": weight must be within the range [-100,100]`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want it to contain %q", err, want)
		}
	}
}

func checkErr(t *testing.T, what string, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("%s: unexpected error %v", what, err)
	case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
		t.Errorf("%s: error %v, want it to contain %q", what, err, want)
	}
}
