package trace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Formats Read and Write know.
const (
	FormatJSON = "json"
	FormatCSV  = "csv"
)

// ErrFormat is returned (wrapped) for a format name or file extension
// that is neither JSON nor CSV.
var ErrFormat = errors.New("trace: unknown format (want json or csv)")

// Read reads a trace file: JSON for a ".json" name, CSV for ".csv", and
// otherwise JSON if the first non-blank byte is '{' or '[' and CSV if not.
// Every job is validated and the jobs are sorted by arrival (stable, so
// jobs arriving together keep the file's order). Errors name the place:
// "file.csv:12: ..." for CSV, "file.json:3:17: ..." for JSON.
func Read(path string) (*Trace, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading trace: %w", err)
	}
	format := FormatFor(path, data)
	return Parse(path, format, data)
}

// FormatFor guesses a trace's format from its file name, then its content.
func FormatFor(path string, data []byte) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json":
		return FormatJSON
	case ".csv":
		return FormatCSV
	}
	if t := bytes.TrimLeft(data, " \t\r\n\ufeff"); len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		return FormatJSON
	}
	return FormatCSV
}

// Parse parses a trace in the given format; name is used in error
// messages and as the trace's Source when the file names none.
func Parse(name, format string, data []byte) (*Trace, error) {
	var (
		t   *Trace
		err error
	)
	switch format {
	case FormatJSON:
		t, err = parseJSON(name, data)
	case FormatCSV:
		t, err = parseCSV(name, data)
	default:
		return nil, fmt.Errorf("%s: %w: %q", name, ErrFormat, format)
	}
	if err != nil {
		return nil, err
	}
	if t.Source == "" {
		t.Source = name
	}
	t.Sort()
	return t, nil
}

// Write writes t in format ("json" or "csv") so that Read gives it back:
// durations are written as Go duration strings ("1m30s").
func Write(w io.Writer, t *Trace, format string) error {
	switch format {
	case FormatJSON:
		return writeJSON(w, t)
	case FormatCSV:
		return writeCSV(w, t)
	}
	return fmt.Errorf("%w: %q", ErrFormat, format)
}

// Sort orders the jobs by arrival, keeping the order of equal arrivals.
func (t *Trace) Sort() {
	sort.SliceStable(t.Jobs, func(a, b int) bool { return t.Jobs[a].Arrival < t.Jobs[b].Arrival })
}
