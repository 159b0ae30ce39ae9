package cluster

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2/hclsimple"
)

// LoadFile reads a Spec from a JSON file (fields as Spec's json tags) or,
// for a name ending in .hcl, an HCL file:
//
//	nodes       = 5000
//	datacenters = ["dc1", "dc2"]
//	racks       = 20
//	class "big" {
//	  weight = 1
//	  sockets = 2
//	  cores_per_socket = 32
//	  threads_per_core = 2
//	  mhz = 2400
//	  memory_mb = 524288
//	  meta = { tier = "gold" }
//	}
//
// Errors name the file and the place: line:column for HCL, the byte
// offset for JSON. The spec is validated.
func LoadFile(path string) (Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Spec{}, fmt.Errorf("reading cluster file: %w", err)
	}
	var s Spec
	if strings.EqualFold(filepath.Ext(path), ".hcl") {
		if err := hclsimple.Decode(path, data, nil, &s); err != nil {
			return Spec{}, fmt.Errorf("%w: %v", ErrBadSpec, err)
		}
	} else if err := decodeJSON(data, &s); err != nil {
		return Spec{}, fmt.Errorf("%s: %w", path, err)
	}
	if err := s.Validate(); err != nil {
		return Spec{}, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// decodeJSON decodes strictly (unknown fields are errors), naming the
// byte offset of a syntax or type error.
func decodeJSON(data []byte, s *Spec) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(s)
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case err == nil:
		if _, err := dec.Token(); !errors.Is(err, io.EOF) {
			return fmt.Errorf("%w: offset %d: data after the spec object", ErrBadSpec, dec.InputOffset())
		}
		return nil
	case errors.As(err, &syn):
		return fmt.Errorf("%w: offset %d: %v", ErrBadSpec, syn.Offset, err)
	case errors.As(err, &typ):
		return fmt.Errorf("%w: offset %d: field %q: %v", ErrBadSpec, typ.Offset, typ.Field, err)
	}
	return fmt.Errorf("%w: offset %d: %v", ErrBadSpec, dec.InputOffset(), err)
}
