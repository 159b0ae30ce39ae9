package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/nomadish/nomadish/structs"
)

// defaultAddress is the agent's HTTP API when nothing else is said.
const defaultAddress = "http://127.0.0.1:4646"

// apiClient is a small client of the agent's HTTP API (Nomad's v1 API),
// decoding into structs types. It has no overall timeout: blocking queries
// and followed logs last as long as the server keeps them open.
type apiClient struct {
	addr string
	hc   *http.Client
	err  error // set when the TLS files could not be loaded; every request returns it

	// token (X-Nomad-Token), region and namespace (query parameters) go
	// with every request when set, as the Nomad CLI sends them.
	token, region, namespace string
}

// APIError is a non-2xx answer; Body is the server's message.
type APIError struct {
	Status int
	Body   string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("Unexpected response code: %d (%s)", e.Status, strings.TrimSpace(e.Body))
}

// isNotFound reports whether err is an HTTP 404.
func isNotFound(err error) bool {
	ae, ok := err.(*APIError)
	return ok && ae.Status == http.StatusNotFound
}

func newAPIClient(addr string) *apiClient {
	if addr == "" {
		addr = defaultAddress
	}
	if !strings.Contains(addr, "://") {
		addr = "http://" + addr
	}
	tr := &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConnsPerHost: 4,
	}
	return &apiClient{addr: strings.TrimRight(addr, "/"), hc: &http.Client{Transport: tr}}
}

// blocking returns the query parameters of a blocking query waiting past index.
func blocking(index uint64, wait time.Duration) url.Values {
	q := url.Values{}
	if index > 0 {
		q.Set("index", strconv.FormatUint(index, 10))
		q.Set("wait", wait.String())
	}
	return q
}

// request sends method path?q with body encoded as JSON (if non-nil) and
// returns the open response of a 2xx answer.
func (c *apiClient) request(method, path string, q url.Values, body any) (*http.Response, error) {
	if c.err != nil {
		return nil, c.err
	}
	u := c.url(path, q)
	var rd io.Reader
	if body != nil {
		buf, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("encoding request: %w", err)
		}
		rd = bytes.NewReader(buf)
	}
	req, err := http.NewRequest(method, u, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	c.authorize(req.Header)
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		return nil, &APIError{Status: resp.StatusCode, Body: string(msg)}
	}
	return resp, nil
}

// url is the address of path with the query q plus the client's region
// and namespace (unless q sets them).
func (c *apiClient) url(path string, q url.Values) string {
	for k, v := range map[string]string{"region": c.region, "namespace": c.namespace} {
		if v != "" && !q.Has(k) {
			if q == nil {
				q = url.Values{}
			}
			q.Set(k, v)
		}
	}
	if len(q) == 0 {
		return c.addr + path
	}
	return c.addr + path + "?" + q.Encode()
}

// authorize adds the client's token to h.
func (c *apiClient) authorize(h http.Header) {
	if c.token != "" {
		h.Set("X-Nomad-Token", c.token)
	}
}

// do runs a request and decodes the JSON answer into out (if non-nil). It
// returns the X-Nomad-Index of the answer (0 if absent).
func (c *apiClient) do(method, path string, q url.Values, body, out any) (uint64, error) {
	return c.doHeader(method, path, q, body, out, nil)
}

// doHeader is do handing the answer's headers to header (if non-nil).
func (c *apiClient) doHeader(method, path string, q url.Values, body, out any, header func(http.Header)) (uint64, error) {
	resp, err := c.request(method, path, q, body)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if header != nil {
		header(resp.Header)
	}
	index, _ := strconv.ParseUint(resp.Header.Get("X-Nomad-Index"), 10, 64)
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			return index, fmt.Errorf("decoding %s %s: %w", method, path, err)
		}
	}
	return index, nil
}

func (c *apiClient) get(path string, q url.Values, out any) (uint64, error) {
	return c.do(http.MethodGet, path, q, nil, out)
}

func prefixQuery(prefix string) url.Values {
	q := url.Values{}
	if prefix != "" {
		q.Set("prefix", prefix)
	}
	return q
}

func esc(s string) string { return url.PathEscape(s) }

// registerJob is PUT /v1/jobs.
func (c *apiClient) registerJob(job *structs.Job) (*structs.JobRegisterResponse, error) {
	var out structs.JobRegisterResponse
	_, err := c.do(http.MethodPut, "/v1/jobs", nil, map[string]any{"Job": job}, &out)
	return &out, err
}

// planJob is POST /v1/job/:id/plan.
func (c *apiClient) planJob(job *structs.Job) (*structs.JobPlanResponse, error) {
	var out structs.JobPlanResponse
	_, err := c.do(http.MethodPost, "/v1/job/"+esc(job.ID)+"/plan", nil, map[string]any{"Job": job, "Diff": true}, &out)
	return &out, err
}

