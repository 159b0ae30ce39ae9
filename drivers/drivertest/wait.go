package drivertest

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/drivers/base"
)

// WaitExit waits up to within for the task's exit result, failing the test
// when WaitTask fails or nothing comes.
func WaitExit(t testing.TB, d base.Driver, id string, within time.Duration) *base.ExitResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	ch, err := d.WaitTask(ctx, id)
	if err != nil {
		t.Fatalf("WaitTask: %v", err)
	}
	res, ok := <-ch
	if !ok {
		t.Fatalf("no exit within %v", within)
	}
	return res
}

// ReadLog returns a task log's rotated files (path.0, path.1, ...) joined.
func ReadLog(path string) string {
	var b strings.Builder
	for i := 0; ; i++ {
		data, err := os.ReadFile(fmt.Sprintf("%s.%d", path, i))
		if err != nil {
			return b.String()
		}
		b.Write(data)
	}
}
