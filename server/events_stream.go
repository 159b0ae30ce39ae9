package server

import "github.com/nomadish/nomadish/server/events"

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
