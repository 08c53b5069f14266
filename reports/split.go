package reports

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/ub-bench/ub/queries"
)

// SplitSummary is what the split report shows.
type SplitSummary struct {
	Run        queries.SplitRun
	Components []queries.ComponentRow
	Splits     []queries.SplitCount
	Funnel     []queries.FunnelRow
	Points     []queries.DeveloperPoints
}

// largest is the component with the most developers, then repositories
// (ties: the lowest id, which is the first in canonical order).
func (s SplitSummary) largest() queries.ComponentRow {
	var best queries.ComponentRow
	for i, c := range s.Components {
		if i == 0 || c.Developers > best.Developers || c.Developers == best.Developers && c.Repos > best.Repos {
			best = c
		}
	}
	return best
}

// WriteSplitSummaryText prints the split report as aligned text.
func WriteSplitSummaryText(w io.Writer, s SplitSummary) error {
	var b strings.Builder
	l := s.largest()
	fmt.Fprintf(&b, "split      seed %d, %s by %s\nhash       %s\n", s.Run.Seed, s.Run.Ratios, s.Run.Measure, s.Run.Hash)
	fmt.Fprintf(&b, "time split latest %.0f%% of each developer's sessions held out, at least %d\n",
		100*s.Run.HeldoutFraction, s.Run.MinHeldoutSessions)
	fmt.Fprintf(&b, "components %d; largest: %d developers, %d repos, %d sessions (component %d, %s)\n\n",
		len(s.Components), l.Developers, l.Repos, l.Sessions, l.ID, l.Split)
	tw, _ := NewTableWriter(&b, "table")
	tw.Header([]string{"split", "components", "developers", "repos", "sessions"})
	for _, c := range s.Splits {
		tw.Row([]any{c.Split, int64(c.Components), int64(c.Developers), int64(c.Repos), int64(c.Sessions)})
	}
	tw.Close()
	fmt.Fprintf(&b, "\neligibility (>= %d sessions, >= %d held-out sessions, >= %d held-out moments)\n",
		s.Run.MinSessions, s.Run.MinHeldoutSessions, s.Run.MinHeldoutMoments)
	tw, _ = NewTableWriter(&b, "table")
	tw.Header([]string{"split", "developers", "enough sessions", "enough held-out sessions", "eligible"})
	for _, f := range s.Funnel {
		tw.Row([]any{f.Split, int64(f.Developers), int64(f.EnoughSessions), int64(f.EnoughHeldoutSessions), int64(f.Eligible)})
	}
	tw.Close()
	if len(s.Points) > 0 {
		total, dose := 0, 0
		for _, p := range s.Points {
			total += p.Points
			dose += p.ConstantDose
		}
		fmt.Fprintf(&b, "\nfrozen points: %d (%d in the constant-dose subset) for %d developers\n", total, dose, len(s.Points))
		tw, _ = NewTableWriter(&b, "table")
		tw.Header([]string{"developer", "split", "points", "constant dose"})
		for _, p := range s.Points {
			tw.Row([]any{p.Developer, p.Split, int64(p.Points), int64(p.ConstantDose)})
		}
		tw.Close()
	} else {
		b.WriteString("\nfrozen points: none (run ub points)\n")
	}
	for _, warn := range s.Run.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", warn)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// componentSizes counts components by their number of developers, per split.
func componentSizes(s SplitSummary) (sizes []int, counts map[string]map[int]int) {
	counts = map[string]map[int]int{}
	seen := map[int]bool{}
	for _, c := range s.Components {
		if counts[c.Split] == nil {
			counts[c.Split] = map[int]int{}
		}
		counts[c.Split][c.Developers]++
		if !seen[c.Developers] {
			seen[c.Developers] = true
			sizes = append(sizes, c.Developers)
		}
	}
	sort.Ints(sizes)
	return sizes, counts
}

// WriteSplitSummaryFigure writes split-summary.svg, split-summary.png (the
// number of components of each size, in developers, stacked by split) and
// split-summary.csv (its table) into dir, and returns their paths.
func WriteSplitSummaryFigure(dir string, s SplitSummary) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	sizes, counts := componentSizes(s)
	var splits []string
	for _, c := range s.Splits {
		splits = append(splits, c.Split)
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Components by size (%d components, split hash %s)", len(s.Components), short(s.Run.Hash))
	p.X.Label.Text = "developers in the component"
	p.Y.Label.Text = "components"
	labels := make([]string, len(sizes))
	for i, n := range sizes {
		labels[i] = strconv.Itoa(n)
	}
	var below *plotter.BarChart
	w := vg.Points(min(40, max(4, 360/float64(max(1, len(sizes))))))
	for i, name := range splits {
		vals := make(plotter.Values, len(sizes))
		for j, n := range sizes {
			vals[j] = float64(counts[name][n])
		}
		bars, err := plotter.NewBarChart(vals, w)
		if err != nil {
			return nil, err
		}
		bars.Color = palette[i%len(palette)]
		bars.LineStyle.Width = 0
		if below != nil {
			bars.StackOn(below)
		}
		below = bars
		p.Add(bars)
		p.Legend.Add(name, bars)
	}
	p.Legend.Top = true
	top := 0
	for _, n := range sizes {
		t := 0
		for _, name := range splits {
			t += counts[name][n]
		}
		top = max(top, t)
	}
	p.Y.Min, p.Y.Max = 0, float64(top)*1.25 // room for the legend
	p.NominalX(labels...)
	files, err := saveFigure(p, dir, "split-summary", 7*vg.Inch, 4*vg.Inch)
	if err != nil {
		return nil, err
	}
	csvPath := filepath.Join(dir, "split-summary.csv")
	f, err := os.Create(csvPath)
	if err != nil {
		return nil, err
	}
	cw := csv.NewWriter(f)
	cw.Write(append([]string{"developers_in_component"}, splits...))
	for _, n := range sizes {
		rec := []string{strconv.Itoa(n)}
		for _, name := range splits {
			rec = append(rec, strconv.Itoa(counts[name][n]))
		}
		cw.Write(rec)
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	return append(files, csvPath), nil
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
