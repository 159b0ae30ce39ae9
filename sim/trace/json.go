package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// wireJob is a Job as read from a JSON trace: arrival and duration are
// Go duration strings ("90s") or numbers of seconds, parsed by job().
type wireJob struct {
	Arrival     json.RawMessage `json:"arrival"`
	ID          string          `json:"id"`
	Type        string          `json:"type"`
	Priority    int             `json:"priority"`
	Count       int             `json:"count"`
	CPU         int             `json:"cpu,omitempty"`
	MemoryMB    int             `json:"memory_mb"`
	Cores       int             `json:"cores,omitempty"`
	NUMA        string          `json:"numa,omitempty"`
	Duration    json.RawMessage `json:"duration,omitempty"`
	Constraints []Constraint    `json:"constraints,omitempty"`
	Spread      []Spread        `json:"spread,omitempty"`
}

// outJob is a Job as Write puts it in JSON: durations as strings.
type outJob struct {
	Arrival     string       `json:"arrival"`
	ID          string       `json:"id"`
	Type        string       `json:"type"`
	Priority    int          `json:"priority"`
	Count       int          `json:"count"`
	CPU         int          `json:"cpu,omitempty"`
	MemoryMB    int          `json:"memory_mb"`
	Cores       int          `json:"cores,omitempty"`
	NUMA        string       `json:"numa,omitempty"`
	Duration    string       `json:"duration,omitempty"`
	Constraints []Constraint `json:"constraints,omitempty"`
	Spread      []Spread     `json:"spread,omitempty"`
}

// jsonDuration reads "90s", "1h2m" or a number of seconds (90, 1.5);
// absent or null is 0.
func jsonDuration(field string, b json.RawMessage) (time.Duration, error) {
	if len(b) == 0 || string(b) == "null" {
		return 0, nil
	}
	if b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return 0, fmt.Errorf("field %q: %w", field, err)
		}
		v, err := parseDuration(s)
		if err != nil {
			return 0, fmt.Errorf("field %q: %w", field, err)
		}
		return v, nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return 0, fmt.Errorf("field %q: %s is not a duration (\"90s\", \"1h30m\" or seconds)", field, b)
	}
	return secondsToDuration(f), nil
}

// parseDuration reads a Go duration string or a plain number of seconds.
func parseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return secondsToDuration(f), nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration (\"90s\", \"1h30m\" or seconds)", s)
	}
	return v, nil
}

func secondsToDuration(f float64) time.Duration {
	return time.Duration(math.Round(f * float64(time.Second)))
}

func (w *wireJob) job() (Job, error) {
	arrival, err := jsonDuration("arrival", w.Arrival)
	if err != nil {
		return Job{}, err
	}
	duration, err := jsonDuration("duration", w.Duration)
	if err != nil {
		return Job{}, err
	}
	return Job{
		Arrival: arrival, ID: w.ID, Type: w.Type, Priority: w.Priority,
		Count: w.Count, CPU: w.CPU, MemoryMB: w.MemoryMB, Cores: w.Cores, NUMA: w.NUMA,
		Duration: duration, Constraints: w.Constraints, Spread: w.Spread,
	}, nil
}

func toOut(j *Job) outJob {
	o := outJob{
		Arrival: j.Arrival.String(), ID: j.ID, Type: j.Type, Priority: j.Priority,
		Count: j.Count, CPU: j.CPU, MemoryMB: j.MemoryMB, Cores: j.Cores, NUMA: j.NUMA,
		Constraints: j.Constraints, Spread: j.Spread,
	}
	if j.Duration != 0 {
		o.Duration = j.Duration.String()
	}
	return o
}

// jsonReader walks a JSON trace keeping byte offsets, so errors can name
// line:col.
type jsonReader struct {
	name string
	data []byte
	dec  *json.Decoder
	seen map[string]bool
}

// parseJSON reads {"source": .., "jobs": [..]} or a bare array of jobs.
func parseJSON(name string, data []byte) (*Trace, error) {
	r := &jsonReader{name: name, data: data, dec: json.NewDecoder(bytes.NewReader(data)), seen: map[string]bool{}}
	r.dec.DisallowUnknownFields()
	t := &Trace{}
	tok, err := r.dec.Token()
	if err != nil {
		return nil, r.syntax(err)
	}
	switch tok {
	case json.Delim('['):
		if t.Jobs, err = r.jobs(); err != nil {
			return nil, err
		}
	case json.Delim('{'):
		if err := r.object(t); err != nil {
			return nil, err
		}
	default:
		return nil, r.errAt(r.skipBlank(0), "want an object {\"source\":..,\"jobs\":[..]} or an array of jobs")
	}
	end := r.skipBlank(int(r.dec.InputOffset()))
	if _, err := r.dec.Token(); err != io.EOF {
		return nil, r.errAt(end, "unexpected data after the trace")
	}
	return t, nil
}

func (r *jsonReader) object(t *Trace) error {
	for r.dec.More() {
		off := r.skipBlank(int(r.dec.InputOffset()))
		tok, err := r.dec.Token()
		if err != nil {
			return r.syntax(err)
		}
		switch tok {
		case "source":
			if err := r.dec.Decode(&t.Source); err != nil {
				return r.errAt(off, "field \"source\": not a string")
			}
		case "jobs":
			if tok, err := r.dec.Token(); err != nil {
				return r.syntax(err)
			} else if tok != json.Delim('[') {
				return r.errAt(off, "field \"jobs\": not an array")
			}
			if t.Jobs, err = r.jobs(); err != nil {
				return err
			}
		default:
			return r.errAt(off, fmt.Sprintf("unknown field %q (want source, jobs)", tok))
		}
	}
	if _, err := r.dec.Token(); err != nil { // the closing '}'
		return r.syntax(err)
	}
	return nil
}

