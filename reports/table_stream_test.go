package reports

import (
	"strconv"
	"strings"
	"testing"
)

// TestTableStreamsWithBoundedMemory is defect 11 of issue 9: ub sql in table
// format held every row until the end (2.4 GB for 10M rows). It must hold at
// most tableBlock rows and have written the first block before Close.
func TestTableStreamsWithBoundedMemory(t *testing.T) {
	for _, format := range []string{"table", "markdown"} {
		t.Run(format, func(t *testing.T) {
			var out strings.Builder
			tw, err := NewTableWriter(&out, format)
			if err != nil {
				t.Fatal(err)
			}
			if err := tw.Header([]string{"n", "word"}); err != nil {
				t.Fatal(err)
			}
			const rows = 2*tableBlock + 500
			for i := 0; i < rows; i++ {
				if err := tw.Row([]any{int64(i), "w" + strconv.Itoa(i)}); err != nil {
					t.Fatal(err)
				}
				if len(tw.rows) > tableBlock {
					t.Fatalf("row %d: %d rows held, want at most %d", i, len(tw.rows), tableBlock)
				}
			}
			if !strings.Contains(out.String(), "w1000\n") && !strings.Contains(out.String(), "w1000 |") {
				t.Errorf("nothing past the first block written before Close")
			}
			if err := tw.Close(); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			want := rows + 2 // header and separator
			if format == "table" {
				want++ // (N rows)
				if last := lines[len(lines)-1]; last != "("+strconv.Itoa(rows)+" rows)" {
					t.Errorf("last line %q", last)
				}
			}
			if len(lines) != want {
				t.Errorf("%d lines, want %d", len(lines), want)
			}
			// Every row in order; a later, wider cell is shown whole
			// (the first block sized "n" for "999").
			if format == "table" {
				if got := lines[2+rows-1]; got != "2499  w2499" {
					t.Errorf("last row %q, want %q", got, "2499  w2499")
				}
			}
		})
	}
}
