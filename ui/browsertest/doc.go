// Package browsertest drives the web UI in a real headless Chromium
// (Debian's chromium package, through github.com/chromedp/chromedp) against
// a real dev agent: the nomadish binary built from this tree, started once
// per test binary with its own ports and data dir. Its tests are the UI's
// end-to-end tests; the package holds nothing else.
//
// With UI_SCREENSHOTS=<dir> set, every test also writes a PNG of the page
// it checked into dir (`make ui-screenshots` writes website/img/).
package browsertest
