// Package shared lets concurrent readers of the same answer at the same
// state index share one copy: when one write wakes thousands of blocking
// queries on the same list, the first builds (or encodes) the answer and
// the others reuse it instead of each holding its own.
package shared

import (
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

	mu sync.Mutex
	m  map[string]entry // guarded by mu
}

type entry struct {
	index uint64
	val   any
}

// Get returns the answer of key at index: the remembered one, else
// build's. A caller waiting for a build slot reuses an answer another
// caller finished meanwhile. index must identify the state build reads: two
// builds of key at the same index must give equal answers.
func (c *Cache) Get(key string, index uint64, build func() (any, error)) (any, error) {
	c.once.Do(func() { c.sem = make(chan struct{}, max(runtime.GOMAXPROCS(0), 1)) })
	if v, ok := c.lookup(key, index); ok {
		return v, nil
	}
	c.sem <- struct{}{}
	defer func() { <-c.sem }()
	if v, ok := c.lookup(key, index); ok {
		return v, nil
	}
	v, err := build()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]entry{}
	}
	if cur, ok := c.m[key]; !ok || cur.index <= index {
		if !ok && len(c.m) >= maxKeys {
			for k := range c.m {
				delete(c.m, k)
				break
			}
		}
		c.m[key] = entry{index: index, val: v}
	}
	return v, nil
}

func (c *Cache) lookup(key string, index uint64) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[key]; ok && e.index == index {
		return e.val, true
	}
	return nil, false
}
