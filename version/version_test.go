package version

import "testing"

func TestString(t *testing.T) {
	old := GitCommit
	defer func() { GitCommit = old }()
	GitCommit = "abc1234"
	if got, want := String(), "nomadish v"+Version+" (abc1234)"; got != want {
		t.Fatalf("String() = %q, want %q", got, want)
	}
	if Revision() != "abc1234" {
		t.Fatalf("Revision() = %q", Revision())
	}
	if Version == "" {
		t.Fatal("Version is empty")
	}
}
