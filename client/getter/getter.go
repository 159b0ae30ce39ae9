// Package getter downloads a task's artifacts with hashicorp/go-getter (v2)
// under the client's limits: http/https with headers, a size cap and a read
// timeout, file (confined to the allocation directory unless isolation is
// disabled), git (with the git binary), checksums and archive unpacking
// with size and entry-count caps. The client runs each download in a
// subprocess of its binary with a minimal environment (sandbox.go). Every
// download is staged in a private directory of the allocation, inspected
// (no symlink may resolve outside it) and only then moved into its
// destination, so an artifact cannot write outside the destination it
// names.
package getter

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	gg "github.com/hashicorp/go-getter/v2"

	"github.com/nomadish/nomadish/structs"
)

// Errors callers may test for with errors.Is.
var (
	ErrEscape        = errors.New("getter: path escapes the allocation directory")
	ErrSandboxEscape = errors.New("getter: artifact includes a symlink that resolves outside of it")
	ErrTooLarge      = errors.New("getter: download larger than http_max_size")
	ErrUnsupported   = errors.New("getter: unsupported source")
)

// Request is one artifact to fetch, already interpolated by the caller.
type Request struct {
	Source   string            // go-getter source
	Options  map[string]string // added to the source's query (checksum, archive, ref...)
	Headers  map[string]string // HTTP request headers
	Mode     string            // structs.GetterMode*: "any" (""), "file" or "dir"
	Insecure bool              // skip TLS verification
	// AllocDir is the allocation's directory: what the destination must
	// stay in and, with isolation, the only place local sources are read.
	AllocDir string
	// TaskDir is the task's directory; Dest is relative to it.
	TaskDir string
	Dest    string
	// ChownUser, when set and the client runs as root, owns the files.
	ChownUser string
}

// URL returns the source with the options in its query, as Nomad builds it.
// A GitHub ssh shorthand (git@github.com:org/repo) keeps its prefix.
func (r *Request) URL() (string, error) {
	const ghSSH = "git@github.com:"
	src, prefix := r.Source, ""
	if strings.HasPrefix(src, ghSSH) {
		src, prefix = src[len(ghSSH):], ghSSH
	}
	u, err := url.Parse(src)
	if err != nil {
		return "", fmt.Errorf("parsing source %q: %w", r.Source, err)
	}
	if len(r.Options) > 0 {
		q := u.Query()
		for k, v := range r.Options {
			q.Set(k, v)
		}
		u.RawQuery = q.Encode()
	}
	return prefix + u.String(), nil
}

// Get downloads one artifact into its destination, in a subprocess when
// cfg.Executable is set (sandbox.go). ctx cancels it; the config's timeouts
// bound it too. The error says what failed (a bad
// checksum, a limit, an escape, the server's answer).
func Get(ctx context.Context, cfg Config, req Request) error {
	src, err := req.URL()
	if err != nil {
		return err
	}
	if err := refuseUnsupported(src); err != nil {
		return err
	}
	dest, err := destination(req.AllocDir, req.TaskDir, req.Dest)
	if err != nil {
		return err
	}
	if cfg.Executable != "" {
		return fetchInSubprocess(ctx, cfg, req)
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.deadline())
	defer cancel()

	stage, err := os.MkdirTemp(req.AllocDir, ".artifact-")
	if err != nil {
		return fmt.Errorf("creating the staging directory: %w", err)
	}
	defer os.RemoveAll(stage)
	out := filepath.Join(stage, "out")

	mode := gg.ModeAny
	switch req.Mode {
	case structs.GetterModeFile:
		mode = gg.ModeFile
	case structs.GetterModeDir:
		mode = gg.ModeDir
	}
	client := newClient(cfg, req)
	_, err = client.Get(ctx, &gg.Request{
		Src: src, Dst: out, Pwd: req.TaskDir, GetMode: mode,
		Copy:  true, // never symlink a local source into the task
		Umask: fs.ModeSetuid | fs.ModeSetgid,
	})
	if err != nil {
		return err
	}
	if err := inspect(out); err != nil {
		return err
	}
	if mode == gg.ModeFile {
		err = placeFile(out, dest)
	} else {
		err = placeDir(out, dest)
	}
	if err != nil {
		return err
	}
	if req.ChownUser != "" {
		return chown(dest, req.ChownUser)
	}
	return nil
}

// refuseUnsupported names the sources go-getter v2's core cannot fetch
// (s3, gcs, hg, smb) instead of letting them fall through to the file
// getter as a relative path.
func refuseUnsupported(src string) error {
	forced, _, ok := strings.Cut(src, "::")
	if ok && !strings.ContainsAny(forced, "/:") {
		switch forced {
		case "git", "http", "https", "file":
			return nil
		}
		return fmt.Errorf("%w: %q getter (nomadish fetches http, https, file and git)", ErrUnsupported, forced)
	}
	if u, err := url.Parse(src); err == nil {
		switch u.Scheme {
		case "s3", "gs", "gcs", "hg", "smb":
			return fmt.Errorf("%w: %q scheme (nomadish fetches http, https, file and git)", ErrUnsupported, u.Scheme)
		}
	}
	for _, host := range []string{"s3.amazonaws.com", "amazonaws.com/", "googleapis.com/storage"} {
		if strings.Contains(src, host) && !strings.HasPrefix(src, "http") {
			return fmt.Errorf("%w: s3/gcs shorthand %q (use an https URL)", ErrUnsupported, src)
		}
	}
	return nil
}
