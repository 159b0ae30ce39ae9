package cli

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
)

// apiStdin is what `operator api -d -` reads (tests replace it).
var apiStdin io.Reader = os.Stdin

// headerFlags collects repeated -H 'Key: Value' options.
type headerFlags []string

func (h *headerFlags) String() string { return strings.Join(*h, ", ") }

func (h *headerFlags) Set(v string) error {
	if k, _, ok := strings.Cut(v, ":"); !ok || strings.TrimSpace(k) == "" {
		return fmt.Errorf("header %q is not 'Key: Value'", v)
	}
	*h = append(*h, v)
	return nil
}

// operatorAPICommand is `operator api [-X METHOD] [-H 'K: V']... [-d
// BODY|@file|-] [-filter EXPR] [-dryrun] PATH`: a curl-like request to the
// agent with the CLI's address, token (X-Nomad-Token), TLS files, region
// and namespace. PATH is a path ("/v1/jobs?prefix=x") or a full URL. The
// method is GET, or POST with a body. The answer's body goes to stdout;
// a status >= 400 exits 1 with the body on stderr. -dryrun prints the
// equivalent curl command instead.
func operatorAPICommand(m *Meta, args []string) int {
	f := m.newFlags("operator api", "[options] PATH")
	method := f.String("X", "", "HTTP method (default GET, or POST with -d)")
	var headers headerFlags
	f.Var(&headers, "H", "a request header 'Key: Value' (repeatable)")
	data := f.String("d", "", "request body: the text, @FILE, or - for stdin")
	filter := f.String("filter", "", "a filter expression (?filter=)")
	dryrun := f.Bool("dryrun", false, "print the equivalent curl command and send nothing")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return m.wrongArgs(f, "one PATH")
	}
	c := m.client(f)
	target, err := apiTarget(c, pos[0], *filter)
	if err != nil {
		return m.errorf("in PATH: %v", err)
	}
	body, bodyFile, err := apiBody(*data, *dryrun)
	if err != nil {
		return m.errorf("reading the body: %v", err)
	}
	verb := strings.ToUpper(*method)
	if verb == "" {
		verb = http.MethodGet
		if *data != "" {
			verb = http.MethodPost
		}
	}
	hdr := http.Header{}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ":")
		hdr.Add(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	c.authorize(hdr)
	if *dryrun {
		fmt.Fprintln(m.Out, curlCommand(m, f, verb, hdr, *data, bodyFile, target))
		return exitOK
	}
	if c.err != nil {
		return m.errorf("setting up TLS: %v", c.err)
	}
	var rd io.Reader
	if *data != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(verb, target, rd)
	if err != nil {
		return m.errorf("building the request: %v", err)
	}
	req.Header = hdr
	resp, err := c.hc.Do(req)
	if err != nil {
		return m.errorf("querying %s: %v", target, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		fmt.Fprintf(m.Err, "Error: %s\n", resp.Status)
		io.Copy(m.Err, resp.Body)
		return exitError
	}
	if _, err := io.Copy(m.Out, resp.Body); err != nil {
		return m.errorf("reading the answer: %v", err)
	}
	return exitOK
}

// apiTarget is the URL of path (a path with its query, or a full URL) with
// ?filter= and the client's region and namespace unless path sets them.
func apiTarget(c *apiClient, path, filter string) (string, error) {
	base := c.addr
	if strings.HasPrefix(path, "http://") || strings.HasPrefix(path, "https://") {
		u, err := url.Parse(path)
		if err != nil {
			return "", err
		}
		base, path = u.Scheme+"://"+u.Host, u.RequestURI()
	}
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	p, rawQuery, _ := strings.Cut(path, "?")
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return "", err
	}
	if filter != "" {
		q.Set("filter", filter)
	}
	for k, v := range map[string]string{"region": c.region, "namespace": c.namespace} {
		if v != "" && !q.Has(k) {
			q.Set(k, v)
		}
	}
	if len(q) == 0 {
		return base + p, nil
	}
	return base + p + "?" + q.Encode(), nil
}

// apiBody reads the -d value: text, @FILE or - (stdin). With dryrun a file
// or stdin is not read (curl reads it); file is then what curl gets.
func apiBody(data string, dryrun bool) (body, file string, err error) {
	switch {
	case data == "-":
		if dryrun {
			return "", "-", nil
		}
		b, err := io.ReadAll(apiStdin)
		return string(b), "", err
	case strings.HasPrefix(data, "@"):
		if dryrun {
			return "", data[1:], nil
		}
		b, err := os.ReadFile(data[1:])
		return string(b), "", err
	}
	return data, "", nil
}

// curlCommand is the curl invocation doing what operator api would.
func curlCommand(m *Meta, f *flags, verb string, hdr http.Header, data, file, target string) string {
	parts := []string{"curl", "-X " + verb}
	keys := make([]string, 0, len(hdr))
	for k := range hdr {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, v := range hdr[k] {
			parts = append(parts, "-H "+shellQuote(k+": "+v))
		}
	}
	for _, o := range []struct{ opt, flag string }{{"--cacert", "ca-cert"}, {"--cert", "client-cert"}, {"--key", "client-key"}} {
		if v := m.apiOption(f, o.flag); v != "" {
			parts = append(parts, o.opt+" "+shellQuote(v))
		}
	}
	switch {
	case file != "":
		parts = append(parts, "--data-binary @"+shellQuote(file))
	case data != "":
		parts = append(parts, "--data-binary "+shellQuote(data))
	}
	parts = append(parts, shellQuote(target))
	return strings.Join(parts, " \\\n  ")
}

// shellQuote single-quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
