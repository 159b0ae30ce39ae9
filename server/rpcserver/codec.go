package rpcserver

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/rpc"

	"github.com/hashicorp/go-msgpack/v2/codec"
	msgpackrpc "github.com/hashicorp/net-rpc-msgpackrpc/v2"

	"github.com/nomadish/nomadish/structs"
)

// Byte budgets of one RPC request (header and body together) on the RPC
// port. A request that reads more fails its conversation (the RPCNomad
// connection or the RPCMultiplex stream), so a peer cannot make the server
// buffer an unbounded message. The budget counts bytes as the decoder
// consumes them; it is not a bound on the decoded size (msgpack needs a
// byte per empty element, which can decode to a larger value).
const (
	// RPCMaxMessageBytes is every method's budget but the snapshot
	// restore's. The largest legitimate requests are Job.Register of a job
	// read through the HTTP API (whose body is capped at 8 MiB of JSON,
	// larger than its msgpack) and a client's Node.UpdateAlloc batch
	// (a few KiB per allocation).
	RPCMaxMessageBytes = 16 << 20
	// RPCMaxSnapshotMessageBytes is Operator.SnapshotRestore's budget: an
	// archive of structs.MaxSnapshotArchiveBytes plus room for the
	// request's other fields and msgpack's framing.
	RPCMaxSnapshotMessageBytes = structs.MaxSnapshotArchiveBytes + 1<<20
)

// errRPCOverBudget is what the budgeted reader returns once a request has
// read its budget; the decoder fails with it (possibly as text, so callers
// ask the reader, not the error).
var errRPCOverBudget = errors.New("server: RPC request exceeds its byte budget")

// rpcMessageBudget is the byte budget of a request for method (without the
// forwarded prefix).
func rpcMessageBudget(method string) int64 {
	if method == structs.OperatorSnapshotRestoreRPC {
		return RPCMaxSnapshotMessageBytes
	}
	return RPCMaxMessageBytes
}

// budgetReader counts the bytes the decoder consumes for the current
// request and refuses to read past its limit. It is an io.ByteScanner, so
// the msgpack decoder reads through it byte-exactly (no read-ahead of its
// own); the bufio.Reader below may read ahead into the next request, which
// is not counted until consumed.
//
// It also follows the msgpack framing of what it passes (framer) and fails
// as soon as a string, binary or extension header declares more bytes than
// the budget has left: the decoder allocates some of those (an extension
// all of them: a 9-byte time extension declaring 4 GiB made it allocate
// 4 GiB) before reading them. Only the conversation's reading goroutine
// uses it.
type budgetReader struct {
	r       *bufio.Reader
	read    int64 // bytes consumed by the current request
	scanned int64 // bytes of the current request passed through frame (>= read after an unread)
	limit   int64
	over    bool // the current request hit its limit
	frame   framer
}

// reset starts a request with a budget of limit bytes.
func (b *budgetReader) reset(limit int64) {
	b.read, b.scanned, b.limit, b.over, b.frame = 0, 0, limit, false, framer{}
}

// see passes p, the bytes from b.read on just consumed, to the framer (the
// ones it has not seen: a byte read again after UnreadByte is not).
func (b *budgetReader) see(p []byte) error {
	if fresh := b.read + int64(len(p)) - b.scanned; fresh > 0 {
		if !b.frame.feed(p[int64(len(p))-fresh:], b.limit-b.read-int64(len(p))) {
			b.over = true
			return errRPCOverBudget
		}
		b.scanned += fresh
	}
	b.read += int64(len(p))
	return nil
}

func (b *budgetReader) Read(p []byte) (int, error) {
	left := b.limit - b.read
	if left <= 0 {
		b.over = true
		return 0, errRPCOverBudget
	}
	if int64(len(p)) > left {
		p = p[:left]
	}
	n, err := b.r.Read(p)
	if ferr := b.see(p[:n]); ferr != nil {
		return 0, ferr
	}
	return n, err
}

func (b *budgetReader) ReadByte() (byte, error) {
	if b.read >= b.limit {
		b.over = true
		return 0, errRPCOverBudget
	}
	c, err := b.r.ReadByte()
	if err != nil {
		return 0, err
	}
	if err := b.see([]byte{c}); err != nil {
		return 0, err
	}
	return c, nil
}

func (b *budgetReader) UnreadByte() error {
	err := b.r.UnreadByte()
	if err == nil {
		b.read--
	}
	return err
}

// framer follows the msgpack framing of a byte stream, header by header:
// a header byte, then its length bytes (str, bin, ext), then its payload.
// Arrays and maps need no tracking: their elements are values that follow.
// The zero value expects a header.
type framer struct {
	skip    int64  // payload bytes still to pass
	lenLeft int    // length bytes still to read
	lenVal  uint64 // the length read so far
	extra   int64  // payload bytes beyond the length (an ext's type byte)
}

// feed passes p through the framer; left is the budget left after p. It
// reports false when a length in p declares a payload larger than left.
func (f *framer) feed(p []byte, left int64) bool {
	for i := 0; i < len(p); i++ {
		switch {
		case f.skip > 0:
			n := min(f.skip, int64(len(p)-i))
			f.skip -= n
			i += int(n) - 1
		case f.lenLeft > 0:
			f.lenVal = f.lenVal<<8 | uint64(p[i])
			if f.lenLeft--; f.lenLeft == 0 {
				if f.lenVal+uint64(f.extra) > uint64(left+int64(len(p)-i-1)) {
					return false
				}
				f.skip = int64(f.lenVal) + f.extra
			}
		default:
			f.header(p[i])
		}
	}
	return true
}

