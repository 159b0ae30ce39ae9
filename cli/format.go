package cli

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"
)

// shortIDLength is how many characters of an ID are shown without -verbose.
const shortIDLength = 8

// shortID returns the first 8 characters of id unless verbose.
func shortID(id string, verbose bool) string {
	if verbose || len(id) <= shortIDLength {
		return id
	}
	return id[:shortIDLength]
}

// table writes rows (the first is the header) with columns aligned by two
// spaces, like Nomad's columnize output.
func table(w io.Writer, rows [][]string) {
	var widths []int
	for _, r := range rows {
		for i, c := range r {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	for _, r := range rows {
		var b strings.Builder
		for i, c := range r {
			b.WriteString(c)
			if i < len(r)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c)+2))
			}
		}
		fmt.Fprintln(w, b.String())
	}
}

// kv writes "key = value" lines with the '=' aligned; pairs holds key,
// value, key, value...
func kv(w io.Writer, pairs ...string) {
	width := 0
	for i := 0; i < len(pairs); i += 2 {
		width = max(width, len(pairs[i]))
	}
	for i := 0; i+1 < len(pairs); i += 2 {
		fmt.Fprintf(w, "%-*s = %s\n", width, pairs[i], pairs[i+1])
	}
}

// unixNano turns a unix-nanosecond field into a time (zero for 0).
func unixNano(ns int64) time.Time {
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns)
}

// relTime formats t relative to now: "5s ago", "3m12s ago", "2h5m ago",
// "3d4h ago", "<none>" for a zero time.
func relTime(now, t time.Time) string {
	if t.IsZero() {
		return "<none>"
	}
	d := now.Sub(t)
	suffix := " ago"
	if d < 0 {
		d, suffix = -d, " from now"
	}
	return prettyDuration(d) + suffix
}

// prettyDuration is a short, two-unit duration: "0s", "45s", "3m12s",
// "2h5m", "3d4h".
func prettyDuration(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return trimZero(fmt.Sprintf("%dm%ds", int(d.Minutes()), int(d.Seconds())%60))
	case d < 24*time.Hour:
		return trimZero(fmt.Sprintf("%dh%dm", int(d.Hours()), int(d.Minutes())%60))
	default:
		days := int(d.Hours()) / 24
		return trimZero(fmt.Sprintf("%dd%dh", days, int(d.Hours())%24))
	}
}

// trimZero drops a zero second unit: "3m0s" -> "3m".
func trimZero(s string) string {
	if strings.HasSuffix(s, "m0s") || strings.HasSuffix(s, "h0m") || strings.HasSuffix(s, "d0h") {
		return s[:len(s)-2]
	}
	return s
}

// formatTime is an absolute timestamp in local time, as Nomad prints it.
func formatTime(t time.Time) string {
	if t.IsZero() {
		return "<none>"
	}
	return t.Local().Format("2006-01-02T15:04:05Z07:00")
}

// listMore returns "a, b, c" or "<none>".
func listMore(s []string) string {
	if len(s) == 0 {
		return "<none>"
	}
	return strings.Join(s, ",")
}
