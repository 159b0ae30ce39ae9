package snapshot

import (
	"bytes"
	"errors"
	"io"

	"github.com/nomadish/nomadish/structs"
)

// Open reads archive (Read, its state streamed to a temporary file in dir,
// "" the system's temporary directory) under maxBytes of decompressed
// content (0 or less: DefaultRestoreMaxBytes), then has check decode the
// state (fsm.CheckSnapshot), so a restore starts only with a state the FSM
// can load. Errors are coded: 400 for a bad archive, 500 for local I/O. On
// success the caller must Close the result; its State is at the start.
func Open(archive []byte, dir string, maxBytes int64, check func(io.Reader) error) (*Archive, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultRestoreMaxBytes
	}
	arc, err := Read(bytes.NewReader(archive), dir, maxBytes)
	if errors.Is(err, ErrArchive) {
		if errors.Is(err, ErrTooLarge) {
			return nil, structs.NewCodedError(structs.ErrCodeBadRequest, "%v (%d bytes; server.snapshot_restore_max_mb)", err, maxBytes)
		}
		return nil, structs.NewCodedError(structs.ErrCodeBadRequest, "%v", err)
	}
	if err != nil {
		return nil, err
	}
	if err := check(arc.State); err != nil {
		_ = arc.Close()
		return nil, structs.NewCodedError(structs.ErrCodeBadRequest, "%v: %s does not decode: %v", ErrArchive, StateMember, err)
	}
	if _, err := arc.State.Seek(0, io.SeekStart); err != nil {
		_ = arc.Close()
		return nil, err
	}
	return arc, nil
}
