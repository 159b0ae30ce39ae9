package agent

import (
	"net/http"
	"strconv"
	"time"

	"github.com/nomadish/nomadish/acl"
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
// the message as the reason. Handshake sessions are served by the agent
// whose client runs the allocation (they are not forwarded: 4501).
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
