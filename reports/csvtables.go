package reports

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// Every table of report.md has its CSV. A figure's table has the
// figure's own (NAME.csv, the full table the figure draws); every other
// table, whichever section writes it, is read back from the Markdown as
// it was shown and written as table-ANCHOR.csv, ANCHOR being the anchor
// of the heading it sits under, less a leading "table-" (-2, -3, ... for
// a second and third table there), with a line under the table that links it. Reading the
// rendered Markdown, rather than each section handing its tables over,
// keeps a table added to any section from reaching report.md without its
// CSV.

// csvTable is one table of report.md written as CSV.
type csvTable struct {
	name string // file name, table-ANCHOR.csv
	t    table
}

var tableRuleRE = regexp.MustCompile(`^\|( --- \|)+$`)

// tablesAsCSV returns md with a link under every table that is not a
// figure's (the first table after a figure's image), and those tables,
// cells unescaped as mdText escaped them.
func tablesAsCSV(md string) (string, []csvTable) {
	lines := strings.Split(md, "\n")
	var out []string
	var tables []csvTable
	used := map[string]int{}
	heading, figure, fence := "", false, false
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, "```") {
			fence = !fence
		}
		switch {
		case fence:
		case strings.HasPrefix(l, "#"):
			heading, figure = strings.TrimSpace(strings.TrimLeft(l, "#")), false
		case strings.HasPrefix(l, "!["):
			figure = true
		case strings.HasPrefix(l, "|") && i+1 < len(lines) && tableRuleRE.MatchString(lines[i+1]):
			j := i + 2
			for j < len(lines) && strings.HasPrefix(lines[j], "|") {
				j++
			}
			out = append(out, lines[i:j]...)
			if figure {
				figure = false
			} else {
				t := table{header: mdCells(l)}
				for _, r := range lines[i+2 : j] {
					t.rows = append(t.rows, mdCells(r))
				}
				base := "table-" + strings.TrimPrefix(anchorID(heading), "table-") // "Table 2: per domain": table-2-per-domain
				if anchorID(heading) == "" {
					base = "table"
				}
				used[base]++
				name := base + ".csv"
				if n := used[base]; n > 1 {
					name = fmt.Sprintf("%s-%d.csv", base, n)
				}
				tables = append(tables, csvTable{name, t})
				out = append(out, "", fmt.Sprintf("Table as CSV: [%s](%s).", name, name))
				if j < len(lines) && lines[j] != "" {
					out = append(out, "")
				}
			}
			i = j - 1
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n"), tables
}

// mdCells splits a Markdown table row into its cells, undoing mdText's
// escapes (a backslash before a character, and the entities of <, > and
// &); a \n mdText wrote for a line break stays as those two characters.
func mdCells(row string) []string {
	row = strings.TrimPrefix(row, "|")
	var cells []string
	var c strings.Builder
	for i := 0; i < len(row); i++ {
		switch ch := row[i]; {
		case ch == '\\' && i+1 < len(row) && strings.IndexByte("\\`*_[]|~#!{}-+=.)", row[i+1]) >= 0:
			c.WriteByte(row[i+1])
			i++
		case ch == '|':
			cells = append(cells, c.String())
			c.Reset()
		default:
			c.WriteByte(ch)
		}
	}
	if rest := strings.TrimSpace(c.String()); rest != "" {
		cells = append(cells, c.String())
	}
	rep := strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&")
	for i := range cells {
		cells[i] = rep.Replace(strings.TrimSpace(cells[i]))
	}
	return cells
}

// writeTableCSVs writes tables into dir and returns their paths.
func writeTableCSVs(dir string, tables []csvTable) ([]string, error) {
	var files []string
	for _, t := range tables {
		p := filepath.Join(dir, t.name)
		if err := writeCSV(p, t.t); err != nil {
			return nil, fmt.Errorf("%s: %w", t.name, err)
		}
		files = append(files, p)
	}
	return files, nil
}
