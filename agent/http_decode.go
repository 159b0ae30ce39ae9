package agent

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/nomadish/nomadish/structs"
)

// badRequest returns a 400 coded error.
func badRequest(format string, args ...any) error {
	return structs.NewCodedError(structs.ErrCodeBadRequest, format, args...)
}

// decodeBody reads the (capped) request body as JSON into out. Unknown fields
// are ignored, as Nomad does. Errors are coded: 415 for a body declared as
// something other than JSON (checkJSONBody), 413 for an oversized body, 400
// naming the place (line, column, field) of malformed JSON or of a null
// list member ("Job.TaskGroups[0] is null", structs.CheckDecoded).
func decodeBody(r *http.Request, out any) error {
	_, err := decodeBodyRaw(r, out)
	return err
}

// decodeBodyRaw is decodeBody that also returns the body read (for the
// register warnings, json_warnings.go).
func decodeBodyRaw(r *http.Request, out any) ([]byte, error) {
	if err := checkJSONBody(r); err != nil {
		return nil, err
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, structs.NewCodedError(structs.ErrCodeTooLarge, "request body too large: the limit is %d bytes", mbe.Limit)
		}
		return nil, badRequest("reading request body: %v", err)
	}
	if len(body) == 0 {
		return nil, badRequest("request body is empty")
	}
	if err := json.Unmarshal(body, out); err != nil {
		return nil, jsonError(body, err)
	}
	return body, structs.CheckDecoded(out) // 400 naming a null list member
}

// jsonError turns a json.Unmarshal error into a 400 naming where it is.
func jsonError(body []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		// Offset counts the bytes read, the offending one included.
		line, col := lineCol(body, max(se.Offset-1, 0))
		return badRequest("invalid JSON at line %d, column %d (offset %d): %v", line, col, se.Offset, se)
	case errors.As(err, &te):
		line, col := lineCol(body, te.Offset)
		return badRequest("invalid JSON at line %d, column %d: field %q: cannot use a JSON %s as %v", line, col, te.Field, te.Value, te.Type)
	default:
		return badRequest("invalid JSON: %v", err)
	}
}

// lineCol converts a byte offset into a 1-based line and column.
func lineCol(b []byte, off int64) (int, int) {
	if off > int64(len(b)) {
		off = int64(len(b))
	}
	line, col := 1, 1
	for _, c := range b[:off] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}
