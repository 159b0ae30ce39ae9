package server

import (
	"archive/tar"
	"bufio"
	"bytes"
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

// ErrSnapshotArchive is returned (wrapped, with what is wrong) for an
// archive that is not a well-formed snapshot written by SnapshotSave.
var ErrSnapshotArchive = errors.New("server: bad snapshot archive")

// Archive member names, as Nomad's (and Consul's) snapshot archives.
const (
	archiveMeta  = "meta.json"
	archiveState = "state.bin"
	archiveSums  = "SHA256SUMS"
)

// maxArchiveMember bounds one decompressed member (a gzip bomb guard).
const maxArchiveMember = 1 << 30

// writeSnapshotArchive writes meta and the FSM state read from state as a
// gzipped tar of meta.json, state.bin and SHA256SUMS to w.
func writeSnapshotArchive(w io.Writer, meta *raft.SnapshotMeta, state io.Reader) error {
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
	}{{archiveMeta, metaBuf}, {archiveState, stateBuf}} {
		sum := sha256.Sum256(f.b)
		fmt.Fprintf(&sums, "%s  %s\n", hex.EncodeToString(sum[:]), f.name)
	}
	gz := gzip.NewWriter(w)
	tw := tar.NewWriter(gz)
	now := time.Now()
	for _, f := range []struct {
		name string
		b    []byte
	}{{archiveMeta, metaBuf}, {archiveState, stateBuf}, {archiveSums, []byte(sums.String())}} {
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

// readSnapshotArchive reads an archive written by writeSnapshotArchive and
// checks every member against SHA256SUMS. Errors wrap ErrSnapshotArchive.
func readSnapshotArchive(r io.Reader) (*raft.SnapshotMeta, []byte, error) {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: not gzip: %v", ErrSnapshotArchive, err)
	}
	tr := tar.NewReader(gz)
	members := map[string][]byte{}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%w: reading tar: %v", ErrSnapshotArchive, err)
		}
		b, err := io.ReadAll(io.LimitReader(tr, maxArchiveMember+1))
		if err != nil || len(b) > maxArchiveMember {
			return nil, nil, fmt.Errorf("%w: reading %s: too large or truncated", ErrSnapshotArchive, h.Name)
		}
		members[h.Name] = b
	}
	for _, name := range []string{archiveMeta, archiveState, archiveSums} {
		if _, ok := members[name]; !ok {
			return nil, nil, fmt.Errorf("%w: no %s", ErrSnapshotArchive, name)
		}
	}
	if err := checkSums(members); err != nil {
		return nil, nil, err
	}
	var meta raft.SnapshotMeta
	if err := json.Unmarshal(members[archiveMeta], &meta); err != nil {
		return nil, nil, fmt.Errorf("%w: decoding %s: %v", ErrSnapshotArchive, archiveMeta, err)
	}
	return &meta, members[archiveState], nil
}

// checkSums verifies meta.json and state.bin against SHA256SUMS.
func checkSums(members map[string][]byte) error {
	want := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(members[archiveSums]))
	for sc.Scan() {
		if sum, name, ok := strings.Cut(sc.Text(), "  "); ok {
			want[name] = sum
		}
	}
	for _, name := range []string{archiveMeta, archiveState} {
		sum := sha256.Sum256(members[name])
		if want[name] != hex.EncodeToString(sum[:]) {
			return fmt.Errorf("%w: %s does not match its SHA256SUMS line", ErrSnapshotArchive, name)
		}
	}
	return nil
}
