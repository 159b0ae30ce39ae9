package cli

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// snapshotSave is GET /v1/operator/snapshot: it copies the archive into w
// and checks it against the Digest header (sha-256, base64) when present.
func (c *apiClient) snapshotSave(w io.Writer, stale bool) error {
	q := url.Values{}
	if stale {
		q.Set("stale", "")
	}
	resp, err := c.request(http.MethodGet, "/v1/operator/snapshot", q, nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(w, h), resp.Body); err != nil {
		return fmt.Errorf("reading the snapshot: %w", err)
	}
	if d, ok := strings.CutPrefix(resp.Header.Get("Digest"), "sha-256="); ok && d != base64.StdEncoding.EncodeToString(h.Sum(nil)) {
		return fmt.Errorf("the snapshot does not match its Digest header (truncated download?)")
	}
	return nil
}

// snapshotRestore is PUT /v1/operator/snapshot with the archive as body.
func (c *apiClient) snapshotRestore(archive io.Reader) error {
	if c.err != nil {
		return c.err
	}
	req, err := http.NewRequest(http.MethodPut, c.url("/v1/operator/snapshot", nil), archive)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/gzip")
	c.authorize(req.Header)
	resp, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		return &APIError{Status: resp.StatusCode, Body: string(msg)}
	}
	return nil
}

// operatorSnapshotSaveCommand is `operator snapshot save [-stale] FILE`:
// the archive is written to a temporary file beside FILE and renamed over
// it once complete, so FILE is never a partial snapshot.
func operatorSnapshotSaveCommand(m *Meta, args []string) int {
	f := m.newFlags("operator snapshot save", "[options] FILE")
	stale := f.Bool("stale", false, "take the snapshot on this agent's server, without a leader")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return m.wrongArgs(f, "one argument: the file to write")
	}
	path := pos[0]
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return m.errorf("creating the snapshot file: %v", err)
	}
	defer os.Remove(tmp.Name())
	if err := m.client(f).snapshotSave(tmp, *stale); err != nil {
		tmp.Close()
		return m.errorf("saving the snapshot: %v", err)
	}
	if err := tmp.Close(); err != nil {
		return m.errorf("writing %s: %v", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return m.errorf("writing %s: %v", path, err)
	}
	fmt.Fprintf(m.Out, "State file written to %s\n", path)
	return exitOK
}

// operatorSnapshotRestoreCommand is `operator snapshot restore FILE`.
func operatorSnapshotRestoreCommand(m *Meta, args []string) int {
	f := m.newFlags("operator snapshot restore", "[options] FILE")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return m.wrongArgs(f, "one argument: the snapshot file")
	}
	file, err := os.Open(pos[0])
	if err != nil {
		return m.errorf("opening the snapshot: %v", err)
	}
	defer file.Close()
	if err := m.client(f).snapshotRestore(file); err != nil {
		return m.errorf("restoring the snapshot: %v", err)
	}
	fmt.Fprintln(m.Out, "Snapshot Restored")
	return exitOK
}
