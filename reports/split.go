package reports

import (
	"fmt"
	"image/color"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

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

// WriteSplitSummaryFigure writes split-summary.svg, split-summary.png
// and split-summary.csv (splitSummaryTable) into dir, and returns their
// paths, sorted.
func WriteSplitSummaryFigure(dir string, s SplitSummary) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	pic, err := splitSummaryDrawing(s)
	if err != nil {
		return nil, err
	}
	return writeFigureFiles(dir, &figure{name: "split-summary", pic: pic, table: splitSummaryTable(s)})
}

// splitSummaryTable is the number of components of each size (in
// developers) per split.
func splitSummaryTable(s SplitSummary) table {
	sizes, counts := componentSizes(s)
	var t table
	t.header = []string{"developers_in_component"}
	for _, c := range s.Splits {
		t.header = append(t.header, c.Split)
	}
	for _, n := range sizes {
		row := []string{strconv.Itoa(n)}
		for _, c := range s.Splits {
			row = append(row, strconv.Itoa(counts[c.Split][n]))
		}
		t.add(row...)
	}
	return t
}

// splitSummaryDrawing is two panels: left, the number of components of
// each size per split on a log scale (a component of 16 developers shows
// beside a hundred of one), each bar with its count; right, the per-split
// eligibility funnel (developers, enough sessions, enough held-out
// sessions, eligible), each bar with its count. The splits' legend is
// drawn once, above the panels, where it covers no bar.
func splitSummaryDrawing(s SplitSummary) (drawing, error) {
	sizes, counts := componentSizes(s)
	var splits []string
	for _, c := range s.Splits {
		splits = append(splits, c.Split)
	}
	left := newPlot(fmt.Sprintf("Components by size (%d components, split hash %s)", len(s.Components), short(s.Run.Hash)),
		"developers in the component", "components (log scale)")
	labels := make([]string, len(sizes))
	vals := make([][]float64, len(sizes))
	top := 1
	for i, n := range sizes {
		labels[i] = strconv.Itoa(n)
		for _, sp := range splits {
			vals[i] = append(vals[i], float64(counts[sp][n]))
			top = max(top, counts[sp][n])
		}
	}
	left.Add(&groupedBars{vals: vals, colors: palette})
	left.Y.Scale = plot.LogScale{}
	left.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	left.Y.Min, left.Y.Max = 0.5, float64(top)*4 // room for the counts above the bars
	left.NominalX(labels...)
	left.X.Min, left.X.Max = -0.5, float64(len(sizes))-0.5

	right := newPlot("Eligibility funnel per split", "", "developers")
	stages := []string{"developers", "enough sessions", "enough held-out", "eligible"}
	fvals := make([][]float64, len(stages))
	ftop := 1
	bySplit := map[string]queries.FunnelRow{}
	for _, f := range s.Funnel {
		bySplit[f.Split] = f
	}
	for i := range stages {
		for _, sp := range splits {
			f := bySplit[sp]
			v := []int{f.Developers, f.EnoughSessions, f.EnoughHeldoutSessions, f.Eligible}[i]
			fvals[i] = append(fvals[i], float64(v))
			ftop = max(ftop, v)
		}
	}
	right.Add(&groupedBars{vals: fvals, colors: palette})
	right.Y.Min, right.Y.Max = 0, float64(ftop)*1.15
	right.NominalX(stages...)
	right.X.Min, right.X.Max = -0.5, float64(len(stages))-0.5

	inner := panels([]*plot.Plot{left, right}, 10*vg.Inch, 4*vg.Inch)
	return drawing{w: inner.w, h: inner.h + vg.Points(16), draw: func(c draw.Canvas) {
		// The legend: a swatch and the split's name with its sizes, in a
		// row above the panels.
		sty := text.Style{Font: font.From(plot.DefaultFont, vg.Points(9)), Handler: plot.DefaultTextHandler, YAlign: draw.YCenter}
		x, y := c.Min.X+vg.Points(6), c.Max.Y-vg.Points(8)
		for i, sc := range s.Splits {
			c.FillPolygon(palette[i%len(palette)], []vg.Point{{X: x, Y: y - 4}, {X: x + 10, Y: y - 4}, {X: x + 10, Y: y + 4}, {X: x, Y: y + 4}})
			t := fmt.Sprintf("%s: %d developers, %d repos, %d sessions", sc.Split, sc.Developers, sc.Repos, sc.Sessions)
			c.FillText(sty, vg.Point{X: x + 14, Y: y}, t)
			x += 14 + sty.Width(t) + vg.Points(14)
		}
		inner.draw(draw.Crop(c, 0, 0, 0, -vg.Points(16)))
	}}, nil
}

// groupedBars draws, at each category i, one bar per group side by side
// (vals[i][j], in colors[j]), each from the bottom of the axis, with its
// value printed above it. A zero draws no bar but prints its 0.
type groupedBars struct {
	vals   [][]float64
	colors []color.Color
}

// Plot draws the bars (plot.Plotter).
func (g *groupedBars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	sty := text.Style{Font: font.From(plot.DefaultFont, vg.Points(7)), Handler: plot.DefaultTextHandler, XAlign: draw.XCenter}
	for i, row := range g.vals {
		w := 0.8 / float64(max(1, len(row)))
		for j, v := range row {
			x0 := trX(float64(i) - 0.4 + float64(j)*w)
			x1 := trX(float64(i) - 0.4 + float64(j+1)*w)
			y0 := c.Min.Y
			y1 := y0
			if v > p.Y.Min {
				y1 = trY(v)
			}
			if y1 > y0 {
				c.FillPolygon(g.colors[j%len(g.colors)], []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
			}
			c.FillText(sty, vg.Point{X: (x0 + x1) / 2, Y: y1 + vg.Points(1.5)}, strconv.FormatFloat(v, 'f', -1, 64))
		}
	}
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
