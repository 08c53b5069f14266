package view

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/yuin/goldmark/ast"

	"github.com/ub-bench/ub/analysis"
	"github.com/ub-bench/ub/queries"
)

type cellRow struct {
	queries.ViewCellMoment
	Href, DevHref string // the moment at the cell's N and K; the developer's moments (anchor only)
}

type cellData struct {
	frame
	Setting            queries.ViewSetting
	Dose               bool
	Judge              string
	Accuracy, Lo, Hi   string // the macro accuracy and its 95% t interval, as the report gives them
	Developers, Points int    // developers scored; moments (rows of the list)
	Moments, Hits      int
	Rows               []cellRow
	Pager              pager
}

// cellData is one cell of a sweep (a setting at any N and K): its macro
// accuracy with the report's interval, computed again from the moments
// (ViewCellScores counts them as the report does), and the moments, each
// linked to its page at the cell's N and K.
func (s *Site) cellData(ctx context.Context, p Page, l linker) (cellData, error) {
	n, err1 := strconv.Atoi(p.Q.Get("n"))
	k, err2 := strconv.Atoi(p.Q.Get("k"))
	if err1 != nil || err2 != nil || n < 0 || k < 0 {
		return cellData{}, fmt.Errorf("%w: n and k must be whole numbers", ErrBadRequest)
	}
	st := queries.ViewSetting{Simulator: p.Q.Get("sim"), Condition: p.Q.Get("cond"), N: n, K: k}
	if !s.hasSetting(st) {
		return cellData{}, fmt.Errorf("%w: no generations of simulator %q under condition %q at N = %d, K = %d", ErrNotFound, st.Simulator, st.Condition, n, k)
	}
	view := p.Q.Get("view")
	if view != "" && view != "dose" {
		return cellData{}, fmt.Errorf("%w: view %q: want dose or none", ErrBadRequest, view)
	}
	dose := view == "dose"
	pg, pn, err := s.pageOf(p, l)
	if err != nil {
		return cellData{}, err
	}
	scores, err := queries.ViewCellScores(ctx, s.db, st, dose)
	if err != nil {
		return cellData{}, err
	}
	ms, total, err := queries.ViewCell(ctx, s.db, st, dose, pg)
	if err != nil {
		return cellData{}, err
	}
	title := fmt.Sprintf("%s %s at N = %d, K = %d", st.Simulator, st.Condition, n, k)
	if dose {
		title += ", constant dose"
	}
	d := cellData{frame: s.frame(l, title), Setting: st, Dose: dose, Judge: s.opts.Judge, Points: total}
	var acc []float64
	for _, x := range scores {
		if x.Moments == 0 {
			continue
		}
		acc = append(acc, float64(x.Hits)/float64(x.Moments))
		d.Moments += x.Moments
		d.Hits += x.Hits
	}
	iv := analysis.MeanCI(acc, analysis.Confidence)
	d.Developers = iv.N
	d.Accuracy, d.Lo, d.Hi = fmtNum(iv.Mean), fmtNum(iv.Lo), fmtNum(iv.Hi)
	anchor := n == s.n && k == s.k && s.ubSims[st.Simulator][st.Condition]
	for _, m := range ms {
		r := cellRow{ViewCellMoment: m, Href: l.link(page(KindMoment, "point", m.PointID, "n", strconv.Itoa(n), "k", strconv.Itoa(k)))}
		if anchor {
			r.DevHref = l.link(page(KindUBDev, "sim", st.Simulator, "cond", st.Condition, "dev", m.Developer))
		}
		d.Rows = append(d.Rows, r)
	}
	d.Pager = s.pager(p, l, pn, len(ms), total)
	return d, nil
}

// hasSetting is whether the workspace holds generations of a setting.
func (s *Site) hasSetting(st queries.ViewSetting) bool {
	for _, x := range s.settings {
		if x.Simulator == st.Simulator && x.Condition == st.Condition && x.N == st.N && x.K == st.K {
			return true
		}
	}
	return false
}

