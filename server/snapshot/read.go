package snapshot

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
	"hash"
	"io"
	"os"
	"strings"

	"github.com/hashicorp/raft"
)

// Archive is a checked snapshot archive: its metadata and its
// state in a temporary file (positioned at the start). Close removes the
// file.
type Archive struct {
	Meta  *raft.SnapshotMeta
	State *os.File
}

// Close closes and removes the state file.
func (a *Archive) Close() error {
	name := a.State.Name()
	err := a.State.Close()
	if rerr := os.Remove(name); err == nil {
		err = rerr
	}
	return err
}

// Read reads an archive written by Write
// from r, streaming state.bin to a temporary file in dir ("" is the
// system's temporary directory). It holds at most the small members in
// memory, stops as soon as the decompressed stream (tar headers included)
// passes maxBytes (ErrTooLarge), and refuses unknown, duplicate,
// non-regular or missing members, a member over its size, and any member
// that does not match its SHA256SUMS line. Every error wraps
// ErrArchive and leaves no file behind; on success the caller
// must Close the result.
func Read(r io.Reader, dir string, maxBytes int64) (*Archive, error) {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("%w: not gzip: %v", ErrArchive, err)
	}
	f, err := os.CreateTemp(dir, "snapshot-restore-*.bin")
	if err != nil {
		return nil, fmt.Errorf("creating a temporary file for the snapshot: %w", err)
	}
	out := &Archive{State: f}
	meta, err := readArchiveMembers(&capReader{r: gz, left: maxBytes}, f)
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		_ = out.Close()
		return nil, err
	}
	out.Meta = meta
	return out, nil
}

// readArchiveMembers reads the tar stream, writing state.bin to stateOut,
// then checks the sums and decodes the metadata. A member whose header
// declares more than what is left under the cap is refused before it is
// read (tar members hold exactly their declared size).
func readArchiveMembers(r *capReader, stateOut io.Writer) (*raft.SnapshotMeta, error) {
	tr := tar.NewReader(r)
	small := map[string][]byte{}
	seen := map[string]bool{}
	var stateSum hash.Hash
	var stateLen int64
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, archiveErr(err, "reading tar")
		}
		if err := checkMemberHeader(h, seen); err != nil {
			return nil, err
		}
		if h.Size > r.left {
			return nil, fmt.Errorf("%w: member %s declares %d bytes", ErrTooLarge, h.Name, h.Size)
		}
		switch h.Name {
		case StateMember:
			stateSum = sha256.New()
			if stateLen, err = io.Copy(io.MultiWriter(stateOut, stateSum), tr); err != nil {
				return nil, archiveErr(err, "reading "+StateMember)
			}
		default:
			if small[h.Name], err = io.ReadAll(tr); err != nil {
				return nil, archiveErr(err, "reading "+h.Name)
			}
		}
	}
	for _, name := range []string{MetaMember, StateMember, SumsMember} {
		if !seen[name] {
			return nil, fmt.Errorf("%w: no %s", ErrArchive, name)
		}
	}
	metaSum := sha256.Sum256(small[MetaMember])
	if err := checkSums(small[SumsMember], map[string][]byte{MetaMember: metaSum[:], StateMember: stateSum.Sum(nil)}); err != nil {
		return nil, err
	}
	var meta raft.SnapshotMeta
	if err := json.Unmarshal(small[MetaMember], &meta); err != nil {
		return nil, fmt.Errorf("%w: decoding %s: %v", ErrArchive, MetaMember, err)
	}
	if meta.Size != stateLen {
		return nil, fmt.Errorf("%w: %s says the state has %d bytes, it has %d", ErrArchive, MetaMember, meta.Size, stateLen)
	}
	return &meta, nil
}

// checkMemberHeader refuses a member that is not one of the three regular
// files, is seen twice, or (meta.json, SHA256SUMS) is over its size bound;
// it records the name in seen.
func checkMemberHeader(h *tar.Header, seen map[string]bool) error {
	limit := map[string]int64{MetaMember: maxArchiveMeta, SumsMember: maxArchiveSums, StateMember: -1}
	bound, known := limit[h.Name]
	switch {
	case !known:
		return fmt.Errorf("%w: unexpected member %q (an archive holds only %s, %s and %s)", ErrArchive, h.Name, MetaMember, StateMember, SumsMember)
	case seen[h.Name]:
		return fmt.Errorf("%w: member %s appears twice", ErrArchive, h.Name)
	case h.Typeflag != tar.TypeReg:
		return fmt.Errorf("%w: member %s is not a regular file", ErrArchive, h.Name)
	case bound >= 0 && h.Size > bound:
		return fmt.Errorf("%w: member %s has %d bytes, over its limit of %d", ErrArchive, h.Name, h.Size, bound)
	case len(seen) >= maxArchiveMembers:
		return fmt.Errorf("%w: more than %d members", ErrArchive, maxArchiveMembers)
	}
	seen[h.Name] = true
	return nil
}

// archiveErr wraps a read error: ErrTooLarge stays itself, others
// become ErrArchive with what was being read.
func archiveErr(err error, doing string) error {
	if errors.Is(err, ErrTooLarge) {
		return err
	}
	return fmt.Errorf("%w: %s: %v", ErrArchive, doing, err)
}

// checkSums verifies each of got (name to SHA-256) against the SHA256SUMS
// member sums ("<hex>  <name>" lines).
func checkSums(sums []byte, got map[string][]byte) error {
	want := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(sums))
	for sc.Scan() {
		if sum, name, ok := strings.Cut(sc.Text(), "  "); ok {
			want[name] = sum
		}
	}
	for _, name := range []string{MetaMember, StateMember} {
		if want[name] != hex.EncodeToString(got[name]) {
			return fmt.Errorf("%w: %s does not match its SHA256SUMS line", ErrArchive, name)
		}
	}
	return nil
}

// capReader reads from r until left bytes were read, then fails with
// ErrTooLarge (it reads one byte past the cap to tell a stream of
// exactly left bytes from a longer one).
type capReader struct {
	r    io.Reader
	left int64
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left < 0 {
		return 0, ErrTooLarge
	}
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	if c.left < 0 {
		return n, ErrTooLarge
	}
	return n, err
}
