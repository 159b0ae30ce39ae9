// Package state persists what a client must remember across restarts (its
// allocations and each task's driver handle and state) in a bbolt file at
// <data_dir>/client/state.db, so a restarted client re-attaches to its tasks.
package state

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/hashicorp/go-msgpack/v2/codec"

	"github.com/nomadish/nomadish/structs"
)

var (
	bucketAllocs = []byte("allocs")
	bucketTasks  = []byte("tasks") // sub-bucket per alloc ID, key = task name
)

// ErrClosed is returned by every method after Close.
var ErrClosed = errors.New("state: db closed")

// DB is the client's state database. Safe for concurrent use.
type DB struct {
	db *bolt.DB
}

// Open opens (creating if needed) the state db at path. A corrupt file
// (see checkFile and walk) is refused with an error wrapping ErrCorrupt;
// it never crashes the process. The file is left as it is: see OpenOrReset.
func Open(path string) (*DB, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("creating state dir: %w", err)
	}
	if err := checkFile(path); err != nil {
		return nil, fmt.Errorf("client state %q: %w", path, err)
	}
	var db *bolt.DB
	err := guarded("opening", func() error {
		var err error
		db, err = bolt.Open(path, 0o600, &bolt.Options{Timeout: 2 * time.Second, NoFreelistSync: true})
		return err
	})
	if err != nil {
		if isBoltCorrupt(err) {
			err = fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
		return nil, fmt.Errorf("opening client state %q: %w", path, err)
	}
	if err := guarded("reading", func() error { return walk(db) }); err != nil {
		closeQuietly(db)
		return nil, fmt.Errorf("client state %q: %w", path, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketAllocs, bucketTasks} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("initializing client state: %w", err)
	}
	return &DB{db: db}, nil
}

// Reset says that OpenOrReset moved a corrupt state file aside.
type Reset struct {
	MovedTo string // where the corrupt file now is
	Reason  error  // why it was refused (wraps ErrCorrupt)
}

// OpenOrReset opens the state db at path; when the file is corrupt it
// renames it to "<path>.corrupt-<unix seconds of now>", opens a fresh db
// and reports the move in a non-nil Reset (the caller logs it). Any other
// failure (the file locked by another agent, a permission error) is
// returned as an error with the file untouched.
func OpenOrReset(path string, now time.Time) (*DB, *Reset, error) {
	db, err := Open(path)
	if err == nil || !errors.Is(err, ErrCorrupt) {
		return db, nil, err
	}
	aside := fmt.Sprintf("%s.corrupt-%d", path, now.Unix())
	if rerr := os.Rename(path, aside); rerr != nil {
		return nil, nil, fmt.Errorf("moving corrupt client state aside (%v): %w", err, rerr)
	}
	db, oerr := Open(path)
	if oerr != nil {
		return nil, nil, fmt.Errorf("opening a fresh client state after moving %q aside: %w", aside, oerr)
	}
	return db, &Reset{MovedTo: aside, Reason: err}, nil
}

// isBoltCorrupt reports the errors with which bbolt refuses a damaged file.
func isBoltCorrupt(err error) bool {
	return errors.Is(err, bolt.ErrInvalid) || errors.Is(err, bolt.ErrChecksum) ||
		errors.Is(err, bolt.ErrVersionMismatch) || errors.Is(err, bolt.ErrInvalidMapping)
}

// closeQuietly closes a db that failed its check; closing may itself touch
// the damaged mapping, so it is guarded too.
func closeQuietly(db *bolt.DB) {
	_ = guarded("closing", db.Close)
}

// Close closes the database.
func (s *DB) Close() error { return s.db.Close() }

// PutAlloc stores (or replaces) an allocation.
func (s *DB) PutAlloc(a *structs.Allocation) error {
	buf, err := encode(a)
	if err != nil {
		return err
	}
	return s.db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketAllocs).Put([]byte(a.ID), buf)
	})
}

// Allocs returns every stored allocation; the caller owns the slice.
func (s *DB) Allocs() ([]*structs.Allocation, error) {
	var out []*structs.Allocation
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketAllocs).ForEach(func(k, v []byte) error {
			var a structs.Allocation
			if err := structs.Decode(v, &a); err != nil {
				return fmt.Errorf("decoding alloc %s: %w", k, err)
			}
			out = append(out, &a)
			return nil
		})
	})
	return out, err
}

// DeleteAlloc removes an allocation and all its task states.
func (s *DB) DeleteAlloc(allocID string) error {
	return s.db.Update(func(tx *bolt.Tx) error {
		if err := tx.Bucket(bucketAllocs).Delete([]byte(allocID)); err != nil {
			return err
		}
		err := tx.Bucket(bucketTasks).DeleteBucket([]byte(allocID))
		if errors.Is(err, bolt.ErrBucketNotFound) {
			return nil
		}
		return err
	})
}

// PutTaskState stores v (any msgpack-encodable value) for one task.
func (s *DB) PutTaskState(allocID, task string, v any) error {
	buf, err := encode(v)
	if err != nil {
		return err
	}
	return s.db.Update(func(tx *bolt.Tx) error {
		b, err := tx.Bucket(bucketTasks).CreateBucketIfNotExists([]byte(allocID))
		if err != nil {
			return err
		}
		return b.Put([]byte(task), buf)
	})
}

// GetTaskState decodes the stored value of one task into out and reports
// whether there was one.
func (s *DB) GetTaskState(allocID, task string, out any) (bool, error) {
	found := false
	err := s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketTasks).Bucket([]byte(allocID))
		if b == nil {
			return nil
		}
		v := b.Get([]byte(task))
		if v == nil {
			return nil
		}
		found = true
		return structs.Decode(v, out)
	})
	if err != nil {
		return false, fmt.Errorf("reading state of task %s/%s: %w", allocID, task, err)
	}
	return found, nil
}

func encode(v any) ([]byte, error) {
	var buf []byte
	if err := codec.NewEncoderBytes(&buf, structs.MsgpackHandle).Encode(v); err != nil {
		return nil, fmt.Errorf("encoding client state: %w", err)
	}
	return buf, nil
}
