package cli

// The -json and -t options of the read commands (website/cli-output.md)
// and the list commands' paging options (-filter, -per-page, -page-token).

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"text/template"
)

// formatFlags are the -json and -t options of the read commands.
type formatFlags struct {
	json *bool
	tmpl *string
}

func addFormatFlags(f *flags) formatFlags {
	return formatFlags{json: f.Bool("json", false, "print the API's JSON"),
		tmpl: f.String("t", "", "format the API's answer with a Go template")}
}

// set reports whether -json or -t was given.
func (ff formatFlags) set() bool { return *ff.json || *ff.tmpl != "" }

// check refuses -json and -t together (exit 1, as Nomad); commands call it
// before querying so the error comes first.
func (ff formatFlags) check(m *Meta) (code int, bad bool) {
	if *ff.json && *ff.tmpl != "" {
		return m.errorf("formatting output: both -json and -t are not allowed"), true
	}
	return 0, false
}

// print writes v as JSON or through the template and reports done; it
// refuses both at once (exit 1, as Nomad).
func (ff formatFlags) print(m *Meta, v any) (code int, done bool) {
	if code, bad := ff.check(m); bad {
		return code, true
	}
	switch {
	case *ff.json:
		return m.printJSONOut(v), true
	case *ff.tmpl != "":
		t, err := template.New("t").Parse(*ff.tmpl)
		if err != nil {
			return m.errorf("parsing -t template: %v", err), true
		}
		if err := t.Execute(m.Out, asAPIValue(v)); err != nil { // output_apitypes.go
			return m.errorf("executing -t template: %v", err), true
		}
		return exitOK, true
	}
	return 0, false
}

// pageFlags are a list command's -filter, -per-page and -page-token,
// passed through as Nomad's filter, per_page and next_token.
type pageFlags struct {
	filter, token *string
	perPage       *int
}

func addPageFlags(f *flags) pageFlags {
	return pageFlags{
		filter:  f.String("filter", "", "a go-bexpr expression the server filters the list with"),
		perPage: f.Int("per-page", 0, "how many items per page"),
		token:   f.String("page-token", "", "where to start: the token a previous page printed"),
	}
}

// query adds the paging parameters to q (nil: a new one) and returns it.
func (pf pageFlags) query(q url.Values) url.Values {
	if q == nil {
		q = url.Values{}
	}
	if *pf.filter != "" {
		q.Set("filter", *pf.filter)
	}
	if *pf.perPage > 0 {
		q.Set("per_page", strconv.Itoa(*pf.perPage))
	}
	if *pf.token != "" {
		q.Set("next_token", *pf.token)
	}
	return q
}

// getPage is a GET of a list decoding into out and returning the
// X-Nomad-NextToken of the answer ("" on the last page).
func (c *apiClient) getPage(path string, q url.Values, out any) (string, error) {
	var next string
	_, err := c.doHeader(http.MethodGet, path, q, nil, out, func(h http.Header) { next = h.Get("X-Nomad-NextToken") })
	return next, err
}

// printNextToken prints Nomad's footer of a paged list.
func (m *Meta) printNextToken(next string) {
	if next != "" {
		fmt.Fprintf(m.Out, "\nNext page token: %s\n", next)
	}
}
