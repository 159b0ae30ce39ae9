package allocrunner

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/nomadish/nomadish/client/allocdir"
	"github.com/nomadish/nomadish/structs"
)

// Sticky ephemeral disks: an allocation that replaces one on this node
// (Config.Previous), in a group whose ephemeral_disk is sticky or migrate,
// takes over the previous allocation's alloc/data and each task's local/
// dir, as Nomad does. It waits for the previous allocation's tasks to stop
// first (a destructive update stops it in the same plan), without holding
// up Run's caller.

// waitPrevious is called first by run. It reports true when run must
// return: the previous allocation is still running, and a goroutine calls
// run again once it has stopped and its data has moved. Otherwise the data
// has moved (when there is any) and run goes on.
func (ar *AllocRunner) waitPrevious() bool {
	prev := ar.cfg.Previous
	tg := ar.group()
	if ar.prevMoved || tg == nil || tg.EphemeralDisk == nil || !(tg.EphemeralDisk.Sticky || tg.EphemeralDisk.Migrate) {
		return false
	}
	if prev == nil {
		return ar.fetchPrevious(tg)
	}
	select {
	case <-prev.WaitCh():
	default:
		ar.logger.Debug("waiting for the previous allocation to stop", "previous_alloc_id", prev.Alloc().ID)
		go func() {
			<-prev.WaitCh()
			ar.run()
		}()
		return true
	}
	ar.prevMoved = true
	names := make([]string, 0, len(tg.Tasks))
	for _, t := range tg.Tasks {
		names = append(names, t.Name)
	}
	if err := MoveStickyData(prev.AllocDir(), ar.dir, names); err != nil {
		ar.logger.Warn("moving the previous allocation's data", "previous_alloc_id", prev.Alloc().ID, "error", err)
	}
	return false
}

// fetchPrevious starts fetching the data of the previous allocation from
// another node (migrate only) and reports whether it did: run is called
// again from the fetching goroutine once the data is in.
func (ar *AllocRunner) fetchPrevious(tg *structs.TaskGroup) bool {
	prevID := ar.Alloc().PreviousAllocation
	if prevID == "" || !tg.EphemeralDisk.Migrate || ar.cfg.FetchPrevious == nil {
		return false
	}
	names := make([]string, 0, len(tg.Tasks))
	for _, t := range tg.Tasks {
		names = append(names, t.Name)
	}
	maxBytes := int64(tg.EphemeralDisk.SizeMB) << 20
	go func() {
		if err := ar.cfg.FetchPrevious(prevID, ar.dir, names, maxBytes); err != nil {
			ar.logger.Warn("migrating the previous allocation's data", "previous_alloc_id", prevID, "error", err)
		} else {
			ar.logger.Info("migrated the previous allocation's data", "previous_alloc_id", prevID)
		}
		ar.prevMoved = true
		ar.run()
	}()
	return true
}

// MoveStickyData moves from's alloc/data and the local/ dir of each of
// tasks that from has into to (renames: one filesystem, no copy). A
// destination dir that exists and is empty (Build ran) is replaced; one
// with content is left alone. Errors of every move are returned together.
func MoveStickyData(from, to *allocdir.AllocDir, tasks []string) error {
	pairs := [][2]string{{filepath.Join(from.SharedDir, allocdir.SharedDataDir), filepath.Join(to.SharedDir, allocdir.SharedDataDir)}}
	for _, t := range tasks {
		pairs = append(pairs, [2]string{from.TaskDir(t).LocalDir, to.TaskDir(t).LocalDir})
	}
	var errs []error
	for _, p := range pairs {
		if err := moveDir(p[0], p[1]); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func moveDir(src, dst string) error {
	st, err := os.Lstat(src)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is not a directory", src) // a task replaced it with a symlink: not followed
	}
	if err := os.Remove(dst); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("making room for %s: %w", dst, err) // not empty: keep what is there
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if err := os.Rename(src, dst); err != nil {
		return fmt.Errorf("moving %s: %w", src, err)
	}
	return nil
}
