package qmp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const greeting = `{"QMP": {"version": {"qemu": {"micro": 19, "minor": 2, "major": 7}, "package": "Debian 1:7.2"}, "capabilities": ["oob"]}}`

// fakeServer is a scripted QMP server on a unix socket: it serves one
// connection with script, then closes it.
func fakeServer(t *testing.T, script func(s *session)) string {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "qmp.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		script(&session{t: t, c: c, r: bufio.NewReader(c)})
	}()
	return sock
}

type session struct {
	t *testing.T
	c net.Conn
	r *bufio.Reader
}

func (s *session) send(line string) { _, _ = s.c.Write([]byte(line + "\n")) }

// expect reads one request and returns its command and raw id ("" on EOF).
func (s *session) expect() (string, string) {
	line, err := s.r.ReadBytes('\n')
	if err != nil {
		return "", ""
	}
	var req struct {
		Execute string          `json:"execute"`
		ID      json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(line, &req); err != nil {
		s.t.Errorf("client sent bad JSON %q", line)
	}
	return req.Execute, string(req.ID)
}

// reply answers the next request, which must be cmd, with body (the rest of
// a JSON object after the id).
func (s *session) reply(cmd, body string) {
	got, id := s.expect()
	if got != cmd {
		s.t.Errorf("client sent %q, want %q", got, cmd)
	}
	s.send(`{` + body + `, "id": ` + id + `}`)
}

func (s *session) handshake() {
	s.send(greeting)
	s.reply("qmp_capabilities", `"return": {}`)
}

func TestProtocol(t *testing.T) {
	cases := []struct {
		name    string
		script  func(s *session)
		dialErr string // substring of the Dial error, "" for success
		// run uses the connection (after a successful Dial).
		run func(t *testing.T, c *Conn)
	}{
		{name: "greeting, capabilities, command", script: func(s *session) {
			s.handshake()
			s.reply("query-status", `"return": {"status": "running", "running": true}`)
		}, run: func(t *testing.T, c *Conn) {
			if v := c.Version(); v.Major != 7 || v.Minor != 2 || v.Micro != 19 || v.Package != "Debian 1:7.2" {
				t.Errorf("version %+v", v)
			}
			ret, err := c.Execute(context.Background(), "query-status", nil)
			if err != nil || !strings.Contains(string(ret), `"running"`) {
				t.Fatalf("query-status: %s %v", ret, err)
			}
		}},
		{name: "not a greeting", dialErr: "protocol error", script: func(s *session) {
			s.send(`{"return": {}}`)
		}},
		{name: "garbage greeting", dialErr: "protocol error", script: func(s *session) {
			s.send(`hello`)
		}},
		{name: "capabilities refused", dialErr: "CommandNotFound", script: func(s *session) {
			s.send(greeting)
			s.reply("qmp_capabilities", `"error": {"class": "CommandNotFound", "desc": "nope"}`)
		}},
		{name: "command error", script: func(s *session) {
			s.handshake()
			s.reply("system_powerdown", `"error": {"class": "GenericError", "desc": "guest not running"}`)
		}, run: func(t *testing.T, c *Conn) {
			_, err := c.Execute(context.Background(), "system_powerdown", nil)
			var qe *Error
			if !errors.As(err, &qe) || qe.Class != "GenericError" || qe.Desc != "guest not running" {
				t.Fatalf("err = %v, want GenericError", err)
			}
		}},
		{name: "events before the reply", script: func(s *session) {
			s.handshake()
			_, id := s.expect()
			s.send(`{"timestamp": {"seconds": 1700000000, "microseconds": 5}, "event": "POWERDOWN"}`)
			s.send(`{"timestamp": {"seconds": 1700000001, "microseconds": 0}, "event": "SHUTDOWN", "data": {"guest": true}}`)
			s.send(`{"return": {}, "id": ` + id + `}`)
		}, run: func(t *testing.T, c *Conn) {
			if _, err := c.Execute(context.Background(), "system_powerdown", nil); err != nil {
				t.Fatal(err)
			}
			ev := <-c.Events()
			if ev.Name != "POWERDOWN" || ev.Timestamp.Seconds != 1700000000 || ev.Timestamp.Microseconds != 5 {
				t.Errorf("first event %+v", ev)
			}
			if ev = <-c.Events(); ev.Name != "SHUTDOWN" || string(ev.Data) != `{"guest": true}` {
				t.Errorf("second event %+v", ev)
			}
		}},
		{name: "reply without id", script: func(s *session) {
			s.handshake()
			s.expect()
			s.send(`{"error": {"class": "GenericError", "desc": "Invalid JSON syntax"}}`)
		}, run: func(t *testing.T, c *Conn) {
			_, err := c.Execute(context.Background(), "x", nil)
			var qe *Error
			if !errors.As(err, &qe) || qe.Desc != "Invalid JSON syntax" {
				t.Fatalf("err = %v", err)
			}
		}},
		{name: "server hangs up", script: func(s *session) {
			s.handshake()
			s.expect()
		}, run: func(t *testing.T, c *Conn) {
			_, err := c.Execute(context.Background(), "quit", nil)
			if !errors.Is(err, ErrClosed) {
				t.Fatalf("err = %v, want ErrClosed", err)
			}
			<-c.Done()
			if _, ok := <-c.Events(); ok {
				t.Error("events not closed")
			}
			if _, err := c.Execute(context.Background(), "quit", nil); !errors.Is(err, ErrClosed) {
				t.Fatalf("after hang-up: %v", err)
			}
		}},
		{name: "no answer: context ends", script: func(s *session) {
			s.handshake()
			s.expect()
			s.expect() // silent until the client hangs up
		}, run: func(t *testing.T, c *Conn) {
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			if _, err := c.Execute(ctx, "query-status", nil); !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("err = %v, want deadline exceeded", err)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sock := fakeServer(t, tc.script)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			c, err := Dial(ctx, sock)
			if tc.dialErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.dialErr) {
					t.Fatalf("Dial err = %v, want one containing %q", err, tc.dialErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Dial: %v", err)
			}
			defer c.Close()
			tc.run(t, c)
		})
	}
}

// The request on the wire: execute, arguments and a string id.
func TestRequestEncoding(t *testing.T) {
	got := make(chan string, 1)
	sock := fakeServer(t, func(s *session) {
		s.handshake()
		line, _ := s.r.ReadString('\n')
		got <- line
		var req struct{ ID json.RawMessage }
		_ = json.Unmarshal([]byte(line), &req)
		s.send(`{"return": {}, "id": ` + string(req.ID) + `}`)
	})
	c, err := Dial(context.Background(), sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Execute(context.Background(), "human-monitor-command", map[string]string{"command-line": "info version"}); err != nil {
		t.Fatal(err)
	}
	var req map[string]any
	if err := json.Unmarshal([]byte(<-got), &req); err != nil {
		t.Fatal(err)
	}
	args, _ := req["arguments"].(map[string]any)
	if req["execute"] != "human-monitor-command" || args["command-line"] != "info version" || req["id"] == nil {
		t.Fatalf("request %v", req)
	}
}

func TestDialNoSocket(t *testing.T) {
	if _, err := Dial(context.Background(), filepath.Join(t.TempDir(), "none.sock")); err == nil {
		t.Fatal("Dial of a missing socket succeeded")
	}
}
