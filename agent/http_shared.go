package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
)

// sharedJSON answers 200 with obj's JSON, encoded once for every
// concurrent reader of key at index (s.answers): when one write wakes
// thousands of blocking queries on a large list, they write the same bytes
// instead of each encoding its own copy (2,000 waiters on 5,000 jobs held
// about 10 GiB of encodings while their clients read slowly). obj must be
// what any request of key at index answers. With ?pretty it encodes as
// wrap does. It returns wrap's (nil, nil): the answer is written.
func (s *httpServer) sharedJSON(w http.ResponseWriter, r *http.Request, key string, index uint64, obj any) (any, error) {
	if _, pretty := r.URL.Query()["pretty"]; pretty {
		return obj, nil
	}
	v, err := s.answers.Get(key, index, func() (any, error) {
		b, err := json.Marshal(obj)
		return append(b, '\n'), err // json.Encoder's framing
	})
	if err != nil {
		return nil, err
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(v.([]byte))
	return nil, nil
}

// tokenKey names a request's token in a sharedJSON key: a hash, so the
// cache never holds a secret ("" for no token).
func tokenKey(secret string) string {
	if secret == "" {
		return ""
	}
	h := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(h[:])
}
