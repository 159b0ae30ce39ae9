// Package suggest finds, for a mistyped name, the known name the user most
// likely meant: the CLI for command names, the job file and agent config
// decoders for block and argument names.
package suggest

import (
	"fmt"
	"sort"
)

// Closest returns the candidate closest to typed by edit distance (with
// adjacent transpositions: "stauts" is one edit from "status"), or "" when
// none is close enough to be a likely typo: at most 1 edit for words of up
// to 4 letters, 2 for longer ones, and never the whole candidate. Ties go to
// the alphabetically first candidate, so the answer is stable. candidates
// is not modified.
func Closest(typed string, candidates []string) string {
	limit := 1
	if len([]rune(typed)) > 4 {
		limit = 2
	}
	sorted := append([]string(nil), candidates...)
	sort.Strings(sorted)
	best, bestD := "", limit+1
	for _, c := range sorted {
		if c == typed {
			continue
		}
		if d := Distance(typed, c); d < bestD && d < len([]rune(c)) {
			best, bestD = c, d
		}
	}
	return best
}

// DidYouMean is ` Did you mean "x"?` for the Closest candidate x, to append
// to a diagnostic's detail, or "" when there is none.
func DidYouMean(typed string, candidates []string) string {
	if c := Closest(typed, candidates); c != "" {
		return fmt.Sprintf(" Did you mean %q?", c)
	}
	return ""
}

// Distance is the optimal string alignment distance between a and b:
// insertions, deletions, substitutions and transpositions of two adjacent
// runes each cost 1.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// Three rows of the dynamic-programming table: i-2, i-1 and i.
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
