package reports

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestEveryTableHasItsCSV: every table of report.md has a CSV beside it,
// with its header and as many rows: a figure's table its NAME.csv (the
// "Files:" line under it), every other table the table-*.csv linked
// under it. The per-domain UFS table with its Wilson intervals was in
// report.md only. The report is the hostile one (every name from the data
// carries markup), so a cell's escapes are undone in the CSV: the cell
// "| <b ...>cell</b> |" of the data is that text in the CSV.
func TestEveryTableHasItsCSV(t *testing.T) {
	dir := t.TempDir()
	sum, err := hostileReport(t).WriteAll(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	link := regexp.MustCompile(`^Table as CSV: \[(table-[a-z0-9-]+\.csv)\]\(table-[a-z0-9-]+\.csv\)\.$`)
	files := regexp.MustCompile(`\[([a-z0-9-]+\.csv)\]`)
	read := func(name string) [][]string {
		t.Helper()
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("a table's CSV: %v", err)
		}
		defer f.Close()
		cr := csv.NewReader(f)
		cr.FieldsPerRecord = -1
		recs, err := cr.ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return recs
	}
	tables, perDomain := 0, false
	for i := 0; i+1 < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "| ") || !strings.HasPrefix(lines[i+1], "| --- |") {
			continue
		}
		tables++
		cols := strings.Count(lines[i+1], "---")
		j := i + 2
		for j < len(lines) && strings.HasPrefix(lines[j], "|") {
			j++
		}
		rows := j - i - 2
		// The CSV this table names: the link under it, else the figure's.
		var name string
		for k := j; k < len(lines) && name == ""; k++ {
			if m := link.FindStringSubmatch(lines[k]); m != nil {
				name = m[1]
			} else if strings.HasPrefix(lines[k], "Files: ") {
				name = files.FindStringSubmatch(lines[k])[1]
			} else if strings.HasPrefix(lines[k], "| ") && strings.HasPrefix(lines[k+1], "| --- |") || strings.HasPrefix(lines[k], "#") {
				break
			}
		}
		if name == "" {
			t.Errorf("report.md:%d: a table (%s) with no CSV", i+1, lines[i])
			i = j
			continue
		}
		recs := read(name)
		if !strings.HasPrefix(name, "table-") {
			i = j // a figure's CSV holds the figure's whole table, in its own columns
			continue
		}
		if len(recs) != rows+1 || len(recs[0]) != cols {
			t.Errorf("%s: %d records of %d fields, want %d of %d (report.md:%d)", name, len(recs), len(recs[0]), rows+1, cols, i+1)
		}
		if lines[i] == "| simulator | domain | n scored | excluded P0 | excluded no criteria | mean R | UFS | UFS 95% CI (Wilson) |" {
			perDomain = true
			if name != "table-2-per-domain.csv" {
				t.Errorf("the per-domain UFS table's CSV is %s", name)
			}
			// The Wilson interval cell of the first row, as report.md shows it.
			md := strings.Split(strings.Trim(lines[i+2], "| "), " | ")
			shown := strings.NewReplacer(`\[`, "[", `\]`, "]").Replace(md[len(md)-1]) // report.md escapes the brackets
			if got := recs[1][7]; got != shown || !strings.HasPrefix(got, "[") {
				t.Errorf("per-domain CSV's interval %q, report.md's %q", got, shown)
			}
		}
		i = j
	}
	if tables < 10 || !perDomain {
		t.Fatalf("%d tables in report.md, per-domain table found: %v", tables, perDomain)
	}
	// Each table-*.csv is in the summary (and so in the manifest).
	var listed int
	for _, f := range sum.Files {
		if strings.HasPrefix(filepath.Base(f), "table-") {
			listed++
		}
	}
	csvs, _ := filepath.Glob(filepath.Join(dir, "table-*.csv"))
	if listed != len(csvs) || listed == 0 {
		t.Errorf("%d table CSVs written, %d in the summary", len(csvs), listed)
	}
	var all strings.Builder
	for _, p := range csvs {
		b, _ := os.ReadFile(p)
		all.Write(b)
	}
	if !strings.Contains(all.String(), "<b onmouseover=window.__xss=8>cell</b>") {
		t.Error("no table CSV holds the data's cell unescaped")
	}
}
