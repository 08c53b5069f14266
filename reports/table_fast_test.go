package reports

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// refTable is the table format as it was written before the writer kept
// one buffer and skipped the escaping of plain ASCII cells: every cell
// through cell(), padded with pad(); the fast writer must print the same
// bytes.
func refTable(cols []string, rows [][]string) string {
	var b strings.Builder
	w := make([]int, len(cols))
	for i, c := range cols {
		w[i] = utf8.RuneCountInString(c)
	}
	for _, r := range rows[:min(len(rows), tableBlock)] {
		for i, v := range r {
			if n := utf8.RuneCountInString(cell(v)); n > w[i] {
				w[i] = min(n, 60)
			}
		}
	}
	pad := func(s string, w int) string {
		s = cell(s)
		if n := utf8.RuneCountInString(s); n > w {
			r := []rune(s)
			s = string(r[:w-1]) + "…"
		}
		return s + strings.Repeat(" ", w-utf8.RuneCountInString(s))
	}
	line := func(vals []string) {
		for i, v := range vals {
			if i > 0 {
				b.WriteString("  ")
			}
			wi := w[i]
			if n := utf8.RuneCountInString(cell(v)); n > wi {
				wi = max(wi, min(n, 60))
			}
			if i == len(vals)-1 {
				b.WriteString(strings.TrimRight(pad(v, wi), " "))
			} else {
				b.WriteString(pad(v, wi))
			}
		}
		b.WriteString("\n")
	}
	line(cols)
	sep := make([]string, len(w))
	for i := range w {
		sep[i] = strings.Repeat("-", w[i])
	}
	line(sep)
	for _, r := range rows {
		line(r)
	}
	fmt.Fprintf(&b, "(%d rows)\n", len(rows))
	return b.String()
}

// TestTableSameAsEscapingEveryCell: cells with format characters, tabs,
// newlines, wide runes, trailing spaces and more than 60 characters, in
// the first block and after it, print as escaping every cell did.
func TestTableSameAsEscapingEveryCell(t *testing.T) {
	pieces := []string{"a", "bc", "x y", " ", "  ", "\t", "\n", "\r\n", "é", "日本", "😀", "\u202E", "\u200B", "\x1b[31m", "|", "…", strings.Repeat("w", 70), strings.Repeat("ü", 65)}
	rng := rand.New(rand.NewPCG(1, 2))
	word := func() string {
		var b strings.Builder
		for range rng.IntN(5) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return b.String()
	}
	for _, n := range []int{0, 1, 7, tableBlock - 1, tableBlock, tableBlock + 1, 2*tableBlock + 37} {
		cols := []string{"id", "text ü", "last"}
		var rows [][]string
		var out strings.Builder
		tw, err := NewTableWriter(&out, "table")
		if err != nil {
			t.Fatal(err)
		}
		if err := tw.Header(cols); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			r := []string{fmt.Sprint(i), word(), word()}
			rows = append(rows, r)
			if err := tw.Row([]any{int64(i), r[1], r[2]}); err != nil {
				t.Fatal(err)
			}
		}
		if err := tw.Close(); err != nil {
			t.Fatal(err)
		}
		if want := refTable(cols, rows); out.String() != want {
			a, b := strings.Split(out.String(), "\n"), strings.Split(want, "\n")
			for i := range min(len(a), len(b)) {
				if a[i] != b[i] {
					t.Fatalf("%d rows: line %d is %q, want %q", n, i, a[i], b[i])
				}
			}
			t.Fatalf("%d rows: %d lines, want %d", n, len(a), len(b))
		}
	}
}
