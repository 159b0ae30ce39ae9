package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// fsAPI serves one file of allocID: stat, readat (offset, limit) and a
// stream that sends the file from the offset asked, then extra, then ends.
func fsAPI(t *testing.T, content, extra string) *cannedAPI {
	c := readAPI(t)
	c.answers["GET /v1/client/fs/stat/"+allocID] = allocFile{Name: "out.txt", Size: int64(len(content))}
	c.answers["GET /v1/client/fs/readat/"+allocID] = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		off, _ := strconv.Atoi(q.Get("offset"))
		lim, _ := strconv.Atoi(q.Get("limit"))
		fmt.Fprint(w, content[off:min(len(content), off+lim)])
	})
	c.answers["GET /v1/client/fs/stream/"+allocID] = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		off, _ := strconv.Atoi(q.Get("offset"))
		enc := json.NewEncoder(w)
		enc.Encode(streamFrame{Offset: int64(len(content)), Data: []byte(content[off:]), File: q.Get("path")})
		enc.Encode(streamFrame{Offset: int64(len(content) + len(extra)), Data: []byte(extra), File: q.Get("path")})
	})
	return c
}

func TestAllocFSTail(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	content := b.String()
	c := fsAPI(t, content, "line 31\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-tail"}, strings.Join(strings.SplitAfter(content, "\n")[20:], "")},
		{[]string{"-tail", "-n", "2"}, "line 29\nline 30\n"},
		{[]string{"-tail", "-n", "0"}, ""},
		{[]string{"-tail", "-n", "100"}, content},
		{[]string{"-tail", "-c", "4"}, " 30\n"},
		{[]string{"-tail", "-n", "1", "-f"}, "line 30\nline 31\n"},
		{[]string{"-f"}, content + "line 31\n"},
	} {
		code, out, errOut := c.run(append(append([]string{"alloc", "fs"}, tc.args...), allocID, "t/local/out.txt")...)
		if code != 0 || out != tc.want {
			t.Errorf("%v: exit %d, out %q, want %q (%s)", tc.args, code, out, tc.want, errOut)
		}
	}
	q, _ := url.ParseQuery(c.query("GET /v1/client/fs/stream/" + allocID)[0])
	if q.Get("follow") != "true" || q.Get("path") != "t/local/out.txt" {
		t.Fatalf("stream query %v", q)
	}
}

func TestAllocFSTailFlagErrors(t *testing.T) {
	c := fsAPI(t, "x\n", "")
	for _, args := range [][]string{{"-n", "2"}, {"-tail", "-n", "1", "-c", "1"}} {
		if code, _, errOut := c.run(append(append([]string{"alloc", "fs"}, args...), allocID, "f")...); code != 1 || errOut == "" {
			t.Errorf("%v: exit %d", args, code)
		}
	}
}

func TestAllocFSJob(t *testing.T) {
	c := fsAPI(t, "a\nb\n", "")
	code, out, errOut := c.run("alloc", "fs", "-job", "-tail", "-n", "1", "web", "t/local/out.txt")
	if code != 0 || out != "b\n" {
		t.Fatalf("exit %d, %q, %s", code, out, errOut)
	}
}

func TestLastLinesStart(t *testing.T) {
	for _, tc := range []struct {
		data string
		n    int64
		i    int
		ok   bool
	}{
		{"a\nb\nc\n", 1, 4, true}, {"a\nb\nc", 1, 4, true}, {"a\nb\nc\n", 3, 0, false}, {"a\nb\nc\n", 2, 2, true},
		{"", 1, 0, false}, {"abc", 0, 3, true},
	} {
		if i, ok := lastLinesStart([]byte(tc.data), tc.n); i != tc.i || ok != tc.ok {
			t.Errorf("%q n=%d: %d %v, want %d %v", tc.data, tc.n, i, ok, tc.i, tc.ok)
		}
	}
}
