package server

import (
	"net"

	"github.com/nomadish/nomadish/server/events"
)

// setupEvents builds the event stream's buffer when enabled and hands it to
// the state store, on every server (not just the leader), so any server
// answers GET /v1/event/stream. The FSM moves the publisher to a restored
// store.
func (s *Server) setupEvents() {
	if s.cfg.EventBufferSize <= 0 {
		return
	}
	s.events = events.New(s.cfg.EventBufferSize)
	s.fsm.State().SetEventPublisher(s.events)
}

// Events returns the event stream's buffer; nil when event_buffer_size is 0.
func (s *Server) Events() *events.Broker { return s.events }

// SetHTTPConnHandler sets what serves the connections that announce
// rpcclient.RPCServerHTTP on the RPC port: the agent's HTTP routes that
// only a server answers (the event stream), for client-only agents, which
// know the servers' RPC addresses only. h owns each connection; nil (the
// default) closes them.
func (s *Server) SetHTTPConnHandler(h func(net.Conn)) {
	ch := connHandler(h)
	s.httpConns.Store(&ch)
}

// connHandler owns a connection handed over by the RPC port.
type connHandler func(net.Conn)

func (s *Server) serveHTTPConn(conn net.Conn) {
	if h := s.httpConns.Load(); h != nil && *h != nil {
		(*h)(conn)
		return
	}
	conn.Close()
}
