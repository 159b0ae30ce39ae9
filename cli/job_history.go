package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/nomadish/nomadish/structs"
)

// jobVersions is GET /v1/job/:id/versions (?diffs=true).
func (c *apiClient) jobVersions(id string, diffs bool) (*structs.JobVersionsResponse, error) {
	var out structs.JobVersionsResponse
	q := url.Values{"diffs": {strconv.FormatBool(diffs)}}
	_, err := c.do(http.MethodGet, "/v1/job/"+esc(id)+"/versions", q, nil, &out)
	return &out, err
}

// jobHistoryCommand is `job history [-p] [-full] [-version N] JOB`: the
// job's kept versions, newest first, as Nomad prints them; -p adds the
// diff from the previous version, -full the whole job's JSON.
func jobHistoryCommand(m *Meta, args []string) int {
	f := m.newFlags("job history", "[options] JOB")
	diffs := f.Bool("p", false, "show the difference between each version and the previous one")
	full := f.Bool("full", false, "show the full job of each version")
	versionFlag := f.String("version", "", "show only this version")
	ff := addFormatFlags(f)
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return m.wrongArgs(f, "one argument: the job ID")
	}
	var only *uint64
	if *versionFlag != "" {
		v, err := strconv.ParseUint(*versionFlag, 10, 64)
		if err != nil {
			return m.errorf("parsing flags: -version %q is not a version number", *versionFlag)
		}
		only = &v
	}
	c := m.client(f)
	id, ok := resolveID(m, jobMatcher(c), pos[0])
	if !ok {
		return exitError
	}
	resp, err := c.jobVersions(id, *diffs)
	if err != nil {
		return m.errorf("retrieving job versions: %v", err)
	}
	if code, done := ff.print(m, resp.Versions); done {
		return code
	}
	var blocks []string
	for i, j := range resp.Versions {
		if only != nil && j.Version != *only {
			continue
		}
		var d *structs.JobDiff
		if *diffs && i < len(resp.Diffs) {
			d = resp.Diffs[i]
		}
		blocks = append(blocks, formatJobVersion(j, d, *full))
	}
	if only != nil && len(blocks) == 0 {
		return m.errorf("job %q has no version %d", id, *only)
	}
	fmt.Fprintln(m.Out, strings.Join(blocks, "\n\n"))
	return exitOK
}

// formatJobVersion is one version's block: Version, Stable, Submit Date,
// and the diff (or the job's JSON) when given.
func formatJobVersion(j *structs.Job, d *structs.JobDiff, full bool) string {
	var b strings.Builder
	pairs := []string{
		"Version", strconv.FormatUint(j.Version, 10),
		"Stable", strconv.FormatBool(j.Stable),
		"Submit Date", formatTime(unixNano(j.SubmitTime)),
	}
	if d != nil {
		pairs = append(pairs, "Diff", "")
	}
	kv(&b, pairs...)
	out := strings.TrimRight(b.String(), "\n ")
	if d != nil {
		out += "\n" + strings.TrimSpace(formatJobDiff(d, false))
	}
	if full {
		out += "\n" + strings.TrimRight(jobJSON(j), "\n")
	}
	return out
}

// jobJSON is the job as indented JSON (for -full).
func jobJSON(j *structs.Job) string {
	buf, err := json.MarshalIndent(j, "", "    ")
	if err != nil {
		return fmt.Sprintf("(encoding job: %v)", err)
	}
	return string(buf)
}
