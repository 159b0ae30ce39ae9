package state

import (
	"encoding/binary"
	"fmt"
	"io"
)

// bbolt page layout (go.etcd.io/bbolt internal/common, stable in 1.x).
const (
	branchPageFlag = 0x01
	leafPageFlag   = 0x02
	bucketLeafFlag = 0x01
	elemSize       = 16 // branch: pos, ksize u32, pgid u64; leaf: flags, pos, ksize, vsize u32
	inBucketSize   = 16 // root pgid u64, sequence u64
	maxTreeDepth   = 64
)

// pageWalker checks, by plain reads of the file, every page reachable
// from the root bucket: that it is in bounds, says its own id, is a branch
// or leaf page, and that its elements, keys and values lie inside it. bbolt
// opens a db written with NoFreelistSync by walking the same tree on a
// goroutine of its own, where a bad page is an unrecoverable panic; this
// walk comes first so that bbolt only ever sees a sound tree.
type pageWalker struct {
	r        io.ReaderAt
	pageSize int64
	pgid     uint64 // high-water mark
	seen     map[uint64]bool
}

// walkPages checks the tree of the meta m of the file r.
func walkPages(r io.ReaderAt, m *meta) error {
	w := &pageWalker{r: r, pageSize: int64(m.pageSize), pgid: m.pgid, seen: map[uint64]bool{}}
	if m.root == 0 {
		return fmt.Errorf("%w: root bucket has no page", ErrCorrupt)
	}
	return w.visit(m.root, 0)
}

// visit checks the page id and its subtree.
func (w *pageWalker) visit(id uint64, depth int) error {
	if depth > maxTreeDepth {
		return fmt.Errorf("%w: page tree deeper than %d", ErrCorrupt, maxTreeDepth)
	}
	if id < 2 || id >= w.pgid {
		return fmt.Errorf("%w: page id %d out of bounds [2, %d)", ErrCorrupt, id, w.pgid)
	}
	if w.seen[id] {
		return fmt.Errorf("%w: page %d referenced twice", ErrCorrupt, id)
	}
	w.seen[id] = true
	hdr := make([]byte, pageHeaderSize)
	if _, err := w.r.ReadAt(hdr, int64(id)*w.pageSize); err != nil {
		return fmt.Errorf("%w: reading page %d: %v", ErrCorrupt, id, err)
	}
	le := binary.LittleEndian
	if got := le.Uint64(hdr); got != id {
		return fmt.Errorf("%w: page %d says it is page %d", ErrCorrupt, id, got)
	}
	overflow := uint64(le.Uint32(hdr[12:]))
	if id+overflow >= w.pgid {
		return fmt.Errorf("%w: page %d overflows past the high-water page %d", ErrCorrupt, id, w.pgid)
	}
	for o := id + 1; o <= id+overflow; o++ {
		w.seen[o] = true
	}
	buf := make([]byte, int64(overflow+1)*w.pageSize)
	if _, err := w.r.ReadAt(buf, int64(id)*w.pageSize); err != nil {
		return fmt.Errorf("%w: reading page %d: %v", ErrCorrupt, id, err)
	}
	return w.page(buf, id, depth)
}

// page checks one branch or leaf page held in buf (a whole page with its
// overflow, or an inline bucket's value).
func (w *pageWalker) page(buf []byte, id uint64, depth int) error {
	le := binary.LittleEndian
	if len(buf) < pageHeaderSize {
		return fmt.Errorf("%w: page %d shorter than its header", ErrCorrupt, id)
	}
	flags, count := le.Uint16(buf[8:]), int(le.Uint16(buf[10:]))
	if flags != branchPageFlag && flags != leafPageFlag {
		return fmt.Errorf("%w: page %d has type flags %#x", ErrCorrupt, id, flags)
	}
	if pageHeaderSize+count*elemSize > len(buf) {
		return fmt.Errorf("%w: page %d: %d elements do not fit", ErrCorrupt, id, count)
	}
	if flags == branchPageFlag && count == 0 {
		return fmt.Errorf("%w: branch page %d is empty", ErrCorrupt, id)
	}
	for i := range count {
		at := pageHeaderSize + i*elemSize
		e := buf[at : at+elemSize]
		if flags == branchPageFlag {
			pos, ksize := uint64(le.Uint32(e)), uint64(le.Uint32(e[4:]))
			if uint64(at)+pos+ksize > uint64(len(buf)) {
				return fmt.Errorf("%w: page %d element %d: key outside the page", ErrCorrupt, id, i)
			}
			if err := w.visit(le.Uint64(e[8:]), depth+1); err != nil {
				return err
			}
			continue
		}
		eflags, pos, ksize, vsize := le.Uint32(e), uint64(le.Uint32(e[4:])), uint64(le.Uint32(e[8:])), uint64(le.Uint32(e[12:]))
		start := uint64(at) + pos + ksize
		if start+vsize > uint64(len(buf)) {
			return fmt.Errorf("%w: page %d element %d: key or value outside the page", ErrCorrupt, id, i)
		}
		if eflags&bucketLeafFlag == 0 {
			continue
		}
		if err := w.bucket(buf[start:start+vsize], id, depth); err != nil {
			return err
		}
	}
	return nil
}

// bucket checks a bucket value found on page id: its root page, or its
// inline page right after the bucket header.
func (w *pageWalker) bucket(v []byte, id uint64, depth int) error {
	if len(v) < inBucketSize {
		return fmt.Errorf("%w: page %d: bucket value of %d bytes", ErrCorrupt, id, len(v))
	}
	root := binary.LittleEndian.Uint64(v)
	if root != 0 {
		return w.visit(root, depth+1)
	}
	inline := v[inBucketSize:]
	if len(inline) >= 10 && binary.LittleEndian.Uint16(inline[8:]) != leafPageFlag {
		return fmt.Errorf("%w: page %d: inline bucket is not a leaf", ErrCorrupt, id)
	}
	return w.page(inline, id, depth+1)
}
