package getter_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nomadish/nomadish/client/getter"
)

func TestDestinationEscapeRefused(t *testing.T) {
	s := serve(t, map[string][]byte{"/f": []byte("x")})
	alloc, task := dirs(t)
	for _, dest := range []string{"../../x", "/../../x", "local/../../../x"} {
		err := get(t, getter.DefaultConfig(), getter.Request{Source: s.URL + "/f", Dest: dest, AllocDir: alloc, TaskDir: task})
		if !errors.Is(err, getter.ErrEscape) {
			t.Errorf("%s: err = %v, want ErrEscape", dest, err)
		}
	}
	// Through a symlink the task made: local/out -> a directory outside.
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(task, "local", "out")); err != nil {
		t.Fatal(err)
	}
	err := get(t, getter.DefaultConfig(), getter.Request{Source: s.URL + "/f", Dest: "local/out/sub", AllocDir: alloc, TaskDir: task})
	if !errors.Is(err, getter.ErrEscape) {
		t.Errorf("through a symlink: err = %v, want ErrEscape", err)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("wrote outside: %v", ents)
	}
	// ../alloc/data is in the allocation: allowed, as in Nomad.
	if err := get(t, getter.DefaultConfig(), getter.Request{Source: s.URL + "/f", Dest: "../alloc/data", AllocDir: alloc, TaskDir: task}); err != nil {
		t.Errorf("../alloc/data: %v", err)
	}
}

func TestArchiveEscapesRefused(t *testing.T) {
	outside := t.TempDir()
	dotdot := tarGz(t, entry{Name: "ok", Body: "1"}, entry{Name: "../../../../../../" + strings.TrimPrefix(outside, "/") + "/evil", Body: "pwned"})
	link := tarGz(t, entry{Name: "evil", Link: outside}, entry{Name: "evil/planted", Body: "pwned"})
	zipDotDot := zipOf(t, entry{Name: "../evil", Body: "pwned"})
	s := serve(t, map[string][]byte{"/dotdot.tar.gz": dotdot, "/link.tar.gz": link, "/dotdot.zip": zipDotDot})
	for _, name := range []string{"dotdot.tar.gz", "link.tar.gz", "dotdot.zip"} {
		alloc, task := dirs(t)
		err := get(t, getter.DefaultConfig(), getter.Request{Source: s.URL + "/" + name, AllocDir: alloc, TaskDir: task})
		if err == nil {
			t.Errorf("%s: no error", name)
		}
		t.Logf("%s: %v", name, err)
		if ents, _ := os.ReadDir(outside); len(ents) != 0 {
			t.Fatalf("%s wrote outside: %v", name, ents)
		}
		if _, err := os.Stat(filepath.Join(alloc, "evil")); err == nil {
			t.Errorf("%s wrote into the allocation root", name)
		}
	}
}

func TestFileSourceConfined(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	alloc, task := dirs(t)
	err := get(t, getter.DefaultConfig(), getter.Request{Source: "file://" + outside, AllocDir: alloc, TaskDir: task})
	if !errors.Is(err, getter.ErrEscape) {
		t.Fatalf("outside file: err = %v, want ErrEscape", err)
	}
	// A symlink in the allocation pointing out is no way around it.
	link := filepath.Join(alloc, "alloc", "data", "link")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	if err := get(t, getter.DefaultConfig(), getter.Request{Source: "file://" + link, AllocDir: alloc, TaskDir: task}); !errors.Is(err, getter.ErrEscape) {
		t.Fatalf("symlink out: err = %v, want ErrEscape", err)
	}
	// Inside the allocation: fine, and copied (not symlinked).
	shared := filepath.Join(alloc, "alloc", "data", "shared.txt")
	if err := os.WriteFile(shared, []byte("shared"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := get(t, getter.DefaultConfig(), getter.Request{Source: "file://" + shared, AllocDir: alloc, TaskDir: task}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(filepath.Join(task, "local", "shared.txt"))
	if err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("copied file: %v %v", fi, err)
	}
	// With isolation disabled, anything the client can read.
	cfg := getter.DefaultConfig()
	cfg.DisableFilesystemIsolation = true
	if err := get(t, cfg, getter.Request{Source: "file://" + outside, AllocDir: alloc, TaskDir: task}); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(task, "local", "secret.txt")); got != "secret" {
		t.Errorf("got %q", got)
	}
}

func TestGitSymlinkOutsideRefused(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git binary")
	}
	alloc, task := dirs(t)
	repo := filepath.Join(alloc, "alloc", "data", "repo")
	outside := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	run("init", "-q")
	os.WriteFile(filepath.Join(repo, "README"), []byte("hi"), 0o644)
	os.Symlink("README", filepath.Join(repo, "inner"))
	run("add", ".")
	run("commit", "-qm", "one")
	if err := get(t, getter.DefaultConfig(), getter.Request{Source: "git::file://" + repo, Dest: "local/repo", AllocDir: alloc, TaskDir: task}); err != nil {
		t.Fatalf("repo with an inner symlink: %v", err)
	}
	if got := readFile(t, filepath.Join(task, "local", "repo", "inner")); got != "hi" {
		t.Errorf("inner = %q", got)
	}

	os.Symlink(outside, filepath.Join(repo, "escape"))
	run("add", ".")
	run("commit", "-qm", "two")
	err := get(t, getter.DefaultConfig(), getter.Request{Source: "git::file://" + repo, Dest: "local/repo2", AllocDir: alloc, TaskDir: task})
	if !errors.Is(err, getter.ErrSandboxEscape) {
		t.Fatalf("err = %v, want ErrSandboxEscape", err)
	}
	if _, err := os.Stat(filepath.Join(task, "local", "repo2")); err == nil {
		t.Error("the refused repository was placed")
	}
	// A local repository outside the allocation is not read.
	err = get(t, getter.DefaultConfig(), getter.Request{Source: "git::file://" + outside, AllocDir: alloc, TaskDir: task})
	if !errors.Is(err, getter.ErrEscape) {
		t.Fatalf("outside repo: err = %v, want ErrEscape", err)
	}
}
