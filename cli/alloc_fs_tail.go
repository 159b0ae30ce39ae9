package cli

// `alloc fs -tail [-f] [-n N | -c N]` and `-job`: the end of a file of an
// allocation, followed through GET /v1/client/fs/stream (website/cli.md).

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"

	"github.com/nomadish/nomadish/structs"
)

// tailFlags are alloc fs's -tail, -f, -n, -c and -job.
type tailFlags struct {
	tail, follow, job *bool
	lines, bytes      *int64
}

func addTailFlags(f *flags) tailFlags {
	return tailFlags{
		tail:   f.Bool("tail", false, "show the end of the file (-n 10 unless -n or -c is given)"),
		follow: f.Bool("f", false, "keep printing what is appended to the file"),
		lines:  f.Int64("n", -1, "with -tail: how many lines from the end"),
		bytes:  f.Int64("c", -1, "with -tail: how many bytes from the end"),
		job:    f.Bool("job", false, "the argument is a job ID: use its newest running allocation"),
	}
}

func (tf tailFlags) active() bool { return *tf.tail || *tf.follow }

func (tf tailFlags) check() error {
	switch {
	case *tf.lines >= 0 && *tf.bytes >= 0:
		return errors.New("-n and -c exclude each other")
	case (*tf.lines >= 0 || *tf.bytes >= 0) && !*tf.tail:
		return errors.New("-n and -c need -tail")
	}
	return nil
}

// allocID resolves the argument: an allocation ID or prefix, or with -job
// a job whose newest running (else newest) allocation is used.
func (tf tailFlags) allocID(m *Meta, c *apiClient, arg string) (string, bool) {
	if !*tf.job {
		return resolveID(m, allocMatcher(c), arg)
	}
	jobID, ok := resolveID(m, jobMatcher(c), arg)
	if !ok {
		return "", false
	}
	allocs, _, err := c.jobAllocations(jobID, 0, 0)
	if err != nil {
		m.errorf("retrieving allocations of job %q: %v", jobID, err)
		return "", false
	}
	if len(allocs) == 0 {
		m.errorf("job %q has no allocations", jobID)
		return "", false
	}
	sort.SliceStable(allocs, func(i, j int) bool {
		ri, rj := allocs[i].ClientStatus == structs.AllocClientStatusRunning, allocs[j].ClientStatus == structs.AllocClientStatusRunning
		if ri != rj {
			return ri
		}
		return allocs[i].CreateIndex > allocs[j].CreateIndex
	})
	return allocs[0].ID, true
}

// run prints the file of size bytes from where -tail says (the start
// without it), then follows it with -f.
func (tf tailFlags) run(m *Meta, c *apiClient, id, path string, size int64) int {
	var start int64
	if *tf.tail {
		var err error
		if start, err = tf.start(c, id, path, size); err != nil {
			return m.errorf("reading %s: %v", path, err)
		}
	}
	if *tf.follow {
		if err := streamFile(m.Out, c, id, path, start); err != nil {
			return m.errorf("following %s: %v", path, err)
		}
		return exitOK
	}
	if err := readAt(m.Out, c, id, path, start, size-start); err != nil {
		return m.errorf("reading %s: %v", path, err)
	}
	return exitOK
}

// start is the offset -tail prints from: -c bytes or -n (default 10)
// lines before the end.
func (tf tailFlags) start(c *apiClient, id, path string, size int64) (int64, error) {
	if *tf.bytes >= 0 {
		return max(0, size-*tf.bytes), nil
	}
	n := *tf.lines
	if n < 0 {
		n = 10
	}
	// Read ever larger pieces of the end until they hold n lines.
	for chunk := int64(8 << 10); ; chunk *= 4 {
		from := max(0, size-chunk)
		var buf bytes.Buffer
		if err := readAt(&buf, c, id, path, from, size-from); err != nil {
			return 0, err
		}
		if i, ok := lastLinesStart(buf.Bytes(), n); ok || from == 0 {
			return from + int64(i), nil
		}
	}
}

// lastLinesStart is the index in data where its last n lines begin (a
// final newline ends the last line, it does not start another); ok is false
// when data holds fewer lines (the index is then 0).
func lastLinesStart(data []byte, n int64) (int, bool) {
	if n == 0 {
		return len(data), true
	}
	end := len(data)
	if end > 0 && data[end-1] == '\n' {
		end--
	}
	for i := end - 1; i >= 0; i-- {
		if data[i] == '\n' {
			n--
			if n == 0 {
				return i + 1, true
			}
		}
	}
	return 0, false
}

// readAt copies limit bytes of the file from offset to w
// (GET /v1/client/fs/readat).
func readAt(w io.Writer, c *apiClient, id, path string, offset, limit int64) error {
	q := url.Values{"path": {path}, "offset": {strconv.FormatInt(offset, 10)}, "limit": {strconv.FormatInt(limit, 10)}}
	resp, err := c.request(http.MethodGet, "/v1/client/fs/readat/"+esc(id), q, nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, err = io.Copy(w, resp.Body)
	return err
}

// streamFrame is one frame of GET /v1/client/fs/stream (api.StreamFrame).
type streamFrame struct {
	Offset    int64
	Data      []byte
	File      string
	FileEvent string
}

// streamFile follows the file from offset (GET /v1/client/fs/stream),
// writing each frame's data, until the agent ends the stream.
func streamFile(w io.Writer, c *apiClient, id, path string, offset int64) error {
	q := url.Values{"path": {path}, "offset": {strconv.FormatInt(offset, 10)}, "origin": {"start"}, "follow": {"true"}}
	resp, err := c.request(http.MethodGet, "/v1/client/fs/stream/"+esc(id), q, nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	dec := json.NewDecoder(resp.Body)
	for {
		var fr streamFrame
		if err := dec.Decode(&fr); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if _, err := w.Write(fr.Data); err != nil {
			return err
		}
	}
}
