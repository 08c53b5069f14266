package reports

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ub-bench/ub/reports/visible"
)

// TableFormats are the formats WriteTable accepts.
var TableFormats = []string{"table", "csv", "json", "markdown"}

// TableWriter writes rows in one of TableFormats, with bounded memory:
// csv, json and markdown stream; table sizes its columns from the first
// tableBlock rows, holds no more than those, and streams the rest (a wider
// cell later is shown whole, up to the 60 characters of any cell).
type TableWriter struct {
	w      io.Writer
	format string
	cols   []string
	rows   [][]string
	csv    *csv.Writer
	n      int
	width  []int // table: the column widths, set once the first block is written
}

// tableBlock is how many rows the table format holds to size its columns.
const tableBlock = 1000

// NewTableWriter returns a writer of format (one of TableFormats) to w.
func NewTableWriter(w io.Writer, format string) (*TableWriter, error) {
	switch format {
	case "table", "csv", "json", "markdown":
	default:
		return nil, fmt.Errorf("unknown format %q (want table, csv, json or markdown)", format)
	}
	return &TableWriter{w: w, format: format}, nil
}

// Header sets the column names; call it once, before any Row.
func (t *TableWriter) Header(cols []string) error {
	t.cols = cols
	if t.format == "csv" {
		t.csv = csv.NewWriter(t.w)
		return t.csv.Write(cols)
	}
	if t.format == "json" {
		_, err := io.WriteString(t.w, "[")
		return err
	}
	if t.format == "markdown" {
		return t.markdownHeader()
	}
	return nil
}

// Row writes one row of values (as scanned from the database).
func (t *TableWriter) Row(vals []any) error {
	switch t.format {
	case "csv":
		rec := make([]string, len(vals))
		for i, v := range vals {
			if v != nil {
				rec[i] = FormatValue(v)
			}
		}
		return t.csv.Write(rec)
	case "json":
		var b strings.Builder
		if t.n > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n  {")
		for i, v := range vals {
			if i > 0 {
				b.WriteString(", ")
			}
			k, _ := json.Marshal(t.cols[i])
			b.Write(k)
			b.WriteString(": ")
			b.Write(jsonValue(v))
		}
		b.WriteString("}")
		t.n++
		_, err := io.WriteString(t.w, b.String())
		return err
	}
	rec := make([]string, len(vals))
	for i, v := range vals {
		if v == nil {
			rec[i] = "NULL"
		} else {
			rec[i] = FormatValue(v)
		}
	}
	t.n++
	if t.format == "markdown" {
		return t.markdownRow(rec)
	}
	t.rows = append(t.rows, rec)
	if t.width == nil && len(t.rows) < tableBlock {
		return nil
	}
	return t.flushTable()
}

// Close writes what is held and ends the output.
func (t *TableWriter) Close() error {
	switch t.format {
	case "csv":
		t.csv.Flush()
		return t.csv.Error()
	case "json":
		end := "\n]\n"
		if t.n == 0 {
			end = "]\n"
		}
		_, err := io.WriteString(t.w, end)
		return err
	case "markdown":
		return nil
	}
	if err := t.flushTable(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(t.w, "(%d rows)\n", t.n)
	return err
}

// cell is s on one line of a terminal table, its format characters shown
// as [U+XXXX].
func cell(s string) string {
	s = visible.Text(s)
	s = strings.ReplaceAll(s, "\r\n", "\\n")
	s = strings.ReplaceAll(s, "\n", "\\n")
	return strings.ReplaceAll(s, "\t", " ")
}

func (t *TableWriter) widths() []int {
	w := make([]int, len(t.cols))
	for i, c := range t.cols {
		w[i] = utf8.RuneCountInString(c)
	}
	for _, r := range t.rows {
		for i, v := range r {
			if n := utf8.RuneCountInString(cell(v)); n > w[i] {
				w[i] = min(n, 60)
			}
		}
	}
	return w
}

func pad(s string, w int, right bool) string {
	s = cell(s)
	if n := utf8.RuneCountInString(s); n > w {
		r := []rune(s)
		s = string(r[:w-1]) + "…"
	}
	gap := strings.Repeat(" ", w-utf8.RuneCountInString(s))
	if right {
		return gap + s
	}
	return s + gap
}

// flushTable writes the held rows, first sizing the columns and writing the
// header when that is not done yet.
func (t *TableWriter) flushTable() error {
	var b strings.Builder
	line := func(vals []string) {
		for i, v := range vals {
			if i > 0 {
				b.WriteString("  ")
			}
			// A later row's wider cell is shown whole (up to the 60
			// characters of any cell), shifting the rest of its line.
			w := t.width[i]
			if n := utf8.RuneCountInString(cell(v)); n > w {
				w = max(w, min(n, 60))
			}
			if i == len(vals)-1 {
				b.WriteString(strings.TrimRight(pad(v, w, false), " "))
			} else {
				b.WriteString(pad(v, w, false))
			}
		}
		b.WriteString("\n")
	}
	if t.width == nil {
		t.width = t.widths()
		line(t.cols)
		sep := make([]string, len(t.width))
		for i := range t.width {
			sep[i] = strings.Repeat("-", t.width[i])
		}
		line(sep)
	}
	for _, r := range t.rows {
		line(r)
	}
	t.rows = t.rows[:0]
	_, err := io.WriteString(t.w, b.String())
	return err
}

// mdCell keeps a cell that is Markdown already on its line and in its
// column.
func mdCell(s string) string { return strings.ReplaceAll(cell(s), "|", "\\|") }

func (t *TableWriter) markdownHeader() error {
	var b strings.Builder
	b.WriteString("|")
	for _, c := range t.cols {
		b.WriteString(" " + mdText(c) + " |")
	}
	b.WriteString("\n|")
	for range t.cols {
		b.WriteString(" --- |")
	}
	b.WriteString("\n")
	_, err := io.WriteString(t.w, b.String())
	return err
}

func (t *TableWriter) markdownRow(r []string) error {
	var b strings.Builder
	b.WriteString("|")
	for _, v := range r {
		b.WriteString(" " + mdText(v) + " |")
	}
	b.WriteString("\n")
	_, err := io.WriteString(t.w, b.String())
	return err
}

// FormatValue renders a database value as text: times in RFC 3339 UTC,
// floats in the shortest form that reads back exactly, composite values as
// JSON.
func FormatValue(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case []byte:
		return string(x)
	case time.Time:
		return x.UTC().Format("2006-01-02 15:04:05.999999")
	case float64:
		return formatFloat(x, 64)
	case float32:
		return formatFloat(float64(x), 32)
	case bool:
		return strconv.FormatBool(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case int32:
		return strconv.FormatInt(int64(x), 10)
	case fmt.Stringer:
		return x.String()
	}
	if b, err := json.Marshal(v); err == nil {
		return string(b)
	}
	return fmt.Sprint(v)
}

func formatFloat(f float64, bits int) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return strconv.FormatFloat(f, 'g', -1, bits)
	}
	return strconv.FormatFloat(f, 'f', -1, bits)
}

func jsonValue(v any) []byte {
	switch x := v.(type) {
	case nil:
		return []byte("null")
	case time.Time:
		b, _ := json.Marshal(x.UTC().Format(time.RFC3339Nano))
		return b
	case []byte:
		b, _ := json.Marshal(string(x))
		return b
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return []byte("null")
		}
	case fmt.Stringer:
		b, _ := json.Marshal(x.String())
		return b
	}
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(fmt.Sprint(v))
	}
	return b
}
