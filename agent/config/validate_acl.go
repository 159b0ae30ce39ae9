package config

import "time"

// validateACL checks the acl block: no negative TTL, and a token's
// minimum expiration TTL not above the maximum.
func (c *Config) validateACL(bad func(key, format string, args ...any)) {
	a := c.ACL
	for _, kv := range []struct {
		key string
		d   time.Duration
	}{{"acl.token_ttl", a.TokenTTL}, {"acl.policy_ttl", a.PolicyTTL}, {"acl.role_ttl", a.RoleTTL},
		{"acl.token_min_expiration_ttl", a.TokenMinExpirationTTL}, {"acl.token_max_expiration_ttl", a.TokenMaxExpirationTTL}} {
		if kv.d < 0 {
			bad(kv.key, "must not be negative, got %v", kv.d)
		}
	}
	if a.TokenMinExpirationTTL > 0 && a.TokenMaxExpirationTTL > 0 && a.TokenMinExpirationTTL > a.TokenMaxExpirationTTL {
		bad("acl.token_min_expiration_ttl", "must not exceed acl.token_max_expiration_ttl (%v), got %v",
			a.TokenMaxExpirationTTL, a.TokenMinExpirationTTL)
	}
}
