package structs

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"path"
	"path/filepath"
	"strings"
)

// Artifact getter modes (Nomad's GetterMode values).
const (
	GetterModeAny  = "any"
	GetterModeFile = "file"
	GetterModeDir  = "dir"
)

// Task events of the artifact hook (Nomad's strings).
const (
	TaskDownloadingArtifacts   = "Downloading Artifacts"
	TaskArtifactDownloadFailed = "Failed Artifact Download"
)

// TaskArtifact is one artifact block: what the client downloads into the
// task's directory before the task starts (client/getter). The field names
// are Nomad's, so JSON jobs keep them.
type TaskArtifact struct {
	// GetterSource is the go-getter source URL; ${NOMAD_*}, ${attr.*}...
	// are interpolated by the client.
	GetterSource string
	// GetterOptions become query parameters of the source (checksum,
	// archive, ref, depth...), interpolated by the client.
	GetterOptions map[string]string
	// GetterHeaders are HTTP request headers, interpolated by the client.
	GetterHeaders map[string]string
	// GetterMode is "any" (default), "file" or "dir".
	GetterMode string
	// GetterInsecure skips TLS verification (Nomad's insecure).
	GetterInsecure bool
	// RelativeDest is the destination relative to the task's directory
	// (default "local/", or "local/<basename>" in file mode). It may not
	// leave the allocation directory.
	RelativeDest string
	// Chown gives the downloaded files to the task's user.
	Chown bool
}

// Canonicalize fills the defaults as Nomad's API does: mode "any" and the
// destination local/ (local/<source basename> in file mode). Empty maps
// become nil.
func (a *TaskArtifact) Canonicalize() {
	if a.GetterMode == "" {
		a.GetterMode = GetterModeAny
	}
	if len(a.GetterOptions) == 0 {
		a.GetterOptions = nil
	}
	if len(a.GetterHeaders) == 0 {
		a.GetterHeaders = nil
	}
	if a.RelativeDest == "" {
		if a.GetterMode == GetterModeFile {
			src := a.GetterSource
			if i := strings.IndexAny(src, "?#"); i >= 0 {
				src = src[:i]
			}
			a.RelativeDest = filepath.Join("local", path.Base(src))
		} else {
			a.RelativeDest = "local/"
		}
	}
}

// Validate checks a canonicalized artifact: a source, a known mode, a
// destination inside the allocation directory, and a well-formed checksum
// option. Each error is one problem.
func (a *TaskArtifact) Validate() []error {
	var errs []error
	if strings.TrimSpace(a.GetterSource) == "" {
		errs = append(errs, fmt.Errorf("source must be specified"))
	}
	switch a.GetterMode {
	case "", GetterModeAny, GetterModeFile, GetterModeDir:
	default:
		errs = append(errs, fmt.Errorf("invalid artifact mode %q; must be one of: %s, %s, %s",
			a.GetterMode, GetterModeAny, GetterModeFile, GetterModeDir))
	}
	if err := CheckArtifactDest(a.RelativeDest); err != nil {
		errs = append(errs, err)
	}
	if err := CheckArtifactChecksum(a.GetterOptions["checksum"]); err != nil {
		errs = append(errs, err)
	}
	return errs
}

// CheckArtifactDest refuses a destination that leaves the allocation
// directory: it is taken relative to <alloc>/<task>, so "local/x" and
// "../alloc/data" are fine, "../../etc" and "/etc" are not (an absolute
// path is relative to the task directory in Nomad, where "/etc" means
// <task>/etc; that is allowed too). A destination holding ${...} is
// checked again by the client once interpolated.
func CheckArtifactDest(dest string) error {
	// Work in a fake root: <root>/alloc-dir/task/<dest>.
	root := "/alloc-dir"
	joined := filepath.Join(root, "task", dest)
	if joined != root && !strings.HasPrefix(joined, root+"/") {
		return fmt.Errorf("destination %q escapes the allocation directory", dest)
	}
	return nil
}

// CheckArtifactChecksum checks a checksum option: "type:hex" with type md5,
// sha1, sha256 or sha512 and a digest of that type's length, or go-getter's
// "file:<url>" (a checksum file). Empty (no checksum) and values holding
// ${...} (interpolated later by the client) pass.
func CheckArtifactChecksum(check string) error {
	if check == "" || strings.Contains(check, "${") {
		return nil
	}
	check = strings.TrimSpace(check)
	typ, val, ok := strings.Cut(check, ":")
	if !ok || val == "" {
		return fmt.Errorf(`checksum must be given as "type:value"; got %q`, check)
	}
	if typ == "file" {
		return nil
	}
	size := map[string]int{"md5": md5.Size, "sha1": sha1.Size, "sha256": sha256.Size, "sha512": sha512.Size}[typ]
	if size == 0 {
		return fmt.Errorf("unsupported checksum type %q (md5, sha1, sha256, sha512 or file)", typ)
	}
	b, err := hex.DecodeString(val)
	if err != nil {
		return fmt.Errorf("invalid %s checksum %q: not hexadecimal", typ, val)
	}
	if len(b) != size {
		return fmt.Errorf("invalid %s checksum %q: %d bytes, want %d", typ, val, len(b), size)
	}
	return nil
}

// validateArtifacts adds the problems of a task's artifacts, each naming
// the group, task and artifact.
func (t *Task) validateArtifacts(place string, errs *MultiError) {
	for i, a := range t.Artifacts {
		if a == nil {
			errs.Add(fmt.Errorf("%s: artifact %d: null", place, i+1))
			continue
		}
		for _, err := range a.Validate() {
			errs.Add(fmt.Errorf("%s: artifact %d: %w", place, i+1, err))
		}
	}
}