// sweepTarget is the simulator and condition a sweep figure's caption
// names first ("SIM, COND, K = 0: ..." or "SIM, COND: ..."), among the
// stored settings; ok is false when it names none.
func (s *Site) sweepTarget(caption string) (sim, cond string, ok bool) {
	best := -1
	for _, x := range s.settings {
		pre := x.Simulator + ", " + x.Condition
		if strings.HasPrefix(caption, pre) && len(caption) > len(pre) && strings.ContainsRune(",:", rune(caption[len(pre)])) && len(pre) > best {
			sim, cond, best = x.Simulator, x.Condition, len(pre)
		}
	}
	return sim, cond, best >= 0
}

var (
	captionK = regexp.MustCompile(`^, K = (\d+):`)
	viewN    = regexp.MustCompile(`at N = (\d+)$`)
)

// linkSweep links each row of a sweep's table (the context sweep's N, the
// history sweep's K, the surface's cells) to the moments of its setting:
// the accuracy (or value) cell. fig is the figure the table belongs to,
// caption its caption's text.
func (s *Site) linkSweep(fig, caption string, col map[string]int, cells func(r int) []cellAt, rows int, l linker) {
	sim, cond, ok := s.sweepTarget(caption)
	if !ok {
		return
	}
	rest := strings.TrimPrefix(caption, sim+", "+cond)
	for r := 0; r < rows; r++ {
		cs := cells(r)
		at := func(name string) (cellAt, bool) {
			i, ok := col[name]
			if !ok || i >= len(cs) {
				return cellAt{}, false
			}
			return cs[i], true
		}
		var n, k int
		var view string
		var target cellAt
		switch fig {
		case "context-scaling", "history-sweep":
			set, ok1 := at("setting")
			ax, ok2 := at("axis")
			v, ok3 := at("view")
			acc, ok4 := at("accuracy")
			if !ok1 || !ok2 || !ok3 || !ok4 {
				return
			}
			x, err := strconv.Atoi(set.text)
			if err != nil {
				continue
			}
			switch ax.text {
			case "N":
				m := captionK.FindStringSubmatch(rest)
				if m == nil {
					return
				}
				n, k = x, atoi(m[1])
				if v.text == "constant dose" {
					view = "dose"
				}
			case "K":
				m := viewN.FindStringSubmatch(v.text)
				if m == nil {
					continue
				}
				n, k = atoi(m[1]), x
			default:
				continue
			}
			target = acc
		case "context-heatmap":
			kind, ok1 := at("kind")
			cn, ok2 := at("n")
			ck, ok3 := at("k")
			val, ok4 := at("value")
			if !ok1 || !ok2 || !ok3 || !ok4 {
				return
			}
			var err1, err2 error
			n, err1 = strconv.Atoi(cn.text)
			k, err2 = strconv.Atoi(ck.text)
			if kind.text != "cell" || err1 != nil || err2 != nil {
				continue
			}
			target = val
		default:
			return
		}
		st := queries.ViewSetting{Simulator: sim, Condition: cond, N: n, K: k}
		if !s.hasSetting(st) {
			continue
		}
		target.link(l.link(page(KindCell, "sim", sim, "cond", cond, "n", strconv.Itoa(n), "k", strconv.Itoa(k), "view", view)))
	}
}

// cellAt is a cell of a report table: its text as a reader sees it, and
// the node a link wraps.
type cellAt struct {
	text string
	node ast.Node
}

func (c cellAt) link(href string) { wrapLink(c.node, href) }

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// caseMoments maps the case study's moments (M1, M2, ...) to their points,
// from the figure's table (case-study.csv); nil when the report has none.
func (s *Site) caseMoments() map[string]string {
	if !s.hasFigure("case-study.csv") {
		return nil
	}
	f, err := os.Open(filepath.Join(s.opts.ReportDir, "case-study.csv"))
	if err != nil {
		return nil
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil || len(recs) == 0 {
		return nil
	}
	mi, pi := -1, -1
	for i, h := range recs[0] {
		switch h {
		case "moment":
			mi = i
		case "point":
			pi = i
		}
	}
	if mi < 0 || pi < 0 {
		return nil
	}
	out := map[string]string{}
	for _, r := range recs[1:] {
		if mi < len(r) && pi < len(r) && r[pi] != "" {
			out[r[mi]] = r[pi]
		}
	}
	return out
}
