package agent

import (
	"net/http"

	"github.com/nomadish/nomadish/ui"
)

// uiRoutes serves the embedded web UI (package ui) at /ui/ and redirects /
// there (307, as Nomad), when the agent's ui.enabled is set (the default).
// Its files are public, like Nomad's: the pages read everything through
// the API with the browser's token, and the API checks it.
func (s *httpServer) uiRoutes(h func(string, handlerFunc)) {
	if !s.UIEnabled {
		return
	}
	files := ui.Handler()
	h("GET /{$}", func(w http.ResponseWriter, r *http.Request) (any, error) {
		http.Redirect(w, r, ui.Prefix, http.StatusTemporaryRedirect)
		return nil, nil
	})
	h("GET "+ui.Prefix, func(w http.ResponseWriter, r *http.Request) (any, error) {
		files.ServeHTTP(w, r)
		return nil, nil
	})
}
