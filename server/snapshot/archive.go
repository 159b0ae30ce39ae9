package snapshot

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/hashicorp/raft"
)

// Sentinel errors (their text keeps the server's prefix: it reaches
// operators in HTTP answers).
var (
	// ErrArchive is returned (wrapped, with what is wrong) for an archive
	// that is not a well-formed snapshot written by Write.
	ErrArchive = errors.New("server: bad snapshot archive")
	// ErrTooLarge is returned (wrapped) for an archive whose decompressed
	// content exceeds the restore cap; it wraps ErrArchive too.
	ErrTooLarge = fmt.Errorf("%w: decompressed size over the restore limit", ErrArchive)
)

// Archive member names, as Nomad's (and Consul's) snapshot archives.
const (
	MetaMember  = "meta.json"
	StateMember = "state.bin"
	SumsMember  = "SHA256SUMS"
)

// Restore limits (an archive is untrusted input: a gzip bomb or a tar of
// many members must be refused without exhausting memory or disk).
const (
	// DefaultRestoreMaxBytes is the default cap on an archive's
	// decompressed size, tar headers included (server
	// Config.SnapshotRestoreMaxBytes, agent key
	// server.snapshot_restore_max_mb).
	DefaultRestoreMaxBytes = 4 << 30
	// maxArchiveMeta and maxArchiveSums bound the small members, read into
	// memory; state.bin is streamed to a temporary file.
	maxArchiveMeta = 1 << 20
	maxArchiveSums = 4 << 10
	// maxArchiveMembers is the number of members an archive has.
	maxArchiveMembers = 3
)

// Write writes meta and the FSM state read from state (a raft snapshot's
// content) as a gzipped tar of meta.json, state.bin and SHA256SUMS to w.
func Write(w io.Writer, meta *raft.SnapshotMeta, state io.Reader) error {
	stateBuf, err := io.ReadAll(state)
	if err != nil {
		return fmt.Errorf("reading snapshot state: %w", err)
	}
	m := *meta
	m.Size = int64(len(stateBuf))
	metaBuf, err := json.Marshal(&m)
	if err != nil {
		return fmt.Errorf("encoding snapshot metadata: %w", err)
	}
	var sums strings.Builder
	for _, f := range []struct {
		name string
		b    []byte
	}{{MetaMember, metaBuf}, {StateMember, stateBuf}} {
		sum := sha256.Sum256(f.b)
		fmt.Fprintf(&sums, "%s  %s\n", hex.EncodeToString(sum[:]), f.name)
	}
	gz := gzip.NewWriter(w)
	tw := tar.NewWriter(gz)
	now := time.Now() // the archive files' mtime on the operator's disk, not state: wall time
	for _, f := range []struct {
		name string
		b    []byte
	}{{MetaMember, metaBuf}, {StateMember, stateBuf}, {SumsMember, []byte(sums.String())}} {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: 0o600, Size: int64(len(f.b)), ModTime: now}); err != nil {
			return fmt.Errorf("writing snapshot archive: %w", err)
		}
		if _, err := tw.Write(f.b); err != nil {
			return fmt.Errorf("writing snapshot archive: %w", err)
		}
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("writing snapshot archive: %w", err)
	}
	return gz.Close()
}
