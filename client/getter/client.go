package getter

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"net/url"

	cleanhttp "github.com/hashicorp/go-cleanhttp"
	gg "github.com/hashicorp/go-getter/v2"
)

// newClient returns the go-getter client for one request: the git, http,
// https and file getters (local reads confined unless isolation is off),
// the decompressors with the config's limits, and symlinks refused.
func newClient(cfg Config, req Request) *gg.Client {
	header := http.Header{}
	for k, v := range req.Headers {
		header.Set(k, v)
	}
	httpGetter := &gg.HttpGetter{
		Netrc:  true,
		Header: header,
		Client: httpClient(cfg.HTTPMaxBytes, req.Insecure),
		// As Nomad: no X-Terraform-Get indirection, no HEAD first (a
		// resumed download of a changed file would be corrupt).
		XTerraformGetDisabled: true,
		DoNotCheckHeadFirst:   true,
		ReadTimeout:           cfg.HTTPReadTimeout,
	}
	var allowed string
	if !cfg.DisableFilesystemIsolation {
		allowed = req.AllocDir
	}
	git := &gg.GitGetter{
		Detectors: []gg.Detector{new(gg.GitHubDetector), new(gg.GitDetector), new(gg.BitBucketDetector), new(gg.GitLabDetector)},
		Timeout:   cfg.GitTimeout,
	}
	return &gg.Client{
		Getters: []gg.Getter{
			&confined{Getter: git, allocDir: allowed, localOnly: true},
			httpGetter,
			&confined{Getter: new(gg.FileGetter), allocDir: allowed},
		},
		Decompressors:   decompressors(cfg.DecompressionFileCountLimit, cfg.DecompressionSizeLimit),
		DisableSymlinks: true,
	}
}

// confined wraps a getter so that the local paths it reads stay in the
// allocation directory (allocDir "" : anywhere). With localOnly, only
// file-scheme URLs are local (git's remote URLs are not paths).
type confined struct {
	gg.Getter
	allocDir  string
	localOnly bool
}

func (c *confined) check(u *url.URL) error {
	if c.allocDir == "" || u == nil {
		return nil
	}
	if c.localOnly && u.Scheme != "file" && u.Scheme != "" {
		return nil
	}
	p := u.Path
	if u.RawPath != "" {
		p = u.RawPath
	}
	return confine(c.allocDir, p)
}

func (c *confined) Mode(ctx context.Context, u *url.URL) (gg.Mode, error) {
	if err := c.check(u); err != nil {
		return 0, err
	}
	return c.Getter.Mode(ctx, u)
}

func (c *confined) Get(ctx context.Context, req *gg.Request) error {
	if err := c.check(req.URL()); err != nil {
		return err
	}
	return c.Getter.Get(ctx, req)
}

func (c *confined) GetFile(ctx context.Context, req *gg.Request) error {
	if err := c.check(req.URL()); err != nil {
		return err
	}
	return c.Getter.GetFile(ctx, req)
}

// httpClient returns an HTTP client whose response bodies fail with
// ErrTooLarge past maxBytes (0: no cap). go-getter's own MaxBytes only
// truncates the body, which a download without a checksum would accept.
func httpClient(maxBytes int64, insecure bool) *http.Client {
	c := cleanhttp.DefaultClient()
	tr := c.Transport.(*http.Transport)
	if insecure {
		tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // the artifact's insecure = true asks for it
	}
	c.Transport = &capped{rt: tr, max: maxBytes}
	return c
}

type capped struct {
	rt  http.RoundTripper
	max int64
}

func (c *capped) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.rt.RoundTrip(r)
	if err != nil || c.max <= 0 {
		return resp, err
	}
	if resp.ContentLength > c.max {
		resp.Body.Close()
		return nil, fmt.Errorf("%w: %s is %d bytes, the limit is %d", ErrTooLarge, r.URL.Redacted(), resp.ContentLength, c.max)
	}
	resp.Body = &cappedBody{rc: resp.Body, left: c.max, max: c.max}
	return resp, nil
}

// cappedBody reads at most max bytes and fails on the byte after.
type cappedBody struct {
	rc   io.ReadCloser
	left int64
	max  int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, b.max)
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return n, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, b.max)
	}
	return n, err
}

func (b *cappedBody) Close() error { return b.rc.Close() }