// planJobWhyNot is planJob asking also for node's verdict for group (every
// group when empty): the WhyNotNode/WhyNotGroup extension.
func (c *apiClient) planJobWhyNot(job *structs.Job, node, group string) (*structs.JobPlanResponse, error) {
	var out structs.JobPlanResponse
	body := map[string]any{"Job": job, "Diff": true, "WhyNotNode": node, "WhyNotGroup": group}
	_, err := c.do(http.MethodPost, "/v1/job/"+esc(job.ID)+"/plan", nil, body, &out)
	return &out, err
}

// deregisterJob is DELETE /v1/job/:id.
func (c *apiClient) deregisterJob(id string, purge bool) (*structs.JobDeregisterResponse, error) {
	q := url.Values{}
	if purge {
		q.Set("purge", "true")
	}
	var out structs.JobDeregisterResponse
	_, err := c.do(http.MethodDelete, "/v1/job/"+esc(id), q, nil, &out)
	return &out, err
}

func (c *apiClient) jobs(prefix string) ([]*structs.JobListStub, error) {
	var out []*structs.JobListStub
	_, err := c.get("/v1/jobs", prefixQuery(prefix), &out)
	return filterPrefix(out, prefix, func(j *structs.JobListStub) string { return j.ID }), err
}

func (c *apiClient) job(id string) (*structs.Job, error) {
	var out structs.Job
	_, err := c.get("/v1/job/"+esc(id), nil, &out)
	return &out, err
}

// jobAllocations is GET /v1/job/:id/allocations, blocking past index if > 0.
func (c *apiClient) jobAllocations(id string, index uint64, wait time.Duration) ([]*structs.AllocListStub, uint64, error) {
	var out []*structs.AllocListStub
	idx, err := c.get("/v1/job/"+esc(id)+"/allocations", blocking(index, wait), &out)
	return out, idx, err
}

func (c *apiClient) jobEvaluations(id string) ([]*structs.Evaluation, error) {
	var out []*structs.Evaluation
	_, err := c.get("/v1/job/"+esc(id)+"/evaluations", nil, &out)
	return out, err
}

// evalAllocations is GET /v1/evaluation/:id/allocations.
func (c *apiClient) evalAllocations(id string) ([]*structs.AllocListStub, error) {
	var out []*structs.AllocListStub
	_, err := c.get("/v1/evaluation/"+esc(id)+"/allocations", nil, &out)
	return out, err
}

func (c *apiClient) allocations(prefix string) ([]*structs.AllocListStub, error) {
	var out []*structs.AllocListStub
	_, err := c.get("/v1/allocations", prefixQuery(prefix), &out)
	return filterPrefix(out, prefix, func(a *structs.AllocListStub) string { return a.ID }), err
}

func (c *apiClient) allocation(id string) (*structs.Allocation, error) {
	var out structs.Allocation
	_, err := c.get("/v1/allocation/"+esc(id), nil, &out)
	return &out, err
}

func (c *apiClient) nodes(prefix string) ([]*structs.NodeListStub, error) {
	var out []*structs.NodeListStub
	_, err := c.get("/v1/nodes", prefixQuery(prefix), &out)
	return filterPrefix(out, prefix, func(n *structs.NodeListStub) string { return n.ID }), err
}

func (c *apiClient) node(id string) (*structs.Node, error) {
	var out structs.Node
	_, err := c.get("/v1/node/"+esc(id), nil, &out)
	return &out, err
}

func (c *apiClient) evaluations(prefix string) ([]*structs.Evaluation, error) {
	var out []*structs.Evaluation
	_, err := c.get("/v1/evaluations", prefixQuery(prefix), &out)
	return filterPrefix(out, prefix, func(e *structs.Evaluation) string { return e.ID }), err
}

// evaluation is GET /v1/evaluation/:id, blocking past index if > 0.
func (c *apiClient) evaluation(id string, index uint64, wait time.Duration) (*structs.Evaluation, uint64, error) {
	var out structs.Evaluation
	idx, err := c.get("/v1/evaluation/"+esc(id), blocking(index, wait), &out)
	return &out, idx, err
}

// logs opens GET /v1/client/fs/logs/:alloc as plain text.
func (c *apiClient) logs(allocID, task, typ, origin string, offset int64, follow bool) (io.ReadCloser, error) {
	q := url.Values{}
	q.Set("task", task)
	q.Set("type", typ)
	q.Set("origin", origin)
	q.Set("offset", strconv.FormatInt(offset, 10))
	q.Set("follow", strconv.FormatBool(follow))
	q.Set("plain", "true")
	resp, err := c.request(http.MethodGet, "/v1/client/fs/logs/"+esc(allocID), q, nil)
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}

// filterPrefix keeps the items whose ID starts with prefix, in case the
// server ignores ?prefix=.
func filterPrefix[T any](in []T, prefix string, id func(T) string) []T {
	if prefix == "" {
		return in
	}
	out := in[:0]
	for _, v := range in {
		if strings.HasPrefix(id(v), prefix) {
			out = append(out, v)
		}
	}
	return out
}
