package server

import (
	"context"
	"path/filepath"
	"time"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/server/keyring"
	"github.com/nomadish/nomadish/structs"
)

// keyRetry is how long the keyring replicator waits before trying again
// when no peer holds a key yet. A network wait on wall time, like the RPC
// hold timeout.
const keyRetry = time.Second

// newKeyring opens the server's root keystore: <data_dir>/server/keystore,
// in memory with -dev.
func (s *Server) newKeyring() (*keyring.Keyring, error) {
	if s.cfg.DevMode || s.cfg.DataDir == "" {
		return keyring.New("")
	}
	return keyring.New(filepath.Join(s.cfg.DataDir, "server", "keystore"))
}

// replicateKeys runs on every server until shutdown: each root key the
// raft state names and this server's keyring lacks is fetched from a peer
// (Keyring.Get, a stale read any server holding the key answers) and
// stored in the local keystore, as Nomad's keyring replicator.
func (s *Server) replicateKeys() {
	defer s.wg.Done()
	for {
		st := s.State()
		ws := memdb.NewWatchSet()
		ws.Add(st.AbandonCh())
		metas, err := st.RootKeyMetas(ws)
		missing := false
		for _, m := range metas {
			if !s.keyring.Has(m.KeyID) && !s.fetchKey(m.KeyID) {
				missing = true
			}
		}
		if err != nil || missing {
			select {
			case <-s.shutdownCh:
				return
			case <-time.After(keyRetry):
			}
			continue
		}
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			select {
			case <-s.shutdownCh:
				cancel()
			case <-ctx.Done():
			}
		}()
		err = ws.WatchCtx(ctx)
		cancel()
		if s.isShutdown() {
			return
		}
	}
}

// fetchKey asks each other raft server for id's material until one has
// it; true when stored.
func (s *Server) fetchKey(id string) bool {
	servers, _, err := s.RaftServers()
	if err != nil {
		return false
	}
	for _, srv := range servers {
		if srv.Address == "" || srv.Address == s.advertise {
			continue
		}
		args := structs.KeyringGetRequest{KeyID: id, QueryOptions: structs.QueryOptions{AllowStale: true, Region: s.cfg.Region}}
		var reply structs.KeyringGetResponse
		if err := s.rpc.Peers().RPC(srv.Address, structs.KeyringGetRPC, &args, &reply); err != nil || reply.Material == nil {
			continue
		}
		if reply.Meta == nil || reply.Meta.KeyID != id {
			continue
		}
		if err := s.keyring.Add(reply.Meta, reply.Material); err != nil {
			s.logger.Error("storing a replicated root key", "key_id", id, "error", err)
			return false
		}
		s.logger.Info("replicated root key", "key_id", id, "from", srv.Address)
		return true
	}
	return false
}

// isShutdown reports whether Shutdown began.
func (s *Server) isShutdown() bool {
	select {
	case <-s.shutdownCh:
		return true
	default:
		return false
	}
}
