package structs

import (
	"strings"
	"testing"
	"time"
)

func TestValidateDisconnect(t *testing.T) {
	five, neg := 5*time.Minute, -time.Second
	cases := []struct {
		name string
		mcd  *time.Duration
		d    *DisconnectStrategy
		want string // "" for valid
	}{
		{"none", nil, nil, ""},
		{"block", nil, &DisconnectStrategy{LostAfter: five, Reconcile: ReconcileLongestRunning}, ""},
		{"old field", &five, nil, ""},
		{"both", &five, &DisconnectStrategy{LostAfter: five}, "not both"},
		{"old field with a block without lost_after", &five, &DisconnectStrategy{Reconcile: ReconcileKeepOriginal}, ""},
		{"negative old field", &neg, nil, "max_client_disconnect can't be negative"},
		{"negative lost_after", nil, &DisconnectStrategy{LostAfter: neg}, "lost_after can't be negative"},
		{"bad reconcile", nil, &DisconnectStrategy{Reconcile: "newest"}, `reconcile "newest" is not one of`},
	}
	for _, c := range cases {
		tg := &TaskGroup{Name: "g", MaxClientDisconnect: c.mcd, Disconnect: c.d}
		var errs MultiError
		tg.validateDisconnect(&errs)
		err := errs.ErrorOrNil()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
	tg := &TaskGroup{MaxClientDisconnect: &five, Disconnect: &DisconnectStrategy{Reconcile: ReconcileKeepOriginal}}
	if tg.LostAfter() != five || tg.ReconcileStrategy() != ReconcileKeepOriginal || !tg.ReplaceOnDisconnect() {
		t.Errorf("old field with a block: lost after %v, reconcile %s, replace %v", tg.LostAfter(), tg.ReconcileStrategy(), tg.ReplaceOnDisconnect())
	}
	if c := (&DisconnectStrategy{Replace: new(false)}).Copy(); c.Replace == nil || *c.Replace {
		t.Errorf("copy lost replace: %+v", c)
	}
}
