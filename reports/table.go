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
	buf    []byte
	rec    []string // table: the row being written once the widths are set
	keys   [][]byte // json: the column names, quoted
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
		t.keys = make([][]byte, len(cols))
		for i, c := range cols {
			t.keys[i], _ = json.Marshal(c)
		}
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
		if t.n > 0 {
			t.buf = append(t.buf, ',')
		}
		t.buf = append(t.buf, "\n  {"...)
		for i, v := range vals {
			if i > 0 {
				t.buf = append(t.buf, ", "...)
			}
			t.buf = append(t.buf, t.keys[i]...)
			t.buf = append(t.buf, ": "...)
			t.buf = append(t.buf, jsonValue(v)...)
		}
		t.buf = append(t.buf, '}')
		t.n++
		return t.flush()
	}
	rec := t.rec
	if t.width == nil || len(rec) != len(vals) {
		rec = make([]string, len(vals))
	}
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
	if t.width != nil {
		t.rec = rec
		t.line(rec)
		return t.flush()
	}
	t.rows = append(t.rows, rec)
	if len(t.rows) < tableBlock {
		return nil
	}
	return t.flushTable()
}

// flush writes the held output: each row as it comes (after the first
// block of the table format), in one Write; give the writer a buffer for
// many rows.
func (t *TableWriter) flush() error {
	if len(t.buf) == 0 {
		return nil
	}
	_, err := t.w.Write(t.buf)
	t.buf = t.buf[:0]
	return err
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
		t.buf = append(t.buf, end...)
		return t.flush()
	case "markdown":
		return t.flush()
	}
	if err := t.flushTable(); err != nil {
		return err
	}
	t.buf = fmt.Appendf(t.buf, "(%d rows)\n", t.n)
	return t.flush()
}

// cell is s on one line of a terminal table, its format characters shown
// as [U+XXXX].
func cell(s string) string {
	s = visible.Text(s)
	s = strings.ReplaceAll(s, "\r\n", "\\n")
	s = strings.ReplaceAll(s, "\n", "\\n")
	return strings.ReplaceAll(s, "\t", " ")
}

// plainASCII says whether s is printable ASCII only: its cell is s, its
// width len(s).
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7F {
			return false
		}
	}
	return true
}

// cellWidth is cell(s) and its width in runes.
func cellWidth(s string) (string, int) {
	if plainASCII(s) {
		return s, len(s)
	}
	c := cell(s)
	return c, utf8.RuneCountInString(c)
}

func (t *TableWriter) widths() []int {
	w := make([]int, len(t.cols))
	for i, c := range t.cols {
		w[i] = utf8.RuneCountInString(c)
	}
	for _, r := range t.rows {
		for i, v := range r {
			if _, n := cellWidth(v); n > w[i] {
				w[i] = min(n, 60)
			}
		}
	}
	return w
}

// line appends one line of the table: each cell padded to its column's
// width, cut to it with "…" if longer, the columns two spaces apart and
// the line's trailing spaces dropped.
func (t *TableWriter) line(vals []string) {
	for i, v := range vals {
		if i > 0 {
			t.buf = append(t.buf, "  "...)
		}
		c, n := cellWidth(v)
		// A later row's wider cell is shown whole (up to the 60
		// characters of any cell), shifting the rest of its line.
		w := t.width[i]
		if n > w {
			w = max(w, min(n, 60))
		}
		if n > w {
			r := []rune(c)
			c = string(r[:w-1]) + "…"
			n = w
		}
		if i == len(vals)-1 {
			t.buf = append(t.buf, strings.TrimRight(c, " ")...)
			continue
		}
		t.buf = append(t.buf, c...)
		for ; n < w; n++ {
			t.buf = append(t.buf, ' ')
		}
	}
	t.buf = append(t.buf, '\n')
}

// flushTable writes the held rows, first sizing the columns and writing the
// header when that is not done yet.
func (t *TableWriter) flushTable() error {
	if t.width == nil {
		t.width = t.widths()
		t.line(t.cols)
		sep := make([]string, len(t.width))
		for i := range t.width {
			sep[i] = strings.Repeat("-", t.width[i])
		}
		t.line(sep)
	}
	for _, r := range t.rows {
		t.line(r)
	}
	t.rows = t.rows[:0]
	return t.flush()
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
	t.buf = append(t.buf, b.String()...)
	return t.flush()
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
	case int64:
		return strconv.AppendInt(nil, x, 10)
	case int32:
		return strconv.AppendInt(nil, int64(x), 10)
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
