package rpcserver

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/rpc"
	"runtime"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-msgpack/v2/codec"
	"github.com/hashicorp/yamux"

	"github.com/nomadish/nomadish/rpcclient"
	"github.com/nomadish/nomadish/structs"
)

// decodeBudgeted decodes raw into out through a budgetReader of limit bytes
// and reports whether the reader refused it as over budget.
func decodeBudgeted(raw []byte, limit int64, out any) (over bool, err error) {
	r := &budgetReader{r: bufio.NewReader(bytes.NewReader(raw))}
	r.reset(limit)
	err = codec.NewDecoder(r, structs.MsgpackHandle).Decode(out)
	return r.over, err
}

// lenHeader is a msgpack str32/bin32/ext32 header (b) declaring n bytes.
func lenHeader(b byte, n uint32) []byte {
	return binary.BigEndian.AppendUint32([]byte{b}, n)
}

// The budget counts what the decoder consumes, exactly: a message decodes
// with a budget of its own length and is refused with one byte less; a
// string, binary or extension header declaring more than the budget left
// is refused before the decoder allocates it.
func TestBudgetReaderFraming(t *testing.T) {
	var buf bytes.Buffer
	job := testJob("budget")
	job.Meta = map[string]string{"k": strings.Repeat("v", 1000)}
	if err := codec.NewEncoder(&buf, structs.MsgpackHandle).Encode(&structs.JobRegisterRequest{Job: job}); err != nil {
		t.Fatal(err)
	}
	exact := buf.Bytes()
	var got structs.JobRegisterRequest
	if over, err := decodeBudgeted(exact, int64(len(exact)), &got); over || err != nil || got.Job.ID != "budget" {
		t.Fatalf("exact budget: over=%v err=%v job=%+v", over, err, got.Job)
	}
	if over, _ := decodeBudgeted(exact, int64(len(exact)-1), &structs.JobRegisterRequest{}); !over {
		t.Fatal("a budget one byte short was not refused")
	}

	const timeExt = 0xff // msgpack's time extension type (-1)
	for _, tc := range []struct {
		name string
		raw  []byte
		over bool
	}{
		// 9 bytes that made the decoder allocate 4 GiB at once.
		{"ext32 time declaring 4 GiB", append(lenHeader(0xc9, 0xfffffff0), timeExt, 1, 2), true},
		{"str32 declaring 1 GiB", append(lenHeader(0xdb, 1<<30), 'a'), true},
		{"bin32 declaring 1 GiB", append(lenHeader(0xc6, 1<<30), 'a'), true},
		{"str32 within the budget", append(lenHeader(0xdb, 100), bytes.Repeat([]byte("a"), 100)...), false},
		{"array of fixstr", append([]byte{0x93, 0xa1, 'a', 0xa1, 'b', 0xd9, 2}, "cd"...), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			var out any
			over, err := decodeBudgeted(tc.raw, 1<<20, &out)
			runtime.ReadMemStats(&after)
			if over != tc.over || (err == nil) == tc.over {
				t.Fatalf("over=%v err=%v, want over=%v", over, err, tc.over)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
				t.Fatalf("decoding allocated %d MiB", grew>>20)
			}
		})
	}
}

func TestRPCMessageBudgets(t *testing.T) {
	if got := rpcMessageBudget(structs.OperatorSnapshotRestoreRPC); got < structs.MaxSnapshotArchiveBytes+1024 {
		t.Fatalf("snapshot restore budget %d leaves no room for an archive of %d", got, structs.MaxSnapshotArchiveBytes)
	}
	if got := rpcMessageBudget(structs.JobRegisterRPC); got != RPCMaxMessageBytes || got < 8<<20 {
		t.Fatalf("Job.Register budget %d, want %d (above the HTTP API's 8 MiB body)", got, RPCMaxMessageBytes)
	}
}

// oversized is a request whose body is far above the default budget.
type oversized struct {
	name, method string
	prefix       []byte // the body's start
	chunks       int    // 1 MiB strings after it
	keyed        bool   // each string after the first gets a map key
}

var oversizedBodies = []oversized{
	// One 64 MiB string: refused at its header.
	{name: "64 MiB string", method: "Status.Leader",
		prefix: append([]byte{0x81, 0xa6, 'R', 'e', 'g', 'i', 'o', 'n'}, lenHeader(0xdb, 64<<20)...), chunks: 64},
	// 128 strings of 1 MiB kept in Job.Meta: refused once 16 MiB are read.
	{name: "128 MiB of Meta", method: "Job.Register",
		prefix: append([]byte{0x81, 0xa3, 'J', 'o', 'b', 0x81, 0xa4, 'M', 'e', 't', 'a', 0xdf, 0, 0, 0, 128, 0xa2, 'k', 0}, lenHeader(0xdb, 1<<20)...),
		chunks: 128, keyed: true},
}

