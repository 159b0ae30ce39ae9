package structs

import (
	"encoding/json"
	"fmt"
	"time"
)

// MarshalJSON writes ExpirationTTL as a duration string ("1h0m0s", "" for
// none), as Nomad does.
func (t *ACLToken) MarshalJSON() ([]byte, error) {
	type alias ACLToken
	out := struct {
		ExpirationTTL string `json:",omitempty"`
		*alias
	}{alias: (*alias)(t)}
	if t.ExpirationTTL != 0 {
		out.ExpirationTTL = t.ExpirationTTL.String()
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads ExpirationTTL as a duration string or as
// nanoseconds, as Nomad does.
func (t *ACLToken) UnmarshalJSON(data []byte) error {
	type alias ACLToken
	aux := struct {
		ExpirationTTL any
		*alias
	}{alias: (*alias)(t)}
	if err := json.Unmarshal(data, &aux); err != nil {
		return err
	}
	switch v := aux.ExpirationTTL.(type) {
	case nil:
	case string:
		if v != "" {
			d, err := time.ParseDuration(v)
			if err != nil {
				return fmt.Errorf("ExpirationTTL: %w", err)
			}
			t.ExpirationTTL = d
		}
	case float64:
		t.ExpirationTTL = time.Duration(v)
	default:
		return fmt.Errorf("ExpirationTTL: want a duration string or nanoseconds, got %T", v)
	}
	return nil
}
