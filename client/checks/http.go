package checks

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/nomadish/nomadish/structs"
)

// httpCheck is an http check: 2xx is passing, 429 (Too Many Requests)
// warning, anything else or no answer critical (Consul's rules).
type httpCheck struct {
	method, url, body string
	header            http.Header
	client            *http.Client
}

func newHTTP(c *structs.ServiceCheck, t Target) *httpCheck {
	scheme := "http"
	if c.Protocol == "https" {
		scheme = "https"
	}
	path := c.Path
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	u := (&url.URL{Scheme: scheme, Host: t.hostPort()}).String() + path
	method := c.Method
	if method == "" {
		method = http.MethodGet
	}
	tr := &http.Transport{
		TLSClientConfig:   &tls.Config{InsecureSkipVerify: c.TLSSkipVerify, ServerName: c.TLSServerName}, //nolint:gosec // the job's tls_skip_verify
		DisableKeepAlives: true,
	}
	return &httpCheck{method: method, url: u, body: c.Body, header: http.Header(c.Header).Clone(),
		client: &http.Client{Transport: tr}}
}

func (h *httpCheck) Check(ctx context.Context) Result {
	var body io.Reader
	if h.body != "" {
		body = strings.NewReader(h.body)
	}
	req, err := http.NewRequestWithContext(ctx, h.method, h.url, body)
	if err != nil {
		return Result{Status: structs.CheckCritical, Output: err.Error()}
	}
	for k, vs := range h.header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	if host := req.Header.Get("Host"); host != "" {
		req.Host = host
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return Result{Status: structs.CheckCritical, Output: fmt.Sprintf("HTTP %s %s: %v", h.method, h.url, err)}
	}
	defer resp.Body.Close()
	var out LimitedBuffer
	_, _ = io.Copy(&out, io.LimitReader(resp.Body, maxOutput))
	res := Result{StatusCode: resp.StatusCode,
		Output: fmt.Sprintf("HTTP %s %s: %s Output: %s", h.method, h.url, resp.Status, out.String())}
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode <= 299:
		res.Status = structs.CheckPassing
	case resp.StatusCode == http.StatusTooManyRequests:
		res.Status = structs.CheckWarning
	default:
		res.Status = structs.CheckCritical
	}
	res.Output = truncate(res.Output)
	return res
}
