package state

import (
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/nomadish/nomadish/structs"
)

// bucketNetworks holds each allocation's network record (client/network:
// the namespace and CNI set-up), key = alloc ID. Kept apart from the alloc
// so the record outlives it until the network is torn down.
var bucketNetworks = []byte("networks")

// PutNetwork stores v (msgpack-encodable) as the network record of allocID.
func (s *DB) PutNetwork(allocID string, v any) error {
	buf, err := encode(v)
	if err != nil {
		return err
	}
	return s.db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bucketNetworks)
		if err != nil {
			return err
		}
		return b.Put([]byte(allocID), buf)
	})
}

// GetNetwork decodes the network record of allocID into out and reports
// whether there was one.
func (s *DB) GetNetwork(allocID string, out any) (bool, error) {
	found := false
	err := s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketNetworks)
		if b == nil {
			return nil
		}
		v := b.Get([]byte(allocID))
		if v == nil {
			return nil
		}
		found = true
		return structs.Decode(v, out)
	})
	if err != nil {
		return false, fmt.Errorf("reading network of alloc %s: %w", allocID, err)
	}
	return found, nil
}

// DeleteNetwork removes the network record of allocID (none is fine).
func (s *DB) DeleteNetwork(allocID string) error {
	return s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketNetworks)
		if b == nil {
			return nil
		}
		return b.Delete([]byte(allocID))
	})
}

// NetworkAllocIDs lists the allocations with a network record.
func (s *DB) NetworkAllocIDs() ([]string, error) {
	var out []string
	err := s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketNetworks)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, _ []byte) error {
			out = append(out, string(k))
			return nil
		})
	})
	if errors.Is(err, bolt.ErrTxClosed) {
		return nil, ErrClosed
	}
	return out, err
}
