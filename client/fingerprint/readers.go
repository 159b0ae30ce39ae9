package fingerprint

import (
	"bufio"
	"os"
	"strings"
)

// readTrim returns the file's content without surrounding space ("" on error).
func readTrim(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// eachKeyValue calls fn for each "key<sep>value" line of the file, with both
// sides trimmed. It reports whether the file could be read.
func eachKeyValue(path, sep string, fn func(k, v string)) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), sep)
		if !ok {
			continue
		}
		fn(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	return true
}

// osRelease returns ID and VERSION_ID from an os-release file.
func osRelease(path string) (id, version string) {
	eachKeyValue(path, "=", func(k, v string) {
		v = strings.Trim(v, `"'`)
		switch k {
		case "ID":
			id = v
		case "VERSION_ID":
			version = v
		}
	})
	return id, version
}
