// Package ui is the web UI: hand-written HTML, CSS and ES modules under
// assets/, embedded in the binary and served by the agent at /ui/. Pages
// read the cluster through the public HTTP API alone (the one the CLI
// uses); this package only serves files. It imports the standard library
// only (TestUIImportsStdlibOnly).
package ui

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"time"
)

// Prefix is where the agent mounts Handler.
const Prefix = "/ui/"

//go:embed assets
var assets embed.FS

// contentTypes are the types of the files the UI ships, fixed here rather
// than read from the host's MIME tables (which differ between systems).
var contentTypes = map[string]string{
	".html":  "text/html; charset=utf-8",
	".js":    "text/javascript; charset=utf-8",
	".mjs":   "text/javascript; charset=utf-8",
	".css":   "text/css; charset=utf-8",
	".json":  "application/json",
	".svg":   "image/svg+xml",
	".png":   "image/png",
	".ico":   "image/x-icon",
	".woff2": "font/woff2",
	".txt":   "text/plain; charset=utf-8",
}

// csp lets pages load only the agent's own scripts, styles and API.
const csp = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

// file is one embedded asset with what its answers need.
type file struct {
	body  []byte
	ctype string
	etag  string
}

// Handler serves the UI under Prefix: /ui/assets/<name> is that asset (a
// missing one 404), and every other path under /ui/ is index.html, so deep
// links (/ui/jobs/web) load the app, which routes in the browser. Assets
// carry an ETag of their content and "Cache-Control: no-cache" (their
// names carry no hash, so the browser revalidates and gets a 304). Only
// GET and HEAD are answered.
func Handler() http.Handler {
	files, err := load()
	if err != nil {
		panic(err) // the embedded tree is fixed at build time; TestHandler covers it
	}
	return &handler{files: files}
}

type handler struct {
	files map[string]*file // by slash path below assets/, e.g. "app.js"
}

// load reads every embedded asset once.
func load() (map[string]*file, error) {
	files := map[string]*file{}
	err := fs.WalkDir(assets, "assets", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := assets.ReadFile(p)
		if err != nil {
			return fmt.Errorf("ui: reading embedded %s: %w", p, err)
		}
		sum := sha256.Sum256(b)
		ctype, ok := contentTypes[path.Ext(p)]
		if !ok {
			ctype = "application/octet-stream"
		}
		files[strings.TrimPrefix(p, "assets/")] = &file{body: b, ctype: ctype, etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("ui: walking embedded assets: %w", err)
	}
	if files["index.html"] == nil {
		return nil, fmt.Errorf("ui: no embedded index.html")
	}
	return files, nil
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	rel, ok := strings.CutPrefix(r.URL.Path, strings.TrimSuffix(Prefix, "/"))
	if !ok {
		http.NotFound(w, r)
		return
	}
	// Clean against a rooted path: ".." can't climb above /ui/.
	p := path.Clean("/" + rel)
	f := h.files["index.html"]
	if name, isAsset := strings.CutPrefix(p, "/assets/"); isAsset || p == "/assets" {
		f = h.files[name]
		if f == nil || !fs.ValidPath(name) {
			http.NotFound(w, r)
			return
		}
	}
	hd := w.Header()
	hd.Set("Content-Type", f.ctype)
	hd.Set("Cache-Control", "no-cache")
	hd.Set("ETag", f.etag)
	hd.Set("X-Content-Type-Options", "nosniff")
	if f.ctype == contentTypes[".html"] {
		hd.Set("Content-Security-Policy", csp)
		hd.Set("Referrer-Policy", "same-origin")
	}
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(f.body))
}
