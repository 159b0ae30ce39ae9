package structs

import "testing"

// System and sysbatch groups run one allocation per node: Canonicalize sets
// their count to 1 whatever was given; other types keep theirs.
func TestCanonicalizeSystemCount(t *testing.T) {
	for typ, want := range map[string]int{JobTypeSystem: 1, JobTypeSysBatch: 1, JobTypeService: 5, JobTypeBatch: 5} {
		j := &Job{ID: "j", Type: typ, TaskGroups: []*TaskGroup{{Name: "g", Count: 5}, {Name: "h"}}}
		j.Canonicalize()
		if got := j.TaskGroups[0].Count; got != want {
			t.Errorf("%s: count 5 canonicalized to %d, want %d", typ, got, want)
		}
		if got := j.TaskGroups[1].Count; got != 1 {
			t.Errorf("%s: missing count canonicalized to %d, want 1", typ, got)
		}
	}
}
