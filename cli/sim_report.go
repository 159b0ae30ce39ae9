package cli

// `sim report`: the HTML report of one `sim run -json` or `sim cluster
// -json` output, or the comparison of two or more (website/sim.md,
// "Reports").

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/nomadish/nomadish/sim/report"
)

// simReportCommand is `sim report [-o out.html] run.json [other.json...]`:
// it reads the JSON reports and writes one self-contained HTML page to -o
// (stdout without it).
func simReportCommand(m *Meta, args []string) int {
	f := m.newLocalFlags("sim report", "[-o out.html] run.json [other.json ...]")
	out := f.String("o", "", "Write the HTML `file` here instead of stdout")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) == 0 {
		return m.wrongArgs(f, "one report file, or more to compare")
	}
	runs := make([]*report.Report, 0, len(pos))
	for _, path := range pos {
		r, err := readSimReport(path)
		if err != nil {
			return m.errorf("reading report: %v", err)
		}
		runs = append(runs, r)
	}
	var page bytes.Buffer
	if err := report.WriteHTML(&page, runs...); err != nil {
		return m.errorf("rendering report: %v", err)
	}
	if *out == "" {
		if _, err := m.Out.Write(page.Bytes()); err != nil {
			return m.errorf("writing report: %v", err)
		}
		return exitOK
	}
	if err := os.WriteFile(*out, page.Bytes(), 0o644); err != nil {
		return m.errorf("writing report: %v", err)
	}
	fmt.Fprintf(m.Out, "Wrote the report of %d run(s) to %s\n", len(runs), *out)
	return exitOK
}

// readSimReport reads one report as `sim run -json` prints it. Errors name
// the file and, for bad JSON, the line:column and field; a JSON document
// that is not a report (no mode, unknown fields) is refused.
func readSimReport(path string) (*report.Report, error) {
	var data []byte
	var err error
	if path == "-" {
		data, err = io.ReadAll(os.Stdin)
	} else {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var r report.Report
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("%s:%s", path, jsonErrorAt(data, err, dec.InputOffset()))
	}
	if dec.More() {
		next := dec.InputOffset() + int64(len(data[dec.InputOffset():])-len(bytes.TrimLeft(data[dec.InputOffset():], " \t\r\n")))
		return nil, fmt.Errorf("%s:%s: data after the report's JSON object", path, lineCol(data, next))
	}
	if r.Mode == "" {
		return nil, fmt.Errorf(`%s: not a sim report: no "mode" field (expected the output of sim run -json or sim cluster -json)`, path)
	}
	return &r, nil
}

// jsonErrorAt is a decoding error as "line:column: message" in data (to
// follow "file:"); at is the decoder's offset, used when the error
// carries none.
func jsonErrorAt(data []byte, err error, at int64) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		at = syn.Offset
	case errors.As(err, &typ):
		return fmt.Sprintf("%s: field %q: %v", lineCol(data, typ.Offset), typ.Field, err)
	case errors.Is(err, io.EOF):
		return " empty file, expected a JSON report"
	}
	return fmt.Sprintf("%s: %v", lineCol(data, at), err)
}

// lineCol is the 1-based "line:column" of byte offset off in data.
func lineCol(data []byte, off int64) string {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := len(before) - bytes.LastIndexByte(before, '\n')
	return fmt.Sprintf("%d:%d", line, col)
}
