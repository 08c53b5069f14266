package reports

import (
	"strings"

	"github.com/ub-bench/ub/reports/visible"
)

// Every string from the data that reaches report.md (names, ids, quotes,
// examples, file names, reasons) goes through mdText, or mdCode inside a
// code span, so that no viewer of the Markdown, even one that passes raw
// HTML through, meets markup the data wrote: HTML's <, > and & become
// entities, Markdown's punctuation is backslash-escaped, a line break is
// shown as \n and invisible format characters as [U+XXXX]. The text reads
// the same once rendered.

// mdText escapes s for Markdown prose and table cells.
func mdText(s string) string {
	s = visible.Text(s)
	var b strings.Builder
	b.Grow(len(s) + 8)
	lead := true // still in the leading digits of s (an ordered-list marker)
	for i, r := range s {
		digit := r >= '0' && r <= '9'
		switch r {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '\r':
			if !strings.HasPrefix(s[i+1:], "\n") {
				b.WriteString(`\n`)
			}
		case '\n':
			b.WriteString(`\n`)
		case '\\', '`', '*', '_', '[', ']', '|', '~', '#', '!', '{', '}':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '-', '+', '=':
			if i == 0 { // a list item or a heading underline at a line's start
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		case '.', ')':
			rest := s[i+1:]
			if lead && i > 0 && (rest == "" || rest[0] == ' ' || rest[0] == '\t') { // "1. " at a line's start opens a list
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
		lead = lead && digit
	}
	return b.String()
}

// mdCode returns s as one Markdown code span: fenced by more backticks
// than any run in s, padded when s starts or ends with a backtick; inside
// it nothing is markup. Line breaks are shown as \n, format characters as
// [U+XXXX]. (Not for a table cell, where a | would still end the cell.)
func mdCode(s string) string {
	s = visible.Text(s)
	s = strings.NewReplacer("\r\n", `\n`, "\n", `\n`, "\r", `\n`).Replace(s)
	run, longest := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if s == "" || strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || strings.HasPrefix(s, " ") && strings.HasSuffix(s, " ") {
		s = " " + s + " "
	}
	return fence + s + fence
}
