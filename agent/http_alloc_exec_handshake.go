package agent

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/websocket"

	"github.com/nomadish/nomadish/acl"
	"github.com/nomadish/nomadish/structs"
)

// execHandshakeWait bounds the wait for the handshake frame.
const execHandshakeWait = 10 * time.Second

// wsHandshakeMessage is the first frame of an exec session opened with
// ?ws_handshake=true, as Nomad's web UI sends it: a browser cannot set
// headers on a WebSocket, so the ACL token travels in this frame.
type wsHandshakeMessage struct {
	Version   int    `json:"version"`
	AuthToken string `json:"auth_token"`
}

// execRoute serves GET /v1/client/allocation/:id/exec. Without
// ws_handshake it is a client route: ACL check, forwarding to the
// allocation's node, then allocExec's checks before the upgrade. With
// ?ws_handshake=true (Nomad's): the connection is upgraded first, the
// first frame {"version":1,"auth_token":"<secret>"} gives the token (used
// instead of the request's headers when not empty), then come the ACL
// check and the other checks; a refusal is a close frame with code
// 4000 + the HTTP status (4403 Permission denied, 4404, 4400, 4501) and
// the message as the reason. A session for an allocation of another node
// is relayed to that node's client (proxyExec).
func (s *httpServer) execRoute() handlerFunc {
	plain := s.clientRoute("id", acl.NamespaceCapabilityAllocExec, s.allocExec)
	return func(w http.ResponseWriter, r *http.Request) (any, error) {
		if v := r.URL.Query().Get("ws_handshake"); v != "" {
			if on, err := strconv.ParseBool(v); err != nil {
				return nil, badRequest("ws_handshake value is not a boolean: %v", err)
			} else if on {
				return s.allocExecHandshake(w, r)
			}
		}
		return plain(w, r)
	}
}

func (s *httpServer) allocExecHandshake(w http.ResponseWriter, r *http.Request) (any, error) {
	er, err := parseExecRequest(r)
	if err != nil {
		return nil, err
	}
	conn, err := execUpgrader.Upgrade(w, r, nil)
	if err != nil {
		return nil, nil // Upgrade answered the client already
	}
	defer conn.Close()
	out := &execFrames{conn: conn}
	refuse := func(err error) {
		code, msg := errorStatus(err)
		out.close(4000+code, msg)
		_ = conn.SetReadDeadline(time.Now().Add(execCloseWait))
		_, _, _ = conn.ReadMessage() // the client's close, bounded
	}
	var h wsHandshakeMessage
	_ = conn.SetReadDeadline(time.Now().Add(execHandshakeWait))
	if err := conn.ReadJSON(&h); err != nil || h.Version != 1 {
		refuse(badRequest(`the first frame must be the handshake {"version":1,"auth_token":"..."}`))
		return nil, nil
	}
	_ = conn.SetReadDeadline(time.Time{})
	if h.AuthToken != "" {
		r = r.Clone(r.Context())
		r.Header.Set("X-Nomad-Token", h.AuthToken)
		r.Header.Del("Authorization")
	}
	if err := s.allowAlloc(r, er.allocID, acl.NamespaceCapabilityAllocExec); err != nil {
		refuse(err)
		return nil, nil
	}
	if s.Nodes != nil && r.Header.Get(forwardedHeader) == "" {
		if node := s.remoteNode(r, er.allocID); node != "" {
			s.proxyExec(conn, r, node, refuse)
			return nil, nil
		}
	}
	ex, err := s.execClient(r, er)
	if err == nil {
		err = ex.CheckAllocExec(er.allocID, er.task)
	}
	if err != nil {
		refuse(err)
		return nil, nil
	}
	s.execSession(r.Context(), conn, ex, er)
	return nil, nil
}

// proxyExec relays a handshake session to node's client: a WebSocket to
// it over the node tunnel with the token in its headers (no handshake
// there), then every frame copied both ways, and the close of either side
// passed to the other. A refusal of the node (before its upgrade) is
// refused here with its status.
func (s *httpServer) proxyExec(conn *websocket.Conn, r *http.Request, node string, refuse func(error)) {
	d := websocket.Dialer{HandshakeTimeout: execHandshakeWait,
		NetDialContext: func(ctx context.Context, _, _ string) (net.Conn, error) { return s.Nodes.DialNode(ctx, node) }}
	q := r.URL.Query()
	q.Del("ws_handshake")
	u := url.URL{Scheme: "ws", Host: "node-" + node, Path: r.URL.Path, RawQuery: q.Encode()}
	h := http.Header{forwardedHeader: {node}}
	if t := requestToken(r); t != "" {
		h.Set("X-Nomad-Token", t)
	}
	back, resp, err := d.DialContext(r.Context(), u.String(), h)
	if err != nil {
		if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
			refuse(structs.NewCodedError(resp.StatusCode, "%s", strings.TrimSpace(string(body))))
			return
		}
		refuse(structs.NewCodedError(http.StatusBadGateway, "forwarding to node %s: %v", node, err))
		return
	}
	defer back.Close()
	done := make(chan struct{}, 2)
	go relayFrames(back, conn, done)
	go relayFrames(conn, back, done)
	<-done
	select { // the other way's close, bounded
	case <-done:
	case <-time.After(execCloseWait):
	}
}

// relayFrames copies messages from src to dst until src fails or closes;
// then it sends dst the close (src's code and reason, or 1011 when src
// broke without one). Each connection has one writer: its relay.
func relayFrames(dst, src *websocket.Conn, done chan<- struct{}) {
	defer func() { done <- struct{}{} }()
	for {
		mt, data, err := src.ReadMessage()
		if err != nil {
			code, reason := websocket.CloseInternalServerErr, "the other side of the exec session went away"
			var ce *websocket.CloseError
			if errors.As(err, &ce) && ce.Code != websocket.CloseAbnormalClosure {
				code, reason = ce.Code, ce.Text
			}
			_ = dst.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(execCloseWait))
			return
		}
		if err := dst.WriteMessage(mt, data); err != nil {
			return
		}
	}
}
