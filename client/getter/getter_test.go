package getter_test

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nomadish/nomadish/client/getter"
)

// entry is one member of a test archive: a file (Body), a directory
// (Dir) or a symlink (Link).
type entry struct {
	Name, Body, Link string
	Dir              bool
}

func tarGz(t *testing.T, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		h := &tar.Header{Name: e.Name, Mode: 0o644, Size: int64(len(e.Body)), Typeflag: tar.TypeReg}
		switch {
		case e.Dir:
			h.Typeflag, h.Mode, h.Size = tar.TypeDir, 0o755, 0
		case e.Link != "":
			h.Typeflag, h.Linkname, h.Size = tar.TypeSymlink, e.Link, 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Size > 0 {
			if _, err := tw.Write([]byte(e.Body)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func zipOf(t *testing.T, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		w, err := zw.Create(e.Name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(e.Body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// server serves files by path and records the requests' headers.
type server struct {
	*httptest.Server
	mu      sync.Mutex
	headers []http.Header
}

func serve(t *testing.T, files map[string][]byte) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.headers = append(s.headers, r.Header.Clone())
		s.mu.Unlock()
		body, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if r.URL.Query().Get("chunked") != "" {
			// No Content-Length: the size is only known by reading.
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
		}
		w.Write(body)
	}))
	t.Cleanup(s.Close)
	return s
}

// dirs builds an allocation directory with a task "t" and returns both.
func dirs(t *testing.T) (alloc, task string) {
	t.Helper()
	alloc = filepath.Join(t.TempDir(), "a1")
	task = filepath.Join(alloc, "t")
	for _, d := range []string{filepath.Join(alloc, "alloc", "data"), filepath.Join(task, "local")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return alloc, task
}

func get(t *testing.T, cfg getter.Config, req getter.Request) error {
	t.Helper()
	if req.AllocDir == "" {
		req.AllocDir, req.TaskDir = dirs(t)
	}
	if req.Dest == "" {
		req.Dest = "local/"
	}
	return getter.Get(context.Background(), cfg, req)
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestTarGzWithChecksumUnpacks(t *testing.T) {
	arch := tarGz(t, entry{Name: "app/", Dir: true}, entry{Name: "app/run.sh", Body: "echo hi\n"}, entry{Name: "VERSION", Body: "1.2.3"})
	s := serve(t, map[string][]byte{"/app.tar.gz": arch})
	alloc, task := dirs(t)
	err := get(t, getter.DefaultConfig(), getter.Request{Source: s.URL + "/app.tar.gz", AllocDir: alloc, TaskDir: task,
		Options: map[string]string{"checksum": "sha256:" + sha(arch)}})
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(task, "local", "app", "run.sh")); got != "echo hi\n" {
		t.Errorf("run.sh = %q", got)
	}
	if got := readFile(t, filepath.Join(task, "local", "VERSION")); got != "1.2.3" {
		t.Errorf("VERSION = %q", got)
	}
	left, _ := filepath.Glob(filepath.Join(alloc, ".artifact-*"))
	if len(left) != 0 {
		t.Errorf("staging left behind: %v", left)
	}
}

func TestChecksumMismatchFailsAndWritesNothing(t *testing.T) {
	arch := tarGz(t, entry{Name: "f", Body: "x"})
	s := serve(t, map[string][]byte{"/a.tar.gz": arch})
	for _, sum := range []string{"sha256:" + strings.Repeat("0", 64), "md5:" + strings.Repeat("0", 32), "sha512:" + strings.Repeat("0", 128), "sha1:" + strings.Repeat("0", 40)} {
		alloc, task := dirs(t)
		err := get(t, getter.DefaultConfig(), getter.Request{Source: s.URL + "/a.tar.gz", AllocDir: alloc, TaskDir: task,
			Options: map[string]string{"checksum": sum}})
		if err == nil || !strings.Contains(err.Error(), "Checksums did not match") {
			t.Fatalf("%s: err = %v", sum, err)
		}
		if ents, _ := os.ReadDir(filepath.Join(task, "local")); len(ents) != 0 {
			t.Errorf("%s: local/ holds %d entries after a failed checksum", sum, len(ents))
		}
	}
}

func TestChecksumFile(t *testing.T) {
	body := []byte("payload")
	files := map[string][]byte{"/p.bin": body}
	files["/SHA256SUMS"] = []byte(sha(body) + "  p.bin\n")
	s := serve(t, files)
	alloc, task := dirs(t)
	err := get(t, getter.DefaultConfig(), getter.Request{Source: s.URL + "/p.bin", AllocDir: alloc, TaskDir: task,
		Options: map[string]string{"checksum": "file:" + s.URL + "/SHA256SUMS"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(task, "local", "p.bin")); got != "payload" {
		t.Errorf("p.bin = %q", got)
	}
}

func TestModeFileAndHeaders(t *testing.T) {
	s := serve(t, map[string][]byte{"/bin/tool": []byte("#!/bin/sh\n")})
	alloc, task := dirs(t)
	err := get(t, getter.DefaultConfig(), getter.Request{Source: s.URL + "/bin/tool", Mode: "file", Dest: "local/bin/mytool",
		AllocDir: alloc, TaskDir: task, Headers: map[string]string{"User-Agent": "nomad-a1", "x-nomad-alloc": "a1"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(task, "local", "bin", "mytool")); got != "#!/bin/sh\n" {
		t.Errorf("tool = %q", got)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.headers) != 1 || s.headers[0].Get("User-Agent") != "nomad-a1" || s.headers[0].Get("X-Nomad-Alloc") != "a1" {
		t.Errorf("headers received: %v", s.headers)
	}
}

func TestHTTPMaxSize(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 4096)
	s := serve(t, map[string][]byte{"/big": big})
	cfg := getter.DefaultConfig()
	cfg.HTTPMaxBytes = 1000
	for _, q := range []string{"", "?chunked=1"} {
		alloc, task := dirs(t)
		err := get(t, cfg, getter.Request{Source: s.URL + "/big" + q, AllocDir: alloc, TaskDir: task})
		if !errors.Is(err, getter.ErrTooLarge) {
			t.Errorf("%q: err = %v, want ErrTooLarge", q, err)
		}
		if _, err := os.Stat(filepath.Join(task, "local", "big")); err == nil {
			t.Errorf("%q: a truncated file was kept", q)
		}
	}
	cfg.HTTPMaxBytes = 4096 // exactly the size: fine
	if err := get(t, cfg, getter.Request{Source: s.URL + "/big?chunked=1"}); err != nil {
		t.Errorf("at the limit: %v", err)
	}
}

func TestDecompressionLimits(t *testing.T) {
	many := tarGz(t, entry{Name: "a", Body: "1"}, entry{Name: "b", Body: "2"}, entry{Name: "c", Body: "3"})
	large := zipOf(t, entry{Name: "big", Body: strings.Repeat("z", 10_000)})
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(bytes.Repeat([]byte("y"), 10_000))
	w.Close()
	s := serve(t, map[string][]byte{"/many.tar.gz": many, "/large.zip": large, "/large.gz": gz.Bytes()})

	cfg := getter.DefaultConfig()
	cfg.DecompressionFileCountLimit = 2
	if err := get(t, cfg, getter.Request{Source: s.URL + "/many.tar.gz"}); err == nil || !strings.Contains(err.Error(), "too many files") {
		t.Errorf("file count: %v", err)
	}
	cfg = getter.DefaultConfig()
	cfg.DecompressionSizeLimit = 1000
	if err := get(t, cfg, getter.Request{Source: s.URL + "/large.zip"}); err == nil || !strings.Contains(err.Error(), "larger than limit") {
		t.Errorf("zip size: %v", err)
	}
	if err := get(t, cfg, getter.Request{Source: s.URL + "/large.gz", Mode: "file", Dest: "local/large"}); err == nil || !strings.Contains(err.Error(), "decompression_size_limit") {
		t.Errorf("gz size: %v", err)
	}
	cfg.DecompressionSizeLimit = 100_000
	if err := get(t, cfg, getter.Request{Source: s.URL + "/large.zip"}); err != nil {
		t.Errorf("under the limit: %v", err)
	}
}

func TestUnsupportedSources(t *testing.T) {
	for _, src := range []string{"s3::https://s3.amazonaws.com/bucket/foo", "gcs::https://www.googleapis.com/storage/v1/b/o", "hg::http://example.com/repo"} {
		if err := get(t, getter.DefaultConfig(), getter.Request{Source: src}); !errors.Is(err, getter.ErrUnsupported) {
			t.Errorf("%s: err = %v", src, err)
		}
	}
}

func TestHTTPReadTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "10")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		select { // never sends the body
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	cfg := getter.DefaultConfig()
	cfg.HTTPReadTimeout = 200 * time.Millisecond
	err := get(t, cfg, getter.Request{Source: srv.URL + "/slow"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want a deadline", err)
	}
}

func TestChownToTaskUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("chown needs root (without it the client leaves ownership alone, as Nomad)")
	}
	nobody, err := user.Lookup("nobody")
	if err != nil {
		t.Skip("no user nobody")
	}
	arch := tarGz(t, entry{Name: "d/", Dir: true}, entry{Name: "d/f", Body: "x"})
	s := serve(t, map[string][]byte{"/a.tar.gz": arch})
	alloc, task := dirs(t)
	if err := get(t, getter.DefaultConfig(), getter.Request{Source: s.URL + "/a.tar.gz", Dest: "local/app", AllocDir: alloc, TaskDir: task, ChownUser: "nobody"}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"local/app", "local/app/d", "local/app/d/f"} {
		fi, err := os.Stat(filepath.Join(task, p))
		if err != nil {
			t.Fatal(err)
		}
		if uid := fi.Sys().(*syscall.Stat_t).Uid; strconv.Itoa(int(uid)) != nobody.Uid {
			t.Errorf("%s owned by %d, want %s", p, uid, nobody.Uid)
		}
	}
	if err := get(t, getter.DefaultConfig(), getter.Request{Source: s.URL + "/a.tar.gz", AllocDir: alloc, TaskDir: task, ChownUser: "no-such-user-xyz"}); err == nil || !strings.Contains(err.Error(), "chown") {
		t.Errorf("unknown user: %v", err)
	}
}

func TestInsecureAndArchiveOptions(t *testing.T) {
	arch := tarGz(t, entry{Name: "f", Body: "x"})
	tlsSrv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(arch) }))
	tlsSrv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake is expected
	tlsSrv.StartTLS()
	t.Cleanup(tlsSrv.Close)
	if err := get(t, getter.DefaultConfig(), getter.Request{Source: tlsSrv.URL + "/a.tar.gz"}); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("self-signed without insecure: %v", err)
	}
	alloc, task := dirs(t)
	err := get(t, getter.DefaultConfig(), getter.Request{Source: tlsSrv.URL + "/a.tar.gz", Insecure: true, AllocDir: alloc, TaskDir: task,
		Options: map[string]string{"archive": "false"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(task, "local", "a.tar.gz")); got != string(arch) {
		t.Errorf("archive = false must keep the archive packed")
	}
}
