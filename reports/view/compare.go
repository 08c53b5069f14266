package view

import (
	"context"
	"fmt"
	"strconv"

	"github.com/ub-bench/ub/queries"
)

type pointPairRow struct {
	queries.ViewPointPair
	Href string // the moment's page
}

type taskPairRow struct {
	queries.ViewTaskPair
	HrefA, HrefB string // each side's first episode
}

type compareData struct {
	frame
	Study         string // "ub" or "fid"
	A, B          string // the simulators (with their conditions, UserBench)
	HrefA, HrefB  string
	Points        []pointPairRow
	Tasks         []taskPairRow
	Total         int
	Disagree      int
	N, K          int
	Judge, Grader string
	Pager         pager
}

// compareData is two simulators side by side on what they share, where
// they disagree first: UserBench settings (sim and cond, sim2 and cond2)
// on the points both generated at, at the anchor; user simulators (sim,
// sim2) on the tasks both ran, by the share of f = 1.
func (s *Site) compareData(ctx context.Context, p Page, l linker) (compareData, error) {
	a, b := p.Q.Get("sim"), p.Q.Get("sim2")
	pg, n, err := s.pageOf(p, l)
	if err != nil {
		return compareData{}, err
	}
	switch study := p.Q.Get("study"); study {
	case "ub":
		ca, cb := p.Q.Get("cond"), p.Q.Get("cond2")
		for _, x := range [][2]string{{a, ca}, {b, cb}} {
			if !s.ubSims[x[0]][x[1]] {
				return compareData{}, fmt.Errorf("%w: no generations of simulator %q under condition %q at the anchor", ErrNotFound, x[0], x[1])
			}
		}
		sa := queries.ViewSetting{Simulator: a, Condition: ca, N: s.n, K: s.k}
		sb := queries.ViewSetting{Simulator: b, Condition: cb, N: s.n, K: s.k}
		rows, total, dis, err := queries.ViewComparePoints(ctx, s.db, sa, sb, pg)
		if err != nil {
			return compareData{}, err
		}
		d := compareData{Study: study, A: a + " " + ca, B: b + " " + cb, Total: total, Disagree: dis, N: s.n, K: s.k, Judge: s.opts.Judge,
			HrefA: l.link(page(KindUBSim, "sim", a, "cond", ca)), HrefB: l.link(page(KindUBSim, "sim", b, "cond", cb))}
		d.frame = s.frame(l, d.A+" against "+d.B)
		for _, r := range rows {
			d.Points = append(d.Points, pointPairRow{r, l.link(page(KindMoment, "point", r.PointID, "n", strconv.Itoa(s.n), "k", strconv.Itoa(s.k)))})
		}
		d.Pager = s.pager(p, l, n, len(rows), total)
		return d, nil
	case "fid":
		for _, x := range []string{a, b} {
			if _, ok := s.userSims[x]; !ok {
				return compareData{}, fmt.Errorf("%w: no episodes of user simulator %q", ErrNotFound, x)
			}
		}
		rows, total, dis, err := queries.ViewCompareTasks(ctx, s.db, a, b, pg)
		if err != nil {
			return compareData{}, err
		}
		d := compareData{Study: study, A: a, B: b, Total: total, Disagree: dis, Grader: s.opts.Grader,
			HrefA: l.link(page(KindFidSim, "sim", a)), HrefB: l.link(page(KindFidSim, "sim", b))}
		d.frame = s.frame(l, a+" against "+b)
		for _, r := range rows {
			d.Tasks = append(d.Tasks, taskPairRow{r, l.link(page(KindEpisode, "id", r.A.First)), l.link(page(KindEpisode, "id", r.B.First))})
		}
		d.Pager = s.pager(p, l, n, len(rows), total)
		return d, nil
	default:
		return compareData{}, fmt.Errorf("%w: study %q: want ub or fid", ErrBadRequest, study)
	}
}
