package cli

import (
	"io"
	"net/http"
	"net/url"
)

// operatorMetricsCommand is `operator metrics`: the agent's /v1/metrics
// printed as it comes (Nomad's command): JSON by default, Prometheus' text
// format with -format prometheus, indented JSON with -pretty.
func operatorMetricsCommand(m *Meta, args []string) int {
	f := m.newFlags("operator metrics", "[options]")
	format := f.String("format", "", `"prometheus" for Prometheus' text format (the agent needs telemetry.prometheus_metrics)`)
	pretty := f.Bool("pretty", false, "indent the JSON")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		return m.wrongArgs(f, "no arguments")
	}
	q := url.Values{}
	if *format != "" {
		q.Set("format", *format)
	}
	if *pretty {
		q.Set("pretty", "")
	}
	resp, err := m.client(f).request(http.MethodGet, "/v1/metrics", q, nil)
	if err != nil {
		return m.errorf("querying metrics: %v", err)
	}
	defer resp.Body.Close()
	if _, err := io.Copy(m.Out, resp.Body); err != nil {
		return m.errorf("reading metrics: %v", err)
	}
	return exitOK
}
