package agent

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/nomadish/nomadish/acl"
	"github.com/nomadish/nomadish/server/events"
	"github.com/nomadish/nomadish/structs"
)

// EventSubscriber is the in-process server's event stream buffer
// (server/events.Broker).
type EventSubscriber interface {
	Subscribe(req events.Request) (*events.Subscription, error)
}

var _ EventSubscriber = (*events.Broker)(nil)

// eventHeartbeat is how often an idle stream sends a "{}" frame, as Nomad.
const eventHeartbeat = 10 * time.Second

// eventWriteTimeout bounds writing one frame: a client that stops reading
// ends its stream.
const eventWriteTimeout = 30 * time.Second

// errEventsDisabled answers the stream when the server runs with
// event_buffer_size = 0.
var errEventsDisabled = structs.NewCodedError(structs.ErrCodeNotFound, "Event broker disabled (server.event_buffer_size = 0)")

// eventRoutes adds GET /v1/event/stream.
func (s *httpServer) eventRoutes(h func(string, handlerFunc)) {
	h("GET /v1/event/stream", s.eventStream)
}

// eventStream serves GET /v1/event/stream?topic=T:K&namespace=&index=: one
// NDJSON frame {"Index","Events"} per raft index with kept events, flushed
// each, and "{}" every 10 s while idle, until the client goes away. A
// subscriber the buffer overtook gets an {"Error":...} frame and the end.
func (s *httpServer) eventStream(w http.ResponseWriter, r *http.Request) (any, error) {
	req, err := s.eventRequest(r)
	if err != nil {
		return nil, err
	}
	if s.Events == nil {
		switch {
		case s.EventsDisabled:
			return nil, errEventsDisabled
		case s.Servers != nil: // a client-only agent (http_events_forward.go)
			return nil, s.forwardEvents(w, r)
		}
		return nil, structs.NewCodedError(http.StatusNotImplemented, "this agent runs no server: ask a server's HTTP API for /v1/event/stream")
	}
	if err := s.authorizeEvents(requestToken(r), req); err != nil {
		return nil, err
	}
	sub, err := s.Events.Subscribe(req)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(r.Context())
	frames := make(chan structs.Events)
	errc := make(chan error, 1)
	done := make(chan struct{})
	defer func() { cancel(); <-done }() // the reader ends with the handler
	go func() {
		defer close(done)
		for {
			batch, err := sub.Next(ctx)
			if err != nil {
				errc <- err
				return
			}
			select {
			case frames <- batch:
			case <-ctx.Done():
				errc <- ctx.Err()
				return
			}
		}
	}()
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w)
	send := func(v any) error {
		_ = rc.SetWriteDeadline(time.Now().Add(eventWriteTimeout))
		if err := enc.Encode(v); err != nil {
			return err
		}
		return rc.Flush()
	}
	if err := rc.Flush(); err != nil { // the headers, at once
		return nil, nil
	}
	tick := time.NewTicker(eventHeartbeat)
	defer tick.Stop()
	for {
		var err error
		select {
		case b := <-frames:
			err = send(b)
		case <-tick.C:
			err = send(struct{}{})
		case err = <-errc:
			if !errors.Is(err, context.Canceled) {
				_ = send(struct{ Error string }{err.Error()})
			}
			return nil, nil
		}
		if err != nil { // the client went away
			return nil, nil
		}
	}
}

// eventRequest reads the stream's parameters: bad topics or index are 400.
func (s *httpServer) eventRequest(r *http.Request) (events.Request, error) {
	q := r.URL.Query()
	topics, err := events.ParseTopics(q["topic"])
	if err != nil {
		return events.Request{}, badRequest("Invalid topic: %v", err)
	}
	req := events.Request{Topics: topics, Namespace: q.Get("namespace")}
	if req.Namespace == "" {
		req.Namespace = "default"
	}
	if v := q.Get("index"); v != "" {
		if req.Index, err = strconv.ParseUint(v, 10, 64); err != nil {
			return events.Request{}, badRequest("Invalid index %q: %v", v, err)
		}
	}
	req.Allow = s.eventACL(requestToken(r))
	return req, nil
}

// eventNeed is what reading one topic's events in namespace ns takes:
// Job, Evaluation, Allocation, Deployment and Service events read-job in
// their namespace, Node, NodeDrain and NodePool node:read, the ACL topics
// (and any other) a management token, as Nomad.
type eventNeed struct{ kind, capability, namespace string }

func eventNeedOf(topic structs.Topic, ns string) eventNeed {
	switch topic {
	case structs.TopicJob, structs.TopicEvaluation, structs.TopicAllocation, structs.TopicDeployment, structs.TopicService:
		return eventNeed{needNamespace, acl.NamespaceCapabilityReadJob, ns}
	case structs.TopicNode, structs.TopicNodeDrain, structs.TopicNodePool:
		return eventNeed{needNode, "read", ""}
	}
	return eventNeed{needManagement, "", ""}
}

// eventTopics lists the topics a stream may carry ("*": every topic).
var eventTopics = []structs.Topic{structs.TopicJob, structs.TopicEvaluation, structs.TopicAllocation,
	structs.TopicDeployment, structs.TopicService, structs.TopicNode, structs.TopicNodeDrain,
	structs.TopicNodePool, structs.TopicACLToken, structs.TopicACLPolicy}

// authorizeEvents checks, with ACLs on, that token may read at least one of
// the requested topics (in the request's namespace; "default" for "*"):
// else the stream is refused with the token's error (403). The events are
// then filtered one by one (eventACL).
func (s *httpServer) authorizeEvents(token string, req events.Request) error {
	if !s.ACLEnabled {
		return nil
	}
	ns := req.Namespace
	if ns == "*" {
		ns = "default"
	}
	topics := eventTopics
	if _, all := req.Topics[structs.TopicAll]; !all {
		topics = nil
		for t := range req.Topics {
			topics = append(topics, t)
		}
	}
	var firstErr error
	for _, t := range topics {
		err := s.authorizeEventNeed(token, eventNeedOf(t, ns))
		if err == nil {
			return nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return firstErr
}

func (s *httpServer) authorizeEventNeed(token string, n eventNeed) error {
	args := structs.ACLAuthorizeRequest{Kind: n.kind, Capability: n.capability}
	args.AuthToken, args.Region, args.Namespace, args.AllowStale = token, s.Region, n.namespace, true
	return s.RPC.RPC(structs.ACLAuthorizeRPC, &args, &structs.GenericResponse{})
}

// eventACL returns the per-event ACL check of token (nil with ACLs off),
// by eventNeedOf. Answers are remembered for the stream's life (a token
// deleted or changed meanwhile keeps what it could read when the stream
// started); it runs on the stream's goroutine only.
func (s *httpServer) eventACL(token string) func(*structs.Event) bool {
	if !s.ACLEnabled {
		return nil
	}
	known := map[eventNeed]bool{}
	return func(e *structs.Event) bool {
		n := eventNeedOf(e.Topic, e.Namespace)
		if ok, seen := known[n]; seen {
			return ok
		}
		ok := s.authorizeEventNeed(token, n) == nil
		known[n] = ok
		return ok
	}
}
