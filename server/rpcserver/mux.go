package rpcserver

import (
	"net"

	"github.com/hashicorp/yamux"

	"github.com/nomadish/nomadish/rpcclient"
)

// serveMultiplex serves a yamux session (the RPCMultiplex protocol): each
// stream the peer opens is one net/rpc msgpack conversation, served on its
// own goroutine, so a blocking query holds only its stream. It returns when
// the session ends (the peer left, or Close closed the connection).
func (s *Server) serveMultiplex(conn net.Conn) {
	sess, err := yamux.Server(conn, rpcclient.YamuxConfig(s.logger.Named("yamux")))
	if err != nil {
		s.logger.Error("starting yamux session", "remote", conn.RemoteAddr(), "error", err)
		conn.Close()
		return
	}
	defer sess.Close()
	for {
		stream, err := sess.AcceptStream()
		if err != nil {
			if !sess.IsClosed() {
				s.logger.Debug("yamux session ended", "remote", conn.RemoteAddr(), "error", err)
			}
			return
		}
		go s.serveCodec(stream)
	}
}
