package agent

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime/debug"
	"time"
)

// httpPanicMessage is the body of the 500 a request gets when its handler
// panicked; the details stay in the agent's log.
const httpPanicMessage = "internal error: the agent recovered from a failure while handling %s %s and logged it"

// trackingWriter records whether the status line was sent, so a recovered
// panic knows whether it may still answer 500. It passes Flush, Hijack
// (WebSocket upgrades) and Unwrap (http.ResponseController) through.
type trackingWriter struct {
	http.ResponseWriter
	wrote bool
}

func (t *trackingWriter) WriteHeader(code int) {
	t.wrote = true
	t.ResponseWriter.WriteHeader(code)
}

func (t *trackingWriter) Write(b []byte) (int, error) {
	t.wrote = true
	return t.ResponseWriter.Write(b)
}

// Flush sends buffered data (the log stream flushes after each frame).
func (t *trackingWriter) Flush() {
	t.wrote = true
	_ = http.NewResponseController(t.ResponseWriter).Flush()
}

// Hijack hands the connection over (the exec WebSocket).
func (t *trackingWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	t.wrote = true
	return http.NewResponseController(t.ResponseWriter).Hijack()
}

// Unwrap lets http.ResponseController reach the server's writer.
func (t *trackingWriter) Unwrap() http.ResponseWriter { return t.ResponseWriter }

// recoverHTTP, deferred by wrap around a handler, stops a panic: it logs
// the route, the panic value and the stack, and answers 500 with a
// plain-text message (the form of every error; see errorStatus) when
// nothing was sent yet. When the answer had already begun (a log stream)
// or the connection was hijacked, it aborts the response instead, so the
// client sees a broken stream rather than a clean end. http.ErrAbortHandler
// passes through untouched: it is net/http's own way to abort.
func (s *httpServer) recoverHTTP(w *trackingWriter, r *http.Request, start time.Time) {
	p := recover()
	if p == nil {
		return
	}
	if p == http.ErrAbortHandler {
		panic(p)
	}
	route := r.Pattern
	if route == "" {
		route = r.Method + " " + r.URL.Path
	}
	s.Logger.Error("HTTP handler panicked; the request fails with 500",
		"route", route, "path", r.URL.Path, "panic", fmt.Sprint(p), "stack", string(debug.Stack()),
		"duration", time.Since(start))
	if w.wrote {
		panic(http.ErrAbortHandler)
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusInternalServerError)
	_, _ = io.WriteString(w, fmt.Sprintf(httpPanicMessage, r.Method, r.URL.Path))
}
