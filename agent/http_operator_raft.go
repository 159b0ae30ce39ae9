package agent

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"net/http"
	"strconv"

	"github.com/nomadish/nomadish/structs"
)

// raftConfiguration serves GET /v1/operator/raft/configuration: Nomad's
// RaftConfigurationResponse {Servers: [{ID, Node, Address, Leader, Voter,
// RaftProtocol}], Index}. ?stale answers from this server's view.
func (s *httpServer) raftConfiguration(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	var reply structs.RaftConfigurationResponse
	if err := s.RPC.RPC(structs.OperatorRaftGetConfigurationRPC, &structs.GenericRequest{QueryOptions: q}, &reply); err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return reply, nil
}

// raftPeerDelete serves DELETE /v1/operator/raft/peer?id=ID or ?address=ADDR
// (exactly one): removes that server from the raft configuration. Answers
// 200 with no body, 400 for neither or both, 404 for an unknown peer.
func (s *httpServer) raftPeerDelete(w http.ResponseWriter, r *http.Request) (any, error) {
	q := r.URL.Query()
	args := structs.RaftPeerRequest{ID: q.Get("id"), Address: q.Get("address"), WriteRequest: s.parseWrite(r)}
	method := structs.OperatorRaftRemovePeerByIDRPC
	switch {
	case (args.ID == "") == (args.Address == ""):
		return nil, badRequest("Must specify either ?id with the server's ID or ?address with IP:port of peer to remove")
	case args.Address != "":
		method = structs.OperatorRaftRemovePeerByAddressRPC
	}
	var reply structs.GenericResponse
	if err := s.RPC.RPC(method, &args, &reply); err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return nil, nil
}

// snapshotSave serves GET /v1/operator/snapshot: the body is the snapshot
// archive (gzipped tar of meta.json, state.bin, SHA256SUMS) with
// X-Nomad-Index and a Digest header (sha-256, base64) that the official
// client checks.
func (s *httpServer) snapshotSave(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	var reply structs.SnapshotSaveResponse
	if err := s.RPC.RPC(structs.OperatorSnapshotSaveRPC, &structs.GenericRequest{QueryOptions: q}, &reply); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(reply.Archive)
	w.Header().Set("Content-Type", "application/gzip")
	w.Header().Set("Digest", "sha-256="+base64.StdEncoding.EncodeToString(sum[:]))
	w.Header().Set("Content-Length", strconv.Itoa(len(reply.Archive)))
	setIndex(w, reply.Index)
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write(reply.Archive); err != nil {
		s.Logger.Warn("writing snapshot", "error", err)
	}
	return nil, nil
}

// maxSnapshotBytes caps a snapshot restore's body (compressed archive);
// other requests keep maxBodyBytes.
const maxSnapshotBytes = structs.MaxSnapshotArchiveBytes

// snapshotBodyKey is the request context key under which withSnapshotBody
// keeps the request body before wrap caps it at maxBodyBytes.
type snapshotBodyKey struct{}

// withSnapshotBody lets snapshotRestore read a body up to maxSnapshotBytes:
// it stashes the original body, capped at that size, in the request context.
// Registered around wrap for the restore routes only.
func withSnapshotBody(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body := http.MaxBytesReader(w, r.Body, maxSnapshotBytes)
		next(w, r.WithContext(context.WithValue(r.Context(), snapshotBodyKey{}, body)))
	}
}

// snapshotRestore serves PUT|POST /v1/operator/snapshot with an archive
// written by GET /v1/operator/snapshot as the body (at most 512 MiB): the
// cluster's state becomes the snapshot's. Answers 200 with X-Nomad-Index;
// 400 for a bad archive (nothing changes), 413 for a larger body, 429
// (structs.ErrSnapshotRestoreInProgress, body unread) while another restore
// runs on this agent: each holds its archive in memory.
func (s *httpServer) snapshotRestore(w http.ResponseWriter, r *http.Request) (any, error) {
	if !s.restoring.CompareAndSwap(false, true) {
		return nil, structs.ErrSnapshotRestoreInProgress
	}
	defer s.restoring.Store(false)
	src := io.Reader(r.Body)
	if b, ok := r.Context().Value(snapshotBodyKey{}).(io.Reader); ok {
		src = b
	}
	body, err := io.ReadAll(src)
	if err != nil {
		return nil, err
	}
	args := structs.SnapshotRestoreRequest{Archive: body, WriteRequest: s.parseWrite(r)}
	var reply structs.SnapshotRestoreResponse
	if err := s.RPC.RPC(structs.OperatorSnapshotRestoreRPC, &args, &reply); err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return nil, nil
}
