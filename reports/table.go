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
)

// TableFormats are the formats WriteTable accepts.
var TableFormats = []string{"table", "csv", "json", "markdown"}

// TableWriter writes rows in one of TableFormats. csv and json stream; table
// and markdown hold the rows until Close to size the columns.
type TableWriter struct {
	w      io.Writer
	format string
	cols   []string
	rows   [][]string
	csv    *csv.Writer
	n      int
}

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
	t.rows = append(t.rows, rec)
	return nil
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
		return t.markdown()
	}
	return t.table()
}

func cell(s string) string {
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

func (t *TableWriter) table() error {
	w := t.widths()
	var b strings.Builder
	line := func(vals []string) {
		for i, v := range vals {
			if i > 0 {
				b.WriteString("  ")
			}
			if i == len(vals)-1 {
				b.WriteString(strings.TrimRight(pad(v, w[i], false), " "))
			} else {
				b.WriteString(pad(v, w[i], false))
			}
		}
		b.WriteString("\n")
	}
	line(t.cols)
	sep := make([]string, len(w))
	for i := range w {
		sep[i] = strings.Repeat("-", w[i])
	}
	line(sep)
	for _, r := range t.rows {
		line(r)
	}
	fmt.Fprintf(&b, "(%d rows)\n", len(t.rows))
	_, err := io.WriteString(t.w, b.String())
	return err
}

func (t *TableWriter) markdown() error {
	var b strings.Builder
	esc := func(s string) string { return strings.ReplaceAll(cell(s), "|", "\\|") }
	b.WriteString("|")
	for _, c := range t.cols {
		b.WriteString(" " + esc(c) + " |")
	}
	b.WriteString("\n|")
	for range t.cols {
		b.WriteString(" --- |")
	}
	b.WriteString("\n")
	for _, r := range t.rows {
		b.WriteString("|")
		for _, v := range r {
			b.WriteString(" " + esc(v) + " |")
		}
		b.WriteString("\n")
	}
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
