package state

import (
	"bytes"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

func submissionOf(t *testing.T, s *StateStore, id string, version uint64) *structs.JobSubmission {
	t.Helper()
	sub, err := s.JobSubmission(nil, "default", id, version)
	if err != nil {
		t.Fatal(err)
	}
	return sub
}

// upsertWithSource registers a copy of job as version with a source naming it.
func upsertWithSource(t *testing.T, s *StateStore, index uint64, job *structs.Job, version uint64) {
	t.Helper()
	j := job.Copy()
	j.Version = version
	j.TaskGroups[0].Count = int(version) + 1
	sub := &structs.JobSubmission{Source: sourceText(version), Format: "hcl2",
		VariableFlags: map[string]string{"n": "1"}, Variables: "n = 1"}
	if err := s.UpsertJobWithSubmission(index, j, sub, nil); err != nil {
		t.Fatal(err)
	}
}

func sourceText(version uint64) string {
	return `job "x" { # version ` + string(rune('0'+version)) + ` }`
}

func TestJobSubmissionStoredWithItsVersion(t *testing.T) {
	s := testStore(t)
	job := testJob("src")
	upsertWithSource(t, s, 10, job, 0)
	upsertWithSource(t, s, 11, job, 1)
	// A version registered without a source has none (the API answers 404).
	upsertVersion(t, s, 12, job, 2)

	for v, want := range map[uint64]string{0: sourceText(0), 1: sourceText(1)} {
		sub := submissionOf(t, s, "src", v)
		if sub == nil || sub.Source != want || sub.Format != "hcl2" || sub.Variables != "n = 1" || sub.VariableFlags["n"] != "1" {
			t.Fatalf("version %d: submission %+v, want source %q", v, sub, want)
		}
		if sub.JobID != "src" || sub.Namespace != "default" || sub.Version != v || sub.JobModifyIndex != 10+v {
			t.Errorf("version %d: bookkeeping %q/%q v%d index %d", v, sub.Namespace, sub.JobID, sub.Version, sub.JobModifyIndex)
		}
	}
	if sub := submissionOf(t, s, "src", 2); sub != nil {
		t.Errorf("version 2 has submission %+v, want none", sub)
	}
	if job, _ := s.JobByID(nil, "default", "src"); job == nil || job.Version != 2 {
		t.Fatalf("job %+v, want version 2", job)
	}
}

func TestJobSubmissionPersistedAndPurged(t *testing.T) {
	s := testStore(t)
	job := testJob("src")
	upsertWithSource(t, s, 10, job, 0)

	var buf bytes.Buffer
	if err := s.Snapshot().Persist(&buf); err != nil {
		t.Fatal(err)
	}
	restored, err := Restore(&buf, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sub := submissionOf(t, restored, "src", 0); sub == nil || sub.Source != sourceText(0) || sub.VariableFlags["n"] != "1" {
		t.Fatalf("restored submission %+v", sub)
	}

	if err := s.DeleteJob(20, "default", "src", nil); err != nil {
		t.Fatal(err)
	}
	if sub := submissionOf(t, s, "src", 0); sub != nil {
		t.Fatalf("purged job's submission kept: %+v", sub)
	}
	if idx, _ := s.Index(TableJobSubmissions); idx != 20 {
		t.Errorf("submissions index %d after the purge, want 20", idx)
	}
}

// Versions pruned past JobTrackedVersions take their sources with them.
func TestJobSubmissionPrunedWithItsVersion(t *testing.T) {
	s := testStore(t)
	job := testJob("src")
	n := uint64(structs.JobTrackedVersions) + 2
	for v := uint64(0); v < n; v++ {
		upsertWithSource(t, s, 10+v, job, v)
	}
	for v := uint64(0); v < n; v++ {
		kept := v >= n-uint64(structs.JobTrackedVersions)
		if sub := submissionOf(t, s, "src", v); (sub != nil) != kept {
			t.Errorf("version %d: submission %v, want kept=%v", v, sub != nil, kept)
		}
	}
}

// The garbage collector's purge of a dead job deletes its sources too.
func TestJobSubmissionReapedByGC(t *testing.T) {
	s := testStore(t)
	job := testJob("src")
	job.Stop = true
	upsertWithSource(t, s, 10, job, 0)
	if j, _ := s.JobByID(nil, "default", "src"); j.Status != structs.JobStatusDead {
		t.Fatalf("job status %q, want dead", j.Status)
	}
	resp, err := s.ReapGC(20, &structs.GCReapRequest{Jobs: []structs.NamespacedID{{Namespace: "default", ID: "src"}}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Jobs != 1 {
		t.Fatalf("reaped %+v, want the job", *resp)
	}
	if sub := submissionOf(t, s, "src", 0); sub != nil {
		t.Fatalf("collected job's submission kept: %+v", sub)
	}
}
