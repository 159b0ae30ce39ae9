package trace

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// CSVColumns are the columns of a CSV trace, in the order Write puts
// them. A file names its columns in a header row, in any order; arrival,
// id, type, priority, count and memory_mb are required.
var CSVColumns = []string{"arrival", "id", "type", "priority", "count", "cpu", "memory_mb", "cores", "numa", "duration", "constraints", "spread"}

var csvRequired = []string{"arrival", "id", "type", "priority", "count", "memory_mb"}

// parseCSV reads a CSV trace: a header row, then one job per row.
// Constraints are "attr op value" separated by ';' ("${meta.rack} = r1;
// distinct_hosts"); spreads are "attr[:weight]" separated by ';'.
func parseCSV(name string, data []byte) (*Trace, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.Comment = '#'
	r.TrimLeadingSpace = true
	header, err := r.Read()
	if err != nil {
		if err == io.EOF {
			return nil, fmt.Errorf("%s:1: empty file (want a header row naming columns %s)", name, strings.Join(CSVColumns, ","))
		}
		return nil, csvErr(name, err)
	}
	col := map[string]int{}
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		if !isColumn(h) {
			return nil, fmt.Errorf("%s:1: unknown column %q (want %s)", name, h, strings.Join(CSVColumns, ","))
		}
		if _, dup := col[h]; dup {
			return nil, fmt.Errorf("%s:1: column %q appears twice", name, h)
		}
		col[h] = i
	}
	for _, c := range csvRequired {
		if _, ok := col[c]; !ok {
			return nil, fmt.Errorf("%s:1: missing column %q", name, c)
		}
	}
	t := &Trace{}
	seen := map[string]int{}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvErr(name, err)
		}
		line, _ := r.FieldPos(0)
		row := csvRow{rec: rec, col: col}
		j, err := row.job()
		if err == nil {
			j.normalize()
			err = j.Validate()
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if prev, ok := seen[j.ID]; ok {
			return nil, fmt.Errorf("%s:%d: duplicate id %q (first on line %d)", name, line, j.ID, prev)
		}
		seen[j.ID] = line
		t.Jobs = append(t.Jobs, j)
	}
	return t, nil
}

func isColumn(h string) bool {
	for _, c := range CSVColumns {
		if c == h {
			return true
		}
	}
	return false
}

func csvErr(name string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s:%d: %v", name, pe.Line, pe.Err)
	}
	return fmt.Errorf("%s: %w", name, err)
}

// csvRow reads one record's columns by name.
type csvRow struct {
	rec []string
	col map[string]int
}

func (r csvRow) str(name string) string {
	i, ok := r.col[name]
	if !ok || i >= len(r.rec) {
		return ""
	}
	return strings.TrimSpace(r.rec[i])
}

func (r csvRow) int(name string) (int, error) {
	s := r.str(name)
	if s == "" {
		return 0, nil
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("column %q: %q is not a number", name, s)
	}
	return v, nil
}

func (r csvRow) duration(name string) (time.Duration, error) {
	v, err := parseDuration(r.str(name))
	if err != nil {
		return 0, fmt.Errorf("column %q: %w", name, err)
	}
	return v, nil
}

func (r csvRow) job() (Job, error) {
	j := Job{ID: r.str("id"), Type: r.str("type"), NUMA: r.str("numa")}
	var err error
	if j.Arrival, err = r.duration("arrival"); err != nil {
		return j, err
	}
	if j.Duration, err = r.duration("duration"); err != nil {
		return j, err
	}
	for _, f := range []struct {
		name string
		dst  *int
	}{{"priority", &j.Priority}, {"count", &j.Count}, {"cpu", &j.CPU}, {"memory_mb", &j.MemoryMB}, {"cores", &j.Cores}} {
		if *f.dst, err = r.int(f.name); err != nil {
			return j, err
		}
	}
	if j.Constraints, err = parseConstraints(r.str("constraints")); err != nil {
		return j, fmt.Errorf("column \"constraints\": %w", err)
	}
	if j.Spread, err = parseSpreads(r.str("spread")); err != nil {
		return j, fmt.Errorf("column \"spread\": %w", err)
	}
	return j, nil
}

// parseConstraints reads "attr op value;..." ("distinct_hosts" alone,
// "attr op" for an operator without a value such as is_set).
func parseConstraints(s string) ([]Constraint, error) {
	var out []Constraint
	for _, part := range splitList(s) {
		f := strings.Fields(part)
		var c Constraint
		switch len(f) {
		case 1:
			if f[0] != "distinct_hosts" {
				return nil, fmt.Errorf("%q: want \"attribute operator value\"", part)
			}
			c.Operator = f[0]
		case 2:
			c.Attribute, c.Operator = f[0], f[1]
		default:
			c.Attribute, c.Operator = f[0], f[1]
			rest := strings.TrimSpace(strings.TrimSpace(part)[len(f[0]):])
			c.Value = strings.TrimSpace(rest[len(f[1]):])
		}
		out = append(out, c)
	}
	return out, nil
}

// parseSpreads reads "attr[:weight];...".
func parseSpreads(s string) ([]Spread, error) {
	var out []Spread
	for _, part := range splitList(s) {
		sp := Spread{Attribute: part}
		if i := strings.LastIndexByte(part, ':'); i >= 0 && !strings.HasSuffix(part, "}") {
			w, err := strconv.Atoi(strings.TrimSpace(part[i+1:]))
			if err != nil {
				return nil, fmt.Errorf("%q: weight %q is not a number", part, part[i+1:])
			}
			sp.Attribute, sp.Weight = strings.TrimSpace(part[:i]), w
		}
		out = append(out, sp)
	}
	return out, nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ";") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func writeCSV(w io.Writer, t *Trace) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVColumns); err != nil {
		return err
	}
	rec := make([]string, len(CSVColumns))
	for i := range t.Jobs {
		j := &t.Jobs[i]
		cons, err := formatConstraints(j.Constraints)
		if err != nil {
			return fmt.Errorf("job %q: %w", j.ID, err)
		}
		rec = append(rec[:0], j.Arrival.String(), j.ID, j.Type, strconv.Itoa(j.Priority), strconv.Itoa(j.Count),
			optInt(j.CPU), strconv.Itoa(j.MemoryMB), optInt(j.Cores), j.NUMA, optDuration(j.Duration),
			cons, formatSpreads(j.Spread))
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func formatConstraints(cs []Constraint) (string, error) {
	parts := make([]string, 0, len(cs))
	for _, c := range cs {
		for _, s := range []string{c.Attribute, c.Operator} {
			if strings.ContainsAny(s, "; \t") {
				return "", fmt.Errorf("constraint %q cannot be written as CSV (contains ';' or a space)", s)
			}
		}
		if strings.Contains(c.Value, ";") {
			return "", fmt.Errorf("constraint value %q cannot be written as CSV (contains ';')", c.Value)
		}
		p := strings.TrimSpace(strings.Join([]string{c.Attribute, c.Operator, c.Value}, " "))
		parts = append(parts, p)
	}
	return strings.Join(parts, ";"), nil
}

func formatSpreads(ss []Spread) string {
	parts := make([]string, 0, len(ss))
	for _, s := range ss {
		if s.Weight != 0 {
			parts = append(parts, s.Attribute+":"+strconv.Itoa(s.Weight))
		} else {
			parts = append(parts, s.Attribute)
		}
	}
	return strings.Join(parts, ";")
}

func optInt(v int) string {
	if v == 0 {
		return ""
	}
	return strconv.Itoa(v)
}

func optDuration(d time.Duration) string {
	if d == 0 {
		return ""
	}
	return d.String()
}
