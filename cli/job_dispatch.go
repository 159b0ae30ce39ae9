package cli

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/nomadish/nomadish/structs"
)

// dispatchJob is PUT /v1/job/:id/dispatch (api.JobDispatchRequest).
func (c *apiClient) dispatchJob(id string, payload []byte, meta map[string]string, token string) (*structs.JobDispatchResponse, error) {
	var out structs.JobDispatchResponse
	body := map[string]any{"JobID": id, "Payload": payload, "Meta": meta}
	var q url.Values
	if token != "" {
		q = url.Values{"idempotency_token": {token}}
	}
	_, err := c.do(http.MethodPut, "/v1/job/"+esc(id)+"/dispatch", q, body, &out)
	return &out, err
}

// periodicForce is PUT /v1/job/:id/periodic/force.
func (c *apiClient) periodicForce(id string) (*structs.PeriodicForceResponse, error) {
	var out structs.PeriodicForceResponse
	_, err := c.do(http.MethodPut, "/v1/job/"+esc(id)+"/periodic/force", nil, nil, &out)
	return &out, err
}

// jobDispatchCommand is `job dispatch [-meta k=v]... [-idempotency-token T]
// [-detach] [-verbose] JOB [PAYLOAD-FILE|-]`: dispatch a parameterized job
// with a payload read from a file or stdin ("-") and monitor its
// evaluation, as Nomad's.
func jobDispatchCommand(m *Meta, args []string) int {
	f := m.newFlags("job dispatch", "[options] JOB [PAYLOAD-FILE|-]")
	detach := f.Bool("detach", false, "return at once with the evaluation ID")
	verbose := f.Bool("verbose", false, "show full IDs")
	token := f.String("idempotency-token", "", "dispatch at most once with this token while its child is not dead")
	var metas stringList
	f.Var(&metas, "meta", "a meta key=value for the dispatched job (repeatable)")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 1 && len(pos) != 2 {
		return m.wrongArgs(f, "the job ID and optionally a payload file (- for stdin)")
	}
	meta := map[string]string{}
	for _, kv := range metas {
		k, v, found := strings.Cut(kv, "=")
		if !found || k == "" {
			return m.errorf("invalid -meta %q: want key=value", kv)
		}
		meta[k] = v
	}
	var payload []byte
	if len(pos) == 2 {
		var err error
		if payload, err = readPayload(pos[1]); err != nil {
			return m.errorf("reading payload: %v", err)
		}
	}
	c := m.client(f)
	resp, err := c.dispatchJob(pos[0], payload, meta, *token)
	if err != nil {
		return m.errorf("dispatching job: %v", err)
	}
	fmt.Fprintln(m.Out, "Dispatched Job ID = "+resp.DispatchedJobID)
	if resp.EvalID == "" { // an idempotent repeat: the existing child
		return exitOK
	}
	fmt.Fprintln(m.Out, "Evaluation ID      = "+shortID(resp.EvalID, *verbose))
	if *detach {
		return exitOK
	}
	fmt.Fprintln(m.Out)
	return followEval(m, c, resp.EvalID, false, *verbose)
}

// dispatchStdin is where `job dispatch JOB -` reads its payload (tests
// replace it).
var dispatchStdin io.Reader = os.Stdin

// readPayload reads a payload file, or stdin for "-", refusing more than
// the 16 KiB the server accepts before sending anything.
func readPayload(name string) ([]byte, error) {
	var r io.Reader
	if name == "-" {
		r = dispatchStdin
	} else {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, structs.DispatchPayloadSizeLimit+1))
	if err != nil {
		return nil, err
	}
	if len(b) > structs.DispatchPayloadSizeLimit {
		return nil, fmt.Errorf("payload %s is larger than %d bytes (16 KiB)", name, structs.DispatchPayloadSizeLimit)
	}
	return b, nil
}

// jobPeriodicForceCommand is `job periodic force [-detach] [-verbose] JOB`:
// launch a periodic job's child now.
func jobPeriodicForceCommand(m *Meta, args []string) int {
	f := m.newFlags("job periodic force", "[options] JOB")
	detach := f.Bool("detach", false, "return at once with the evaluation ID")
	verbose := f.Bool("verbose", false, "show full IDs")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return m.wrongArgs(f, "the periodic job's ID")
	}
	c := m.client(f)
	id, ok := resolveID(m, jobMatcher(c), pos[0])
	if !ok {
		return exitError
	}
	resp, err := c.periodicForce(id)
	if err != nil {
		return m.errorf("forcing periodic job: %v", err)
	}
	if *detach {
		fmt.Fprintf(m.Out, "Evaluation ID: %s\n", resp.EvalID)
		return exitOK
	}
	return followEval(m, c, resp.EvalID, false, *verbose)
}
