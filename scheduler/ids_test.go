package scheduler

import (
	"regexp"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

// TestIDSourceFormat: the batched UUIDs look like structs.GenerateUUID's
// (version 4, RFC 4122 variant) and do not repeat, across refills.
func TestIDSourceFormat(t *testing.T) {
	re := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	if !re.MatchString(structs.GenerateUUID()) {
		t.Fatalf("the pattern does not match structs.GenerateUUID's format")
	}
	s := newIDSource()
	seen := map[string]bool{}
	for range 200 { // more than three refills
		id := s.uuid()
		if !re.MatchString(id) {
			t.Fatalf("uuid %q is not a version 4 UUID", id)
		}
		if seen[id] {
			t.Fatalf("uuid %q repeated", id)
		}
		seen[id] = true
	}
}
