package jobspec

import (
	"fmt"
	"os"
	"testing"
)

func fmtAny(v any) string { return fmt.Sprintf("%+v", v) }

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}
