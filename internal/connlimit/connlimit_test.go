package connlimit

import (
	"errors"
	"net"
	"testing"
)

func TestLimiterPerIP(t *testing.T) {
	l := New(2)
	a := &net.TCPAddr{IP: net.IPv4(10, 0, 0, 1), Port: 1}
	b := &net.TCPAddr{IP: net.IPv4(10, 0, 0, 1), Port: 2} // same IP, other port
	r1, err1 := l.Acquire(a)
	r2, err2 := l.Acquire(b)
	if err1 != nil || err2 != nil || l.Held(a) != 2 {
		t.Fatalf("two slots: %v %v, held %d", err1, err2, l.Held(a))
	}
	if _, err := l.Acquire(a); !errors.Is(err, ErrPerClientLimit) {
		t.Fatalf("third slot: %v, want ErrPerClientLimit", err)
	}
	if _, err := l.AcquireIP("10.0.0.2"); err != nil {
		t.Fatalf("another IP: %v", err)
	}
	r1()
	r1() // a second release does nothing
	if l.Held(a) != 1 {
		t.Fatalf("held %d after one release, want 1", l.Held(a))
	}
	r2()
	if _, err := New(0).Acquire(a); err != nil {
		t.Fatalf("unlimited: %v", err)
	}
	var nilL *Limiter
	if r, err := nilL.Acquire(a); err != nil || r == nil {
		t.Fatalf("nil limiter: %v", err)
	}
	if HostIP("[::1]:80") != "::1" || HostIP("nohost") != "nohost" {
		t.Fatal("HostIP")
	}
}
