package events

import (
	"fmt"
	"strings"

	"github.com/nomadish/nomadish/structs"
)

// Request is what a subscription keeps.
type Request struct {
	// Topics maps a topic (or structs.TopicAll) to the keys kept ("*": all);
	// a key matches an event's Key or one of its FilterKeys. Empty: every
	// topic.
	Topics map[structs.Topic][]string
	// Namespace keeps the events of one namespace ("*" or "": all); events
	// without a namespace (nodes, pools, ACL) are always kept.
	Namespace string
	// Index is where to start (Broker.Subscribe).
	Index uint64
	// Allow, when set, is asked for each event that passed the filters
	// above (ACLs); it runs on the subscription's goroutine.
	Allow func(*structs.Event) bool
}

// Validate checks the request's shape.
func (r *Request) Validate() error {
	for t, keys := range r.Topics {
		if t == "" {
			return fmt.Errorf("events: empty topic")
		}
		for _, k := range keys {
			if k == "" {
				return fmt.Errorf("events: empty key for topic %q", t)
			}
		}
	}
	return nil
}

// ParseTopics reads Nomad's ?topic= values: "Topic:Key", "Topic" (every
// key), "*" or "*:Key". None: every topic. A value with more than one ':'
// or an empty part is an error.
func ParseTopics(values []string) (map[structs.Topic][]string, error) {
	if len(values) == 0 {
		return map[structs.Topic][]string{structs.TopicAll: {"*"}}, nil
	}
	out := map[structs.Topic][]string{}
	for _, v := range values {
		parts := strings.Split(v, ":")
		topic, key := parts[0], "*"
		switch {
		case len(parts) == 2:
			key = parts[1]
		case len(parts) > 2:
			return nil, fmt.Errorf("invalid key value pair for topic: %q", v)
		}
		if topic == "" || key == "" {
			return nil, fmt.Errorf("invalid topic: %q", v)
		}
		out[structs.Topic(topic)] = append(out[structs.Topic(topic)], key)
	}
	return out, nil
}

// filter returns the events of evs the request keeps: evs itself when it
// keeps them all, else a new slice.
func (r *Request) filter(evs []structs.Event) []structs.Event {
	for i := range evs {
		if r.keeps(&evs[i]) {
			continue
		}
		kept := append(make([]structs.Event, 0, len(evs)-1), evs[:i]...)
		for j := i + 1; j < len(evs); j++ {
			if r.keeps(&evs[j]) {
				kept = append(kept, evs[j])
			}
		}
		return kept
	}
	return evs
}

// keeps reports whether e passes the topic, key, namespace and Allow
// filters.
func (r *Request) keeps(e *structs.Event) bool {
	if r.Namespace != "*" && r.Namespace != "" && e.Namespace != "" && e.Namespace != r.Namespace {
		return false
	}
	if len(r.Topics) > 0 && !matchKeys(e, r.Topics[e.Topic]) && !matchKeys(e, r.Topics[structs.TopicAll]) {
		return false
	}
	return r.Allow == nil || r.Allow(e)
}

// matchKeys reports whether one of keys is "*", e's Key or one of its
// FilterKeys.
func matchKeys(e *structs.Event, keys []string) bool {
	for _, k := range keys {
		if k == "*" || k == e.Key {
			return true
		}
		for _, fk := range e.FilterKeys {
			if k == fk {
				return true
			}
		}
	}
	return false
}