// header sets what follows header byte b.
func (f *framer) header(b byte) {
	f.lenVal, f.extra = 0, 0
	switch {
	case b <= 0x9f, b >= 0xe0, b == 0xc0, b == 0xc1, b == 0xc2, b == 0xc3:
		// fixint, fixmap, fixarray, nil, bools (0xc1 is invalid: the decoder says so)
	case b <= 0xbf: // fixstr
		f.skip = int64(b & 0x1f)
	case b == 0xc4, b == 0xd9: // bin8, str8
		f.lenLeft = 1
	case b == 0xc5, b == 0xda: // bin16, str16
		f.lenLeft = 2
	case b == 0xc6, b == 0xdb: // bin32, str32
		f.lenLeft = 4
	case b >= 0xc7 && b <= 0xc9: // ext8, ext16, ext32: length, type, data
		f.lenLeft, f.extra = 1<<(b-0xc7), 1
	case b == 0xca, b == 0xce, b == 0xd2: // float32, uint32, int32
		f.skip = 4
	case b == 0xcb, b == 0xcf, b == 0xd3: // float64, uint64, int64
		f.skip = 8
	case b == 0xcc, b == 0xd0: // uint8, int8
		f.skip = 1
	case b == 0xcd, b == 0xd1, b == 0xdc, b == 0xde: // uint16, int16, array16, map16 (count)
		f.skip = 2
	case b == 0xdd, b == 0xdf: // array32, map32 (count)
		f.skip = 4
	case b >= 0xd4 && b <= 0xd8: // fixext1..16: type, data
		f.skip = 1 + 1<<(b-0xd4)
	}
}

// budgetConn is the connection as the msgpack codec sees it: reads through
// the budget, writes and Close straight to the connection.
type budgetConn struct {
	*budgetReader
	io.WriteCloser
}

// serverCodec is the server's side of one RPC conversation: net/rpc's
// msgpack codec reading through a per-request byte budget. The budget is
// RPCMaxMessageBytes when a request header starts (ReadRequestHeader) and
// may be changed for its body (setBudget) once the header names the
// method. Reads happen on serveRPCCodec's goroutine; WriteResponse and
// Close may be called from any goroutine.
type serverCodec struct {
	*msgpackrpc.MsgpackCodec
	conn io.ReadWriteCloser
	in   *budgetReader
}

var _ rpc.ServerCodec = (*serverCodec)(nil)

func newServerCodec(conn io.ReadWriteCloser) *serverCodec {
	in := &budgetReader{r: bufio.NewReader(conn)}
	in.reset(RPCMaxMessageBytes)
	return &serverCodec{
		MsgpackCodec: msgpackrpc.NewCodecFromHandle(false, true, budgetConn{in, conn}, structs.MsgpackHandle),
		conn:         conn,
		in:           in,
	}
}

// ReadRequestHeader starts a new request: its budget is RPCMaxMessageBytes.
func (c *serverCodec) ReadRequestHeader(r *rpc.Request) error {
	c.in.reset(RPCMaxMessageBytes)
	return c.MsgpackCodec.ReadRequestHeader(r)
}

// snapshotRestoreHandle decodes Operator.SnapshotRestore bodies. Its
// MaxInitLen lets the archive be made at its declared size instead of
// grown 256 KiB at a time, which copies quadratically (measured: 1.5 s for
// 64 MiB, so about 90 s for 512 MiB). A declared length is bounded by the
// byte budget (framer), the request type has only strings and bytes, and
// one such body is read at a time (Server.restoreReading).
var snapshotRestoreHandle = func() *codec.MsgpackHandle {
	h := structs.NewMsgpackHandle()
	h.MaxInitLen = RPCMaxSnapshotMessageBytes
	return h
}()

// readSnapshotRestoreBody reads the current request's body into args, an
// *structs.SnapshotRestoreRequest, with snapshotRestoreHandle.
func (c *serverCodec) readSnapshotRestoreBody(args any) error {
	return codec.NewDecoder(c.in, snapshotRestoreHandle).Decode(args)
}

// setBudget sets the current request's budget (header bytes included).
func (c *serverCodec) setBudget(limit int64) { c.in.limit = limit }

// overBudget reports whether the last read failed because the current
// request read its whole budget, and that budget.
func (c *serverCodec) overBudget() (bool, int64) { return c.in.over, c.in.limit }

// remote is the peer's address, for logs ("" when unknown).
func (c *serverCodec) remote() string {
	if rc, ok := c.conn.(interface{ RemoteAddr() net.Addr }); ok && rc.RemoteAddr() != nil {
		return rc.RemoteAddr().String()
	}
	return ""
}

// Close closes the connection (or stream); safe from any goroutine, unlike
// MsgpackCodec.Close.
func (c *serverCodec) Close() error { return c.conn.Close() }

// tooLargeError is the answer to a request that exceeded its budget.
func tooLargeError(method string, limit int64) error {
	return structs.NewCodedError(structs.ErrCodeTooLarge,
		"RPC request %s exceeds the server's limit of %d bytes for it; the connection is closed", method, limit)
}
