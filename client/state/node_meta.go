package state

import (
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/nomadish/nomadish/structs"
)

// bucketNodeMeta holds the node's dynamic metadata under keyNodeMeta
// (created on first write: older state files lack it).
var (
	bucketNodeMeta = []byte("node_meta")
	keyNodeMeta    = []byte("dynamic")
)

// PutNodeMeta stores the node's dynamic metadata (a nil value: the key is
// unset), replacing what was stored.
func (s *DB) PutNodeMeta(meta map[string]*string) error {
	buf, err := encode(meta)
	if err != nil {
		return err
	}
	return s.db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bucketNodeMeta)
		if err != nil {
			return err
		}
		return b.Put(keyNodeMeta, buf)
	})
}

// NodeMeta returns the stored dynamic metadata (empty when none was
// stored); the caller owns the map.
func (s *DB) NodeMeta() (map[string]*string, error) {
	out := map[string]*string{}
	err := s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketNodeMeta)
		if b == nil {
			return nil
		}
		if v := b.Get(keyNodeMeta); v != nil {
			return structs.Decode(v, &out)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading dynamic node metadata: %w", err)
	}
	return out, nil
}
