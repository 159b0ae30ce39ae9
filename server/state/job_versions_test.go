package state

import (
	"bytes"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

// upsertVersion registers a copy of job at index with the given version.
func upsertVersion(t *testing.T, s *StateStore, index uint64, job *structs.Job, version uint64) {
	t.Helper()
	j := job.Copy()
	j.Version = version
	j.TaskGroups[0].Count = int(version) + 1
	if err := s.UpsertJob(index, j, nil); err != nil {
		t.Fatal(err)
	}
}

func versionsOf(t *testing.T, s *StateStore, id string) []uint64 {
	t.Helper()
	vs, err := s.JobVersionsByID(nil, "default", id)
	if err != nil {
		t.Fatal(err)
	}
	var out []uint64
	for _, v := range vs {
		out = append(out, v.Version)
	}
	return out
}

func equalU64(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestJobVersionsKeptNewestFirstAndTrimmed(t *testing.T) {
	s := testStore(t)
	job := testJob("web")
	// A job whose ID is a prefix of this one must not show up in its versions.
	if err := s.UpsertJob(1, testJob("web2"), nil); err != nil {
		t.Fatal(err)
	}
	for v := uint64(0); v < 3; v++ {
		upsertVersion(t, s, 10+v, job, v)
	}
	if got := versionsOf(t, s, "web"); !equalU64(got, []uint64{2, 1, 0}) {
		t.Fatalf("versions %v, want [2 1 0]", got)
	}
	// Re-registering the same version replaces it, it does not add one.
	upsertVersion(t, s, 20, job, 2)
	if got := versionsOf(t, s, "web"); !equalU64(got, []uint64{2, 1, 0}) {
		t.Fatalf("after same-version write: %v", got)
	}
	for v := uint64(3); v < 9; v++ {
		upsertVersion(t, s, 30+v, job, v)
	}
	if got := versionsOf(t, s, "web"); !equalU64(got, []uint64{8, 7, 6, 5, 4, 3}) {
		t.Fatalf("versions %v, want the newest %d", got, structs.JobTrackedVersions)
	}
	v5, err := s.JobByIDAndVersion(nil, "default", "web", 5)
	if err != nil || v5 == nil || v5.TaskGroups[0].Count != 6 {
		t.Fatalf("version 5 = %+v, %v", v5, err)
	}
	if v0, _ := s.JobByIDAndVersion(nil, "default", "web", 0); v0 != nil {
		t.Fatalf("version 0 should be trimmed")
	}
}

func TestJobVersionsStableKeptPastLimit(t *testing.T) {
	s := testStore(t)
	job := testJob("web")
	for v := uint64(0); v < 6; v++ {
		upsertVersion(t, s, 10+v, job, v)
	}
	if err := s.UpdateJobStability(20, "default", "web", 0, true); err != nil {
		t.Fatal(err)
	}
	upsertVersion(t, s, 21, job, 6)
	// Version 0 is the newest stable one: it is kept in place of version 1.
	if got := versionsOf(t, s, "web"); !equalU64(got, []uint64{6, 5, 4, 3, 2, 0}) {
		t.Fatalf("versions %v, want [6 5 4 3 2 0]", got)
	}
	if err := s.UpdateJobStability(22, "default", "web", 42, true); err == nil {
		t.Fatal("stability of an unknown version should fail")
	}
	if err := s.UpdateJobStability(23, "default", "web", 6, true); err != nil {
		t.Fatal(err)
	}
	cur, _ := s.JobByID(nil, "default", "web")
	if !cur.Stable || cur.ModifyIndex != 23 {
		t.Fatalf("current job stable=%v modify=%d, want true 23", cur.Stable, cur.ModifyIndex)
	}
}

func TestJobVersionsPurgedAndPersisted(t *testing.T) {
	s := testStore(t)
	job := testJob("web")
	for v := uint64(0); v < 2; v++ {
		upsertVersion(t, s, 10+v, job, v)
	}
	var buf bytes.Buffer
	if err := s.Snapshot().Persist(&buf); err != nil {
		t.Fatal(err)
	}
	restored, err := Restore(&buf, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := versionsOf(t, restored, "web"); !equalU64(got, []uint64{1, 0}) {
		t.Fatalf("restored versions %v", got)
	}
	if err := s.DeleteJob(20, "default", "web", nil); err != nil {
		t.Fatal(err)
	}
	if got := versionsOf(t, s, "web"); len(got) != 0 {
		t.Fatalf("versions after purge: %v", got)
	}
	if idx, _ := s.Index(TableJobVersions); idx != 20 {
		t.Fatalf("job_version index %d, want 20", idx)
	}
}
