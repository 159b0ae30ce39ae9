package endpoints

import (
	"fmt"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

// BenchmarkAllocList lists 10,000 allocations: unpaged (the cost every
// list had before paging; paging must not add to it) and one page of 100.
func BenchmarkAllocList(b *testing.B) {
	t := &testing.T{} // testDeps' cleanup never runs for a benchmark: its store is dropped with it
	d := testDeps(t)
	tenThousandAllocs(t, d)
	for _, bc := range []struct {
		name string
		q    structs.QueryOptions
	}{
		{"unpaged", structs.QueryOptions{Namespace: "*"}},
		{"per_page=100", structs.QueryOptions{Namespace: "*", PerPage: 100}},
		{"filter", structs.QueryOptions{Namespace: "*", Filter: `ClientStatus == "complete"`}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			e := &Alloc{d: d}
			for b.Loop() {
				var reply structs.AllocListResponse
				if err := e.List(&structs.AllocListRequest{QueryOptions: bc.q}, &reply); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkJobList lists 2,000 jobs unpaged (the shared answer) and one
// page of 100.
func BenchmarkJobList(b *testing.B) {
	d := testDeps(&testing.T{})
	for i := range 2000 {
		j := &structs.Job{ID: fmt.Sprintf("job-%04d", i), Name: "j", Namespace: "default", Type: "batch", Status: "pending"}
		if err := d.State().UpsertJob(uint64(10+i), j, nil); err != nil {
			b.Fatal(err)
		}
	}
	for _, bc := range []struct {
		name string
		q    structs.QueryOptions
	}{
		{"unpaged", structs.QueryOptions{Namespace: "default"}},
		{"per_page=100", structs.QueryOptions{Namespace: "default", PerPage: 100}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			e := &Job{d: d}
			for b.Loop() {
				var reply structs.JobListResponse
				if err := e.List(&structs.JobListRequest{QueryOptions: bc.q}, &reply); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
