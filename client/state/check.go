package state

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"runtime/debug"

	bolt "go.etcd.io/bbolt"

	"github.com/nomadish/nomadish/structs"
)

// ErrCorrupt wraps every reason a state file is refused by Open: bad meta
// pages, a file shorter than its pages, a page fault or a panic while
// reading it, or a value that does not decode.
var ErrCorrupt = errors.New("state: state file is corrupt")

// bbolt's on-disk constants (go.etcd.io/bbolt internal/common): the meta
// page layout is stable across bbolt 1.x.
const (
	boltMagic      = 0xED0CDAED
	boltVersion    = 2
	pageHeaderSize = 16 // id u64, flags u16, count u16, overflow u32
	metaSize       = 64 // magic, version, pageSize, flags u32; root, seq, freelist, pgid, txid, checksum u64
	minPageSize    = 512
	maxPageSize    = 1 << 16
)

// meta is the part of a bbolt meta page the check uses.
type meta struct {
	pageSize uint32
	root     uint64 // root bucket's page
	pgid     uint64 // high-water mark: pages [0, pgid) are in the file
	txid     uint64
}

// checkFile validates path before bbolt maps it: at least one of the two
// meta pages has bbolt's magic, version and checksum, and the file holds
// every page the newest valid meta counts (a shorter file is what makes
// bbolt die with SIGBUS on its mmap), and that its page tree is sound
// (walkPages). A missing or empty file is fine:
// bbolt creates it.
func checkFile(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("opening %s: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("stat %s: %w", path, err)
	}
	if fi.Size() == 0 {
		return nil
	}
	m0, err0 := readMeta(f, 0)
	var best *meta
	if err0 == nil {
		best = m0
	}
	// The second meta page is one page in; its size comes from the first
	// (or, with the first destroyed, from a common page size).
	sizes := []int64{4096, 16384, 65536, 8192, 1024, 2048, 32768, 512}
	if m0 != nil {
		sizes = []int64{int64(m0.pageSize)}
	}
	for _, ps := range sizes {
		if m1, err := readMeta(f, ps); err == nil {
			if best == nil || m1.txid > best.txid {
				best = m1
			}
			break
		}
	}
	if best == nil {
		return fmt.Errorf("%w: no valid meta page (%v)", ErrCorrupt, err0)
	}
	if need := int64(best.pgid) * int64(best.pageSize); fi.Size() < need {
		return fmt.Errorf("%w: file is %d bytes but its meta counts %d pages of %d bytes (%d bytes): truncated",
			ErrCorrupt, fi.Size(), best.pgid, best.pageSize, need)
	}
	return walkPages(f, best)
}

// readMeta reads and validates the meta page at offset off.
func readMeta(r io.ReaderAt, off int64) (*meta, error) {
	buf := make([]byte, pageHeaderSize+metaSize)
	if _, err := r.ReadAt(buf, off); err != nil {
		return nil, fmt.Errorf("reading meta page at %d: %w", off, err)
	}
	b := buf[pageHeaderSize:]
	le := binary.LittleEndian
	if le.Uint32(b[0:]) != boltMagic {
		return nil, fmt.Errorf("meta page at %d: bad magic", off)
	}
	if v := le.Uint32(b[4:]); v != boltVersion {
		return nil, fmt.Errorf("meta page at %d: version %d", off, v)
	}
	h := fnv.New64a()
	h.Write(b[:metaSize-8])
	if h.Sum64() != le.Uint64(b[metaSize-8:]) {
		return nil, fmt.Errorf("meta page at %d: checksum mismatch", off)
	}
	m := &meta{pageSize: le.Uint32(b[8:]), root: le.Uint64(b[16:]), pgid: le.Uint64(b[40:]), txid: le.Uint64(b[48:])}
	if m.pageSize < minPageSize || m.pageSize > maxPageSize || m.pageSize&(m.pageSize-1) != 0 {
		return nil, fmt.Errorf("meta page at %d: page size %d", off, m.pageSize)
	}
	if m.pgid < 4 { // two metas, a freelist and a root page at least
		return nil, fmt.Errorf("meta page at %d: high-water page %d", off, m.pgid)
	}
	return m, nil
}

// guarded runs fn with faults on mapped memory turned into panics
// (debug.SetPanicOnFault, this goroutine only) and turns any panic into
// an ErrCorrupt error naming what was being done.
func guarded(what string, fn func() error) (err error) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %s: %v", ErrCorrupt, what, r)
		}
	}()
	return fn()
}

// walk reads every bucket, key and value of db and decodes the stored
// allocations and task states, so a corrupt page is met here (on a
// guarded goroutine) and not later in a task runner.
func walk(db *bolt.DB) error {
	return db.View(func(tx *bolt.Tx) error {
		if err := tx.ForEach(func(name []byte, b *bolt.Bucket) error { return walkBucket(b, 0) }); err != nil {
			return err
		}
		if b := tx.Bucket(bucketAllocs); b != nil {
			return b.ForEach(func(k, v []byte) error {
				var a structs.Allocation
				if err := structs.Decode(v, &a); err != nil {
					return fmt.Errorf("%w: alloc %q does not decode: %v", ErrCorrupt, k, err)
				}
				return nil
			})
		}
		return nil
	})
}

// walkBucket touches every key and value of b and its sub-buckets.
func walkBucket(b *bolt.Bucket, depth int) error {
	if depth > 8 {
		return fmt.Errorf("%w: buckets nested deeper than the client writes", ErrCorrupt)
	}
	return b.ForEach(func(k, v []byte) error {
		if v == nil {
			if sub := b.Bucket(k); sub != nil {
				return walkBucket(sub, depth+1)
			}
			return nil
		}
		var sink byte
		for _, c := range v {
			sink ^= c
		}
		_ = sink
		return nil
	})
}
