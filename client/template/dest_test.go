package template

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestResolve(t *testing.T) {
	d := Dirs{TaskDir: "/a/1/web", AllocDir: "/a/1/alloc"}
	for _, tc := range []struct{ in, root, rel string }{
		{"local/app.conf", d.TaskDir, "local/app.conf"},
		{"secrets/x", d.TaskDir, "secrets/x"},
		{"./local/../x", d.TaskDir, "x"},
		{"alloc/data/x", d.AllocDir, "data/x"},
		{"../alloc/x", d.AllocDir, "x"},
		{"/a/1/web/local/x", d.TaskDir, "local/x"},
		{"/a/1/alloc/x", d.AllocDir, "x"},
	} {
		root, rel, err := d.Resolve(tc.in)
		if err != nil || root != tc.root || rel != tc.rel {
			t.Errorf("%s: %s %s %v, want %s %s", tc.in, root, rel, err, tc.root, tc.rel)
		}
	}
	for _, bad := range []string{"../../etc/x", "/etc/x", "/a/1/web", "..", "/a/1/db/secrets/x", "../db/secrets/x", "local/../../x", ""} {
		if _, _, err := d.Resolve(bad); err == nil {
			t.Errorf("%s: resolved, want an error", bad)
		} else if bad != "" && !errors.Is(err, ErrEscapes) {
			t.Errorf("%s: %v, want ErrEscapes", bad, err)
		}
	}
}

func TestWriteFile(t *testing.T) {
	d := testDirs(t)
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(d.TaskDir, "local", "out")); err != nil {
		t.Fatal(err)
	}
	root, rel, err := d.Resolve("local/sub/app.conf")
	if err != nil {
		t.Fatal(err)
	}
	changed, err := WriteFile(root, rel, []byte("v1"), 0o600, nil, nil)
	if err != nil || !changed {
		t.Fatalf("first write: %v %v", changed, err)
	}
	fi, err := os.Stat(filepath.Join(d.TaskDir, "local", "sub", "app.conf"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("stat: %v %v", fi, err)
	}
	if changed, err := WriteFile(root, rel, []byte("v1"), 0o600, nil, nil); err != nil || changed {
		t.Fatalf("same content: changed=%v %v", changed, err)
	}
	if changed, err := WriteFile(root, rel, []byte("v1"), 0o640, nil, nil); err != nil || !changed {
		t.Fatalf("new perms: changed=%v %v", changed, err)
	}
	uid, gid := os.Getuid(), os.Getgid()
	if changed, err := WriteFile(root, rel, []byte("v2"), 0o640, &uid, &gid); err != nil || !changed {
		t.Fatalf("new content: changed=%v %v", changed, err)
	}
	if b, _ := os.ReadFile(filepath.Join(d.TaskDir, "local", "sub", "app.conf")); string(b) != "v2" {
		t.Fatalf("content %q", b)
	}
	root, rel, err = d.Resolve("local/out/evil")
	if err != nil {
		t.Fatal(err) // lexically inside: the symlink is caught when writing
	}
	if _, err := WriteFile(root, rel, []byte("x"), 0o644, nil, nil); !errors.Is(err, ErrEscapes) {
		t.Fatalf("write through symlink: %v, want ErrEscapes", err)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Fatalf("wrote outside: %v", ents)
	}
}
