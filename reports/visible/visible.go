// Package visible shows the invisible: bidirectional controls and other
// format characters in data are printed as [U+XXXX], so a name, id or
// message cannot reorder or hide what a reader sees. Every place ub prints
// data (the review pages, report.md, terminal tables) goes through Text.
package visible

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// Hidden reports whether r is shown as [U+XXXX]: Unicode's format
// characters (category Cf: the bidirectional embeddings, overrides and
// isolates U+202A-U+202E and U+2066-U+2069, the marks U+200E, U+200F and
// U+061C, zero-width U+200B-U+200D, U+2060-U+2064, the byte-order mark
// U+FEFF, ...), the line and paragraph separators U+2028 and U+2029, and
// control characters other than tab, newline and carriage return
// (a terminal escape sequence starts with one).
func Hidden(r rune) bool {
	switch {
	case r == '\t', r == '\n', r == '\r':
		return false
	case r < 0x20, r >= 0x7F && r < 0xA0:
		return true
	case r == 0x2028, r == 0x2029:
		return true
	}
	return unicode.Is(unicode.Cf, r)
}

// Text returns s with every Hidden character written as [U+XXXX].
func Text(s string) string {
	if !strings.ContainsFunc(s, Hidden) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if Hidden(r) {
			fmt.Fprintf(&b, "[U+%04X]", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Line returns s as one line: Text, with newlines and carriage returns
// written \n and \r, for a message that is one line by design (an ingest
// error, a bad line of a file) but quotes data, which may hold them.
func Line(s string) string {
	s = Text(s)
	if !strings.ContainsAny(s, "\n\r") {
		return s
	}
	return strings.NewReplacer("\n", `\n`, "\r", `\r`).Replace(s)
}

// Quote returns s double-quoted with Go's escapes (strconv.Quote): a
// newline, a NUL, a terminal escape or a bidirectional control in an id
// from the data shows as \n, \x00, \x1b, \u202e, so that it can neither
// forge a line of ub's messages nor reach the terminal. Every id from the
// data that an error message names goes through Quote or List.
func Quote(s string) string { return strconv.Quote(s) }

// List names the first n items, each as Quote writes it, and counts the
// rest: `"a", "b", "c" and 99,997 more`. A list from the data can be long;
// a message stays one short line.
func List(items []string, n int) string {
	var b strings.Builder
	for i, s := range items[:min(max(n, 0), len(items))] {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(Quote(s))
	}
	if rest := len(items) - max(n, 0); rest > 0 {
		if b.Len() > 0 {
			b.WriteString(" and ")
		}
		b.WriteString(Count(rest) + " more")
	}
	return b.String()
}

// Count writes n with a comma between each group of three digits:
// 99,995.
func Count(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}
