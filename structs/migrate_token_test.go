package structs

import "testing"

func TestMigrateToken(t *testing.T) {
	const alloc, other, secret, otherSecret = "a1b2c3d4-0000-0000-0000-000000000001", "a1b2c3d4-0000-0000-0000-000000000002",
		"5e3c0f7a-1111-2222-3333-444455556666", "5e3c0f7a-1111-2222-3333-444455556667"
	tok := GenerateMigrateToken(alloc, secret)
	if tok == "" || tok != GenerateMigrateToken(alloc, secret) {
		t.Fatalf("token not stable: %q", tok)
	}
	for _, tc := range []struct {
		name, alloc, secret, token string
		want                       bool
	}{
		{"right", alloc, secret, tok, true},
		{"another alloc", other, secret, tok, false},
		{"another node's secret", alloc, otherSecret, tok, false},
		{"token of another alloc", alloc, secret, GenerateMigrateToken(other, secret), false},
		{"token made with another secret", alloc, secret, GenerateMigrateToken(alloc, otherSecret), false},
		{"empty token", alloc, secret, "", false},
		{"empty secret", alloc, "", GenerateMigrateToken(alloc, ""), false},
		{"not base64", alloc, secret, "!!" + tok, false},
		{"truncated", alloc, secret, tok[:len(tok)-4], false},
		{"an ACL secret", alloc, secret, secret, false},
	} {
		if got := CompareMigrateToken(tc.alloc, tc.secret, tc.token); got != tc.want {
			t.Errorf("%s: CompareMigrateToken = %v, want %v", tc.name, got, tc.want)
		}
	}
}
