package server

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/internal/clock/clocktest"
	"github.com/nomadish/nomadish/structs"
)

func TestExpiredTokenAccessors(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time { x := now.Add(d); return &x }
	tokens := []*structs.ACLToken{
		{AccessorID: "never"},
		{AccessorID: "future", ExpirationTime: at(time.Hour)},
		{AccessorID: "just-expired", ExpirationTime: at(-time.Minute)},
		{AccessorID: "old", ExpirationTime: at(-2 * time.Hour)},
		{AccessorID: "exactly", ExpirationTime: at(-time.Hour)},
	}
	got := expiredTokenAccessors(tokens, now, time.Hour)
	if want := []string{"old", "exactly"}; !slices.Equal(got, want) {
		t.Fatalf("expired = %v, want %v", got, want)
	}
}

// TestACLTokenGCOnLeader: with ACLs on, the leader deletes a token an hour
// after it expired, on the server's clock; a token without expiry stays.
func TestACLTokenGCOnLeader(t *testing.T) {
	clock := clocktest.NewFakeClock()
	s := testServer(t, func(c *Config) { c.Clock = clock; c.ACL.Enabled = true })
	var boot structs.ACLTokenUpsertResponse
	if err := s.RPC(structs.ACLBootstrapRPC, &structs.ACLTokenBootstrapRequest{}, &boot); err != nil {
		t.Fatal(err)
	}
	root := boot.Tokens[0].SecretID
	wr := structs.WriteRequest{AuthToken: root}
	if err := s.RPC(structs.ACLUpsertPoliciesRPC, &structs.ACLPolicyUpsertRequest{WriteRequest: wr,
		Policies: []*structs.ACLPolicy{{Name: "r", Rules: `node { policy = "read" }`}}}, &structs.GenericResponse{}); err != nil {
		t.Fatal(err)
	}
	var tr structs.ACLTokenUpsertResponse
	if err := s.RPC(structs.ACLUpsertTokensRPC, &structs.ACLTokenUpsertRequest{WriteRequest: wr,
		Tokens: []*structs.ACLToken{{Policies: []string{"r"}, ExpirationTTL: 10 * time.Minute}}}, &tr); err != nil {
		t.Fatal(err)
	}
	short := tr.Tokens[0].AccessorID
	// Each 5-minute tick reaps what expired an hour ago (the token expired
	// at 0h10). The reaper re-arms its timer on its own goroutine, so the
	// clock moves a tick at a time, each followed by a bounded wait on the
	// token's row, until a tick at 1h10 or later has run the GC.
	gone := false
	for i := 0; i < 200 && !gone; i++ {
		clock.Advance(aclTokenGCInterval)
		ws := memdb.NewWatchSet()
		tok, _ := s.State().ACLTokenByAccessorID(ws, short)
		if gone = tok == nil; !gone {
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			_ = ws.WatchCtx(ctx)
			cancel()
		}
	}
	if !gone {
		t.Fatalf("the token expired at 0h10 is still there at %v", clock.Now())
	}
	if clock.Now().Before(tr.Tokens[0].ExpirationTime.Add(aclTokenGCThreshold)) {
		t.Fatalf("collected at %v, before the threshold", clock.Now())
	}
	if tok, _ := s.State().ACLTokenByAccessorID(nil, boot.Tokens[0].AccessorID); tok == nil {
		t.Fatal("the bootstrap token (no expiry) was collected")
	}
}