// jobs reads the array's elements up to and including its ']'. The
// stream decoder reads each job in one pass; only on an error is the job
// decoded again on its own, for the error's exact place.
func (r *jsonReader) jobs() ([]Job, error) {
	var jobs []Job
	for r.dec.More() {
		start := r.skipBlank(int(r.dec.InputOffset()))
		var w wireJob
		if err := r.dec.Decode(&w); err != nil {
			return nil, r.jobErr(start, len(jobs), err)
		}
		j, err := r.job(start, &w, len(jobs))
		if err != nil {
			return nil, err
		}
		jobs = append(jobs, j)
	}
	if _, err := r.dec.Token(); err != nil {
		return nil, r.syntax(err)
	}
	return jobs, nil
}

// jobErr places a job's decoding error: the job is decoded alone from
// its start, so the error's offset is relative to start.
func (r *jsonReader) jobErr(start, index int, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) || err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		return r.syntax(err)
	}
	d := json.NewDecoder(bytes.NewReader(r.data[start:]))
	d.DisallowUnknownFields()
	var w wireJob
	if e := d.Decode(&w); e != nil {
		err = e
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return r.errAt(start+valueStart(r.data[start:], int(te.Offset)), fmt.Sprintf("job %d: field %q: %s is not of type %s", index, te.Field, te.Value, te.Type))
	}
	return r.errAt(start, fmt.Sprintf("job %d: %s", index, strings.TrimPrefix(err.Error(), "json: ")))
}

func (r *jsonReader) job(start int, w *wireJob, index int) (Job, error) {
	j, err := w.job()
	if err != nil {
		return Job{}, r.errAt(start, fmt.Sprintf("job %d (%q): %v", index, w.ID, err))
	}
	j.normalize()
	if err := j.Validate(); err != nil {
		return Job{}, r.errAt(start, fmt.Sprintf("job %d (%q): %v", index, j.ID, err))
	}
	if r.seen[j.ID] {
		return Job{}, r.errAt(start, fmt.Sprintf("job %d: duplicate id %q", index, j.ID))
	}
	r.seen[j.ID] = true
	return j, nil
}

// syntax turns a decoder error into one naming line:col; the decoder's
// own offsets are relative to what it buffered, so the whole input is
// parsed once more for the exact place.
func (r *jsonReader) syntax(err error) error {
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		return r.errAt(len(r.data), "unexpected end of JSON")
	}
	var v any
	if e := json.Unmarshal(r.data, &v); e != nil {
		var se *json.SyntaxError
		if errors.As(e, &se) {
			return r.errAt(int(se.Offset)-1, se.Error())
		}
		err = e
	}
	return r.errAt(int(r.dec.InputOffset()), err.Error())
}

// valueStart finds where the scalar value ending at end (exclusive)
// begins: its opening quote, or just after the ':' before it.
func valueStart(raw []byte, end int) int {
	end = min(end, len(raw))
	i := end - 1
	if i >= 0 && raw[i] == '"' {
		for i--; i >= 0; i-- {
			if raw[i] == '"' && (i == 0 || raw[i-1] != '\\') {
				return i
			}
		}
		return 0
	}
	for i >= 0 && raw[i] != ':' && raw[i] != '[' && raw[i] != ',' {
		i--
	}
	i++
	for i < end && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\r' || raw[i] == '\n') {
		i++
	}
	return i
}

func (r *jsonReader) skipBlank(off int) int {
	for off < len(r.data) && strings.IndexByte(" \t\r\n,:", r.data[off]) >= 0 {
		off++
	}
	return off
}

func (r *jsonReader) errAt(off int, msg string) error {
	line, col := lineCol(r.data, off)
	return fmt.Errorf("%s:%d:%d: %s", r.name, line, col, msg)
}

// lineCol gives the 1-based line and column (in bytes) of offset off.
func lineCol(data []byte, off int) (int, int) {
	off = max(0, min(off, len(data)))
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(data[:off], '\n')
	return line, col
}

func writeJSON(w io.Writer, t *Trace) error {
	out := struct {
		Source string   `json:"source"`
		Jobs   []outJob `json:"jobs"`
	}{Source: t.Source, Jobs: make([]outJob, len(t.Jobs))}
	for i := range t.Jobs {
		out.Jobs[i] = toOut(&t.Jobs[i])
	}
	// One job per line: big traces stay diffable and errors point at a job.
	if _, err := fmt.Fprintf(w, "{\"source\": %s,\n\"jobs\": [\n", quoteJSON(out.Source)); err != nil {
		return err
	}
	for i := range out.Jobs {
		b, err := json.Marshal(&out.Jobs[i])
		if err != nil {
			return fmt.Errorf("encoding job %q: %w", t.Jobs[i].ID, err)
		}
		sep := ",\n"
		if i == len(out.Jobs)-1 {
			sep = "\n"
		}
		if _, err := fmt.Fprintf(w, "  %s%s", b, sep); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, "]}\n")
	return err
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
