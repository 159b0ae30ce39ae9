// Package shared lets concurrent readers of the same answer at the same
// state index share one copy: when one write wakes thousands of blocking
// queries on the same list, the first builds (or encodes) the answer and
// the others reuse it instead of each holding its own.
package shared

import (
	"errors"
	"runtime"
	"sync"
)

// maxKeys bounds how many distinct keys a Cache remembers; past it, an
// arbitrary one is forgotten.
const maxKeys = 256

// Cache remembers, per key, the latest answer and the index it was built
// at, and bounds how many builds run at once (GOMAXPROCS). The zero value
// is ready; safe for concurrent use. Answers are shared: callers must treat
// them as read-only.
type Cache struct {
	once sync.Once
	sem  chan struct{} // build slots

	mu       sync.Mutex
	m        map[string]entry // guarded by mu
	inflight map[string]*call // guarded by mu: the build running per key
}

// call is one build in progress; done closes when val and err are set.
type call struct {
	index uint64
	done  chan struct{}
	val   any
	err   error
}

type entry struct {
	index uint64
	val   any
}

// Get returns the answer of key at index: the remembered one, else
// build's. Callers asking for the same key and index while it is being
// built wait for that build and share its answer (a failed build is not
// shared: each of its waiters builds in turn). index must identify the
// state build reads: two builds of key at the same index must give equal
// answers.
func (c *Cache) Get(key string, index uint64, build func() (any, error)) (any, error) {
	c.once.Do(func() { c.sem = make(chan struct{}, max(runtime.GOMAXPROCS(0), 1)) })
	for {
		v, cl, mine := c.join(key, index)
		if cl == nil {
			return v, nil
		}
		if !mine {
			<-cl.done
			if cl.err == nil {
				return cl.val, nil
			}
			continue // the build failed: try again, maybe as the builder
		}
		c.run(key, cl, build)
		return cl.val, cl.err
	}
}

// errBuildPanicked is what the waiters of a build that panicked see (they
// then build in turn); the panic itself goes on up the builder's stack.
var errBuildPanicked = errors.New("shared: the build panicked")

// run builds cl in a build slot and finishes it, also when build panics,
// so its waiters never hang.
func (c *Cache) run(key string, cl *call, build func() (any, error)) {
	c.sem <- struct{}{}
	done := false
	defer func() {
		<-c.sem
		if !done {
			cl.err = errBuildPanicked
			c.finish(key, cl)
		}
	}()
	cl.val, cl.err = build()
	done = true
	c.finish(key, cl)
}

// join returns the remembered answer (cl nil), or the build of key at
// index in progress (mine false), or a new one the caller must run (mine
// true).
func (c *Cache) join(key string, index uint64) (v any, cl *call, mine bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[key]; ok && e.index == index {
		return e.val, nil, false
	}
	if cur := c.inflight[key]; cur != nil && cur.index == index {
		return nil, cur, false
	}
	cl = &call{index: index, done: make(chan struct{})}
	if c.inflight == nil {
		c.inflight = map[string]*call{}
	}
	if c.inflight[key] == nil {
		c.inflight[key] = cl // a build of another index keeps its place; this one runs unshared
	}
	return nil, cl, true
}

// finish remembers a successful answer (unless a newer index is
// remembered), ends the call and wakes its waiters.
func (c *Cache) finish(key string, cl *call) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.inflight[key] == cl {
		delete(c.inflight, key)
	}
	if cl.err == nil {
		if c.m == nil {
			c.m = map[string]entry{}
		}
		if cur, ok := c.m[key]; !ok || cur.index <= cl.index {
			if !ok && len(c.m) >= maxKeys {
				for k := range c.m {
					delete(c.m, k)
					break
				}
			}
			c.m[key] = entry{index: cl.index, val: cl.val}
		}
	}
	close(cl.done)
}
