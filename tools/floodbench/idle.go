package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// holdIdle opens n idle connections to addr from 127.0.<net>.2 ..
// 127.0.<net>.<sources+1> in turn (even ones silent, odd ones after one
// keep-alive GET /v1/status/leader), prints "held <open> failed <n>", and
// keeps them until stdin closes. The e2e flood test runs it so the flood
// is not bounded by one process's open-file limit.
func holdIdle(addr string, n, sources, netByte int) error {
	var mu sync.Mutex
	var conns []net.Conn
	var failed, next atomic.Int64
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(n); i = next.Add(1) - 1 {
				src := &net.TCPAddr{IP: net.IPv4(127, 0, byte(netByte), byte(2+i%int64(max(sources, 1))))}
				d := net.Dialer{LocalAddr: src, Timeout: 10 * time.Second}
				c, err := d.Dial("tcp", addr)
				if err != nil {
					failed.Add(1)
					continue
				}
				if i%2 == 1 {
					keepAlive(c, addr)
				}
				mu.Lock()
				conns = append(conns, c)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	fmt.Printf("held %d failed %d\n", len(conns), failed.Load())
	_, _ = io.Copy(io.Discard, os.Stdin)
	for _, c := range conns {
		c.Close()
	}
	return nil
}

// keepAlive sends one request on c and reads its answer, leaving c open.
func keepAlive(c net.Conn, addr string) {
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	defer c.SetDeadline(time.Time{})
	if _, err := fmt.Fprintf(c, "GET /v1/status/leader HTTP/1.1\r\nHost: %s\r\n\r\n", addr); err != nil {
		return
	}
	if resp, err := http.ReadResponse(bufio.NewReader(c), nil); err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}