// send writes the request on w until done or refused (the server closed
// the conversation) and sends on done the peak HeapInuse seen meanwhile.
func (o oversized) send(w io.Writer, done chan<- uint64) {
	var peak uint64
	defer func() { done <- peak }()
	enc := codec.NewEncoder(w, structs.MsgpackHandle)
	if err := enc.Encode(&rpc.Request{ServiceMethod: o.method, Seq: 1}); err != nil {
		return
	}
	if _, err := w.Write(o.prefix); err != nil {
		return
	}
	chunk := bytes.Repeat([]byte("a"), 1<<20)
	var ms runtime.MemStats
	for i := 0; i < o.chunks; i++ {
		if i > 0 && o.keyed {
			key := append([]byte{0xa2, 'k', byte(i)}, lenHeader(0xdb, 1<<20)...)
			if _, err := w.Write(key); err != nil {
				return
			}
		}
		if _, err := w.Write(chunk); err != nil {
			return
		}
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapInuse)
	}
}

// readAnswer reads one response from r: its error text, or the read error.
func readAnswer(r io.Reader) string {
	dec := codec.NewDecoder(r, structs.MsgpackHandle)
	var resp rpc.Response
	if err := dec.Decode(&resp); err != nil {
		return "read: " + err.Error()
	}
	return resp.Error
}

// The finding: a request far above the budget, sent over TCP by
// both wire protocols, is refused (a 413 when the answer gets through; on
// a multiplexed session only its stream closes), logged, and never
// buffered whole; the server keeps serving.
func TestRPCOversizedRequestOverTCP(t *testing.T) {
	logs := &lockedBuffer{}
	s := testServer(t, func(c *Config) {
		c.Logger = hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Info})
	})
	for _, proto := range []byte{rpcclient.RPCNomad, rpcclient.RPCMultiplex} {
		for _, o := range oversizedBodies {
			t.Run(fmt.Sprintf("proto %d %s", proto, o.name), func(t *testing.T) {
				conn, err := rpcclient.Dial(s.Addr(), proto, nil, rpcclient.DialTimeout)
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close()
				var rw io.ReadWriter = conn
				var sess *yamux.Session
				if proto == rpcclient.RPCMultiplex {
					if sess, err = yamux.Client(conn, rpcclient.YamuxConfig(hclog.NewNullLogger())); err != nil {
						t.Fatal(err)
					}
					defer sess.Close()
					if rw, err = sess.Open(); err != nil {
						t.Fatal(err)
					}
				}
				runtime.GC()
				var base runtime.MemStats
				runtime.ReadMemStats(&base)
				done := make(chan uint64, 1)
				go o.send(rw, done)

				answer := readAnswer(rw)
				if !strings.Contains(answer, "413: RPC request "+o.method+" exceeds") &&
					(proto == rpcclient.RPCMultiplex || !strings.HasPrefix(answer, "read: ")) {
					t.Fatalf("answer %q, want a 413 (or, on a plain connection, its closing)", answer)
				}
				if proto == rpcclient.RPCMultiplex {
					// The session lives on: another stream is answered.
					st, err := sess.Open()
					if err != nil {
						t.Fatal(err)
					}
					c := rpc.NewClientWithCodec(rpcclient.NewCodec(st))
					var leader string
					if err := c.Call("Status.Leader", &structs.GenericRequest{}, &leader); err != nil || leader == "" {
						t.Fatalf("another stream of the session: %q %v", leader, err)
					}
					c.Close()
					sess.Close() // unblocks the writer
				}
				conn.Close()
				peak := <-done
				grew := int64(peak) - int64(base.HeapInuse)
				t.Logf("heap in use grew by at most %d MiB while sending", grew>>20)
				if grew > 96<<20 {
					t.Fatalf("heap in use grew by %d MiB while sending", grew>>20)
				}
			})
		}
	}
	if n := strings.Count(logs.String(), "exceeds the byte budget for its method"); n != 4 {
		t.Fatalf("%d refusals logged, want 4:\n%s", n, logs.String())
	}
	var leader string
	if err := legacyClient(t, s).Call("Status.Leader", &structs.GenericRequest{}, &leader); err != nil || leader == "" {
		t.Fatalf("a new connection after the refusals: %q %v", leader, err)
	}
}

// Operator.SnapshotRestore has the larger budget (an archive above the
// default one reaches the endpoint, which finds it malformed) and one body
// is read at a time (another one meanwhile gets the 429 coded error). (The
// endpoint's own gate, one archive applied at a time, is server's
// TestRPCSnapshotRestoreGates.)
func TestRPCSnapshotRestoreBodyGate(t *testing.T) {
	s := tcpRPCServer(t)
	pool := rpcclient.NewPool(nil, hclog.NewNullLogger())
	t.Cleanup(func() { pool.Close() })
	restore := func(size int) error {
		args := structs.SnapshotRestoreRequest{Archive: make([]byte, size)}
		return pool.RPC(s.Addr(), structs.OperatorSnapshotRestoreRPC, &args, &structs.SnapshotRestoreResponse{})
	}
	wantCode := func(what string, err error, code int) {
		t.Helper()
		var ce *structs.CodedError
		if !errors.As(err, &ce) || ce.Code != code {
			t.Fatalf("%s: %v, want a %d coded error", what, err, code)
		}
	}
	wantCode("a 20 MiB archive", restore(20<<20), structs.ErrCodeBadRequest)

	s.restoreReading.Store(true) // another restore's body is being read
	err := restore(1024)
	wantCode("while another body is read", err, structs.ErrCodeTooManyRequests)
	if !strings.Contains(err.Error(), "a snapshot restore is already in progress") {
		t.Fatalf("message: %v", err)
	}
	s.restoreReading.Store(false)
	wantCode("after it", restore(1024), structs.ErrCodeBadRequest)
}
