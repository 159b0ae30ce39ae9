package browsertest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Page is one browser tab on the dev agent's UI.
type Page struct {
	T   *testing.T
	Ctx context.Context

	mu       sync.Mutex
	problems []string // console errors, exceptions, CSP violations
}

// OpenPage opens dev.Addr+path in a new tab and waits for the app to have
// rendered (main no longer says "Loading…"). At t's cleanup the tab closes,
// and t fails if the page logged a console error, threw an uncaught
// exception or violated its Content-Security-Policy. Failed HTTP answers
// (a 403 the page shows) are the page's business, not errors here.
// confirm() and alert() dialogs are accepted.
func OpenPage(t *testing.T, path string) *Page {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browser)
	ctx, cancelTimeout := context.WithTimeout(ctx, 3*time.Minute)
	p := &Page{T: t, Ctx: ctx}
	chromedp.ListenTarget(ctx, func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.APITypeError || ev.Type == runtime.APITypeAssert {
				var args []string
				for _, a := range ev.Args {
					args = append(args, strings.Trim(string(a.Value), `"`)+a.Description)
				}
				p.problem("console.%s: %s", ev.Type, strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			p.problem("uncaught exception at %s:%d:%d: %s", d.URL, d.LineNumber+1, d.ColumnNumber+1, msg)
		case *cdplog.EventEntryAdded:
			if ev.Entry.Level == cdplog.LevelError && ev.Entry.Source != cdplog.SourceNetwork {
				p.problem("%s error: %s (%s)", ev.Entry.Source, ev.Entry.Text, ev.Entry.URL)
			}
		case *page.EventJavascriptDialogOpening:
			go func() { _ = chromedp.Run(ctx, page.HandleJavaScriptDialog(true)) }()
		}
	})
	t.Cleanup(func() {
		cancelTimeout()
		cancel()
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, pr := range p.problems {
			t.Errorf("page %s: %s", path, pr)
		}
	})
	p.Run(runtime.Enable(), cdplog.Enable(), chromedp.Navigate(dev.Addr+path))
	p.waitRendered()
	return p
}

func (p *Page) problem(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.problems = append(p.problems, fmt.Sprintf(format, args...))
}

// Problems returns what the page logged as errors so far.
func (p *Page) Problems() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.problems...)
}

// waitRendered waits until the app replaced index.html's "Loading…".
func (p *Page) waitRendered() {
	p.T.Helper()
	p.poll("the app to render", `(() => { const m = document.getElementById("main"); return !!m && !m.innerText.startsWith("Loading…"); })()`)
}

// Run runs chromedp actions on the tab; an error fails the test.
func (p *Page) Run(actions ...chromedp.Action) {
	p.T.Helper()
	if err := chromedp.Run(p.Ctx, actions...); err != nil {
		p.T.Fatalf("browser: %v\npage text:\n%s", err, p.bodyText())
	}
}

// Eval evaluates a JavaScript expression in the page into out.
func (p *Page) Eval(expr string, out any) {
	p.T.Helper()
	p.Run(chromedp.Evaluate(expr, out))
}

// poll evaluates the boolean expression cond every 50 ms until it holds,
// for up to 30 s.
func (p *Page) poll(what, cond string) {
	p.T.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var ok bool
		if err := chromedp.Run(p.Ctx, chromedp.Evaluate(cond, &ok)); err != nil {
			p.T.Fatalf("waiting for %s: %v", what, err)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			p.T.Fatalf("waiting for %s: not there after 30s; page %s says:\n%s", what, p.location(), p.bodyText())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// textExpr is a JS expression: does an element matching sel contain text?
func textExpr(sel, text string) string {
	return fmt.Sprintf(`Array.from(document.querySelectorAll(%q)).some((e) => (e.innerText || e.textContent || "").includes(%q))`, sel, text)
}

// WaitText waits up to 30 s until an element matching the CSS selector
// contains text.
func (p *Page) WaitText(selector, text string) {
	p.T.Helper()
	p.poll(fmt.Sprintf("%q in %s", text, selector), textExpr(selector, text))
}

// WaitGone waits up to 30 s until no element matching selector contains
// text.
func (p *Page) WaitGone(selector, text string) {
	p.T.Helper()
	p.poll(fmt.Sprintf("%q gone from %s", text, selector), "!"+textExpr(selector, text))
}

// Click clicks the first element matching selector once it is visible.
func (p *Page) Click(selector string) {
	p.T.Helper()
	p.Run(chromedp.WaitVisible(selector, chromedp.ByQuery), chromedp.Click(selector, chromedp.ByQuery))
}

// Text is the innerText of the first element matching selector.
func (p *Page) Text(selector string) string {
	p.T.Helper()
	var s string
	p.Run(chromedp.Text(selector, &s, chromedp.ByQuery))
	return s
}

func (p *Page) bodyText() string {
	var s string
	ctx, cancel := context.WithTimeout(p.Ctx, 5*time.Second)
	defer cancel()
	if err := chromedp.Run(ctx, chromedp.Evaluate(`document.body ? document.body.innerText : ""`, &s)); err != nil {
		return "(unreadable: " + err.Error() + ")"
	}
	if len(s) > 3000 {
		s = s[:3000] + "…"
	}
	return s
}

func (p *Page) location() string {
	var s string
	ctx, cancel := context.WithTimeout(p.Ctx, 5*time.Second)
	defer cancel()
	_ = chromedp.Run(ctx, chromedp.Location(&s))
	return s
}

// Screenshot writes a PNG of the whole page as <UI_SCREENSHOTS>/ui-<name>.png
// when UI_SCREENSHOTS names a directory (`make ui-screenshots`); otherwise
// it does nothing.
func (p *Page) Screenshot(name string) {
	p.T.Helper()
	dir := os.Getenv("UI_SCREENSHOTS")
	if dir == "" {
		return
	}
	time.Sleep(300 * time.Millisecond) // let bars and meters finish their transitions
	var png []byte
	p.Run(chromedp.FullScreenshot(&png, 100))
	if err := os.WriteFile(filepath.Join(dir, "ui-"+name+".png"), png, 0o644); err != nil {
		p.T.Fatal(err)
	}
}
