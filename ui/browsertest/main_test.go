package browsertest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// browser is the one headless Chromium the tests share; each Page is a
// tab in it.
var browser context.Context

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	tmp, err := os.MkdirTemp("", "nomadish-ui")
	if err != nil {
		fmt.Fprintln(os.Stderr, "browsertest:", err)
		return 1
	}
	defer os.RemoveAll(tmp)
	bin = filepath.Join(tmp, "nomadish")
	if err := buildBinary(bin); err != nil {
		fmt.Fprintln(os.Stderr, "browsertest: building nomadish:", err)
		return 1
	}
	if dev, err = startDevAgent(filepath.Join(tmp, "dev")); err != nil {
		fmt.Fprintln(os.Stderr, "browsertest: starting the dev agent:", err)
		return 1
	}
	defer dev.stop()
	defer dev.stopJobs()

	var cancel func()
	browser, cancel, err = startBrowser(filepath.Join(tmp, "chromium"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "browsertest: starting chromium (scripts/setup.sh test installs it):", err)
		return 1
	}
	defer cancel()
	code := m.Run()
	if code != 0 {
		fmt.Fprintf(os.Stderr, "dev agent log (tail):\n%s\n", dev.logTail())
	}
	return code
}

// startBrowser starts headless Chromium with its profile in dir. As root
// (these machines) Chromium needs --no-sandbox.
func startBrowser(dir string) (context.Context, func(), error) {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.NoSandbox,
		chromedp.UserDataDir(dir),
		chromedp.WindowSize(1280, 900),
		chromedp.Flag("disable-gpu", true),
	)
	if p := os.Getenv("CHROMIUM"); p != "" {
		opts = append(opts, chromedp.ExecPath(p))
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(allocCtx)
	cancel := func() { cancelCtx(); cancelAlloc() }
	if err := chromedp.Run(ctx); err != nil { // starts the browser
		cancel()
		return nil, nil, err
	}
	return ctx, cancel, nil
}
