package cli

import (
	"fmt"
	"io"
	"sort"
)

// printNodeKV prints a node's attributes or meta as Nomad's `node status
// -verbose` does: a titled section of sorted "key = value" lines, the keys
// padded to one width. An empty map prints nothing.
func printNodeKV(w io.Writer, title string, m map[string]string) {
	if len(m) == 0 {
		return
	}
	keys := make([]string, 0, len(m))
	width := 0
	for k := range m {
		keys = append(keys, k)
		width = max(width, len(k))
	}
	sort.Strings(keys)
	fmt.Fprintf(w, "\n%s\n", title)
	for _, k := range keys {
		fmt.Fprintf(w, "%-*s = %s\n", width, k, m[k])
	}
}
