package iradix

// nomadish's patch to go-immutable-radix v1.3.1 (see third_party/README.md):
// the notifications of a transaction too large to track channel by channel.

import (
	"bytes"
	"strings"
)

// slowNotify compares the before and after trees to trigger the
// notifications a transaction too large to track one by one owes.
//
// nomadish's patch: it descends only where the trees differ. A subtree
// the transaction did not touch is the same pointer in both trees
// (copy-on-write), so it is skipped; upstream walked every node of both
// trees, which made each large transaction cost the size of the table
// (a 10,000-allocation plan against a million allocations). Where a child
// under the same edge label has another prefix (a split or merge), the two
// subtrees are compared by path as upstream does (walkDiff): a leaf may be
// shared by nodes of different shapes, and must not be closed while the
// new tree still holds it.
func (t *Txn) slowNotify() {
	notifyDiff(t.snap, t.root)
}

// notifyDiff closes the mutate channels of old's nodes and leaves that
// are not, at the same path, the same in new.
func notifyDiff(old, new *Node) {
	if old == nil || old == new {
		return
	}
	if new == nil {
		notifyAll(old)
		return
	}
	if !bytes.Equal(old.prefix, new.prefix) {
		walkDiff(old, new)
		return
	}
	close(old.mutateCh)
	if old.leaf != nil && old.leaf != new.leaf {
		close(old.leaf.mutateCh)
	}
	j := 0
	for _, oe := range old.edges {
		for j < len(new.edges) && new.edges[j].label < oe.label {
			j++
		}
		if j < len(new.edges) && new.edges[j].label == oe.label {
			notifyDiff(oe.node, new.edges[j].node)
		} else {
			notifyAll(oe.node)
		}
	}
}

// walkDiff is upstream's complete comparison of two subtrees at the same
// path: every node of old whose path is gone from new or holds another
// node there is closed, and its leaf unless new holds the same leaf.
func walkDiff(old, new *Node) {
	snapIter := old.rawIterator()
	rootIter := new.rawIterator()
	for snapIter.Front() != nil {
		snapElem := snapIter.Front()
		if rootIter.Front() == nil {
			close(snapElem.mutateCh)
			if snapElem.isLeaf() {
				close(snapElem.leaf.mutateCh)
			}
			snapIter.Next()
			continue
		}
		cmp := strings.Compare(snapIter.Path(), rootIter.Path())
		if cmp < 0 {
			close(snapElem.mutateCh)
			if snapElem.isLeaf() {
				close(snapElem.leaf.mutateCh)
			}
			snapIter.Next()
			continue
		}
		if cmp > 0 {
			rootIter.Next()
			continue
		}
		rootElem := rootIter.Front()
		if snapElem != rootElem {
			close(snapElem.mutateCh)
			if snapElem.leaf != nil && (snapElem.leaf != rootElem.leaf) {
				close(snapElem.leaf.mutateCh)
			}
		}
		snapIter.Next()
		rootIter.Next()
	}
}

// notifyAll closes the mutate channels of n's whole subtree: it is gone
// from the new tree (no node there has its path, so no leaf of it is
// kept).
func notifyAll(n *Node) {
	close(n.mutateCh)
	if n.leaf != nil {
		close(n.leaf.mutateCh)
	}
	for _, e := range n.edges {
		notifyAll(e.node)
	}
}

// slowNotifyFull is upstream's slowNotify, kept for the tests: walkDiff
// over the whole trees (upstream's loop, node by node).
func (t *Txn) slowNotifyFull() {
	walkDiff(t.snap, t.root)
}
