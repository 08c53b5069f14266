package view

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/ub-bench/ub/queries"
)

// moves are the judge's moves a filter may name.
var moves = []string{"approve", "critical", "directive", "inquiry", "other", "unparseable"}

// setting reads a leaderboard row's simulator and condition; the page
// names one the anchor has.
func (s *Site) setting(p Page) (queries.ViewSetting, error) {
	st := queries.ViewSetting{Simulator: p.Q.Get("sim"), Condition: p.Q.Get("cond"), N: s.n, K: s.k}
	if !s.ubSims[st.Simulator][st.Condition] {
		return st, fmt.Errorf("%w: no generations of simulator %q under condition %q at N = %d, K = %d", ErrNotFound, st.Simulator, st.Condition, s.n, s.k)
	}
	return st, nil
}

type devRow struct {
	Developer, Href                  string
	Moments, Generated, Hits, Failed int
}

type ubSimData struct {
	frame
	Setting queries.ViewSetting
	Judge   string
	Rows    []devRow
	Pager   pager
}

// ubSimData is a leaderboard row's developers with their accuracies.
func (s *Site) ubSimData(ctx context.Context, p Page, l linker) (ubSimData, error) {
	st, err := s.setting(p)
	if err != nil {
		return ubSimData{}, err
	}
	pg, n, err := s.pageOf(p, l)
	if err != nil {
		return ubSimData{}, err
	}
	devs, total, err := queries.ViewDevelopers(ctx, s.db, st, pg)
	if err != nil {
		return ubSimData{}, err
	}
	d := ubSimData{frame: s.frame(l, st.Simulator+" "+st.Condition), Setting: st, Judge: s.opts.Judge}
	for _, dv := range devs {
		d.Rows = append(d.Rows, devRow{Developer: dv.Developer, Moments: dv.Moments, Generated: dv.Generated, Hits: dv.Hits, Failed: dv.Failed,
			Href: l.link(page(KindUBDev, "sim", st.Simulator, "cond", st.Condition, "dev", dv.Developer))})
	}
	d.Pager = s.pager(p, l, n, len(devs), total)
	return d, nil
}

type momentRow struct {
	PointID, Href      string
	Trial              int
	RealMove, RealText string
	Generated, Text    string
	Failed, Hit        bool
}

type option struct {
	Value    string
	Selected bool
	Label    string // what the select shows ("": the value)
}

type ubDevData struct {
	frame
	Setting            queries.ViewSetting
	Developer, Judge   string
	Rows               []momentRow
	Pager              pager
	Real, Gen, Outcome []option
	Lift               []option // the profile lift filter; nil when the simulator lacks either condition
	SimHref            string
}

func options(vals []string, chosen string) []option {
	out := []option{{Value: "", Selected: chosen == ""}}
	for _, v := range vals {
		out = append(out, option{Value: v, Selected: v == chosen})
	}
	return out
}

// ubDevData is one developer's moments under a leaderboard row's setting,
// filtered by real move, generated move and outcome.
func (s *Site) ubDevData(ctx context.Context, p Page, l linker) (ubDevData, error) {
	st, err := s.setting(p)
	if err != nil {
		return ubDevData{}, err
	}
	dev := p.Q.Get("dev")
	f := queries.ViewMomentFilter{Real: p.Q.Get("real"), Generated: p.Q.Get("gen"), Outcome: p.Q.Get("outcome"), Lift: p.Q.Get("lift")}
	if (f.Real != "" && !slices.Contains(moves, f.Real)) || (f.Generated != "" && !slices.Contains(moves, f.Generated)) ||
		(f.Outcome != "" && f.Outcome != "hit" && f.Outcome != "miss") ||
		(f.Lift != "" && f.Lift != queries.LiftProfile && f.Lift != queries.LiftNoProfile) {
		return ubDevData{}, fmt.Errorf("%w: unknown filter", ErrBadRequest)
	}
	hasLift := s.ubSims[st.Simulator][queries.CondProfile] && s.ubSims[st.Simulator][queries.CondNoProfile]
	pg, n, err := s.pageOf(p, l)
	if err != nil {
		return ubDevData{}, err
	}
	ms, total, err := queries.ViewMoments(ctx, s.db, dev, st, f, pg)
	if err != nil {
		return ubDevData{}, err
	}
	if total == 0 && f == (queries.ViewMomentFilter{}) {
		return ubDevData{}, fmt.Errorf("%w: developer %q has no scorable moment", ErrNotFound, dev)
	}
	simHref := l.link(page(KindUBSim, "sim", st.Simulator, "cond", st.Condition))
	d := ubDevData{frame: s.frame(l, dev+" under "+st.Simulator+" "+st.Condition, crumb{st.Simulator + " " + st.Condition, simHref}),
		Setting: st, Developer: dev, Judge: s.opts.Judge, SimHref: simHref,
		Real: options(moves, f.Real), Gen: options(moves, f.Generated), Outcome: options([]string{"hit", "miss"}, f.Outcome)}
	if hasLift {
		d.Lift = options([]string{queries.LiftProfile, queries.LiftNoProfile}, f.Lift)
		d.Lift[1].Label = "hit only with the profile"
		d.Lift[2].Label = "hit only without the profile"
	}
	for _, m := range ms {
		d.Rows = append(d.Rows, momentRow{PointID: m.PointID, Trial: m.Trial, RealMove: m.RealMove, RealText: clip(m.RealText),
			Generated: m.Generated, Text: clip(m.Text), Failed: m.Failed, Hit: m.Hit,
			Href: l.link(page(KindMoment, "point", m.PointID, "n", strconv.Itoa(st.N), "k", strconv.Itoa(st.K)))})
	}
	d.Pager = s.pager(p, l, n, len(ms), total)
	return d, nil
}

// clip shortens a text for a list (the moment's page shows it whole).
func clip(t string) string {
	r := []rune(t)
	if len(r) <= 240 {
		return t
	}
	return string(r[:240]) + " …"
}

type shownTurn struct {
	Idx          int
	Role, Text   string
	Command      bool
	OmittedAfter int
}

type genCell struct {
	Condition, Text, Error, Move string
	Confidence                   string
	Failed, Hit, Labelled        bool
	Trial                        int
	Href                         string
}

// genRow is one simulator's generations, one cell per condition of the
// moment (in the order of momentData.Conditions), each with its trials.
type genRow struct {
	Simulator string
	Cells     [][]genCell
}

type momentData struct {
	frame
	Point                 queries.PointRow
	Repo                  string
	N, K                  int
	Judge                 string
	Real                  string
	Label                 queries.ViewLabel
	Labelled              bool
	Persona, PersonaError string
	ProfileUsed           bool
	History               []string
	Live                  []shownTurn
	Earlier               int // turns of the session before the window
	Conditions            []string
	Rows                  []genRow
}

// momentData is one moment: the conversation as the simulators saw it at
// live window N and history K, the real message with its label, and every
// simulator's generation under every condition.
func (s *Site) momentData(ctx context.Context, p Page, l linker) (momentData, error) {
	id := p.Q.Get("point")
	n, err1 := strconv.Atoi(p.Q.Get("n"))
	k, err2 := strconv.Atoi(p.Q.Get("k"))
	if err1 != nil || err2 != nil || n < 0 || k < 0 {
		return momentData{}, fmt.Errorf("%w: n and k must be whole numbers", ErrBadRequest)
	}
	var ahead *momentAhead // read ahead by WriteSite
	var err error
	if sl, ok := l.(*staticLinker); ok {
		ahead = sl.moments[queries.PointSetting{Point: id, N: n, K: k}]
	}
	if ahead == nil {
		if ahead, err = s.readMoment(ctx, id, n, k); err != nil {
			return momentData{}, err
		}
	}
	pd := *ahead.data
	d := momentData{frame: s.frame(l, "moment "+id), Point: pd.Point, Repo: pd.Repo, N: n, K: k, Judge: s.opts.Judge, Real: pd.Real,
		Label: ahead.label.Label, Labelled: ahead.label.Labelled}
	gens := ahead.gens
	conds := map[string]bool{}
	for _, g := range gens {
		conds[g.Condition] = true
	}
	d.Conditions = sortedKeys(conds)
	d.ProfileUsed = conds[queries.CondProfile]
	cond := queries.CondNoProfile
	if d.ProfileUsed {
		cond = queries.CondProfile
	}
	in, err := s.inputs.Prompt(ctx, pd, cond, k)
	if err != nil {
		if !d.ProfileUsed {
			return d, err
		}
		d.PersonaError = err.Error()
		if in, err = s.inputs.Prompt(ctx, pd, queries.CondNoProfile, k); err != nil {
			return d, err
		}
	}
	d.Persona = in.Persona
	for i := len(in.History) - 1; i >= 0; i-- { // oldest first, as the prompt shows them
		d.History = append(d.History, in.History[i])
	}
	d.Live, d.Earlier = window(pd.Before, n)
	byRow := map[string]int{}
	for _, g := range gens {
		i, ok := byRow[g.Simulator]
		if !ok {
			i = len(d.Rows)
			byRow[g.Simulator] = i
			d.Rows = append(d.Rows, genRow{Simulator: g.Simulator, Cells: make([][]genCell, len(d.Conditions))})
		}
		c := genCell{Condition: g.Condition, Text: g.Text, Error: g.Error, Move: g.Move, Failed: g.Failed, Trial: g.Trial,
			Labelled: g.Move != "", Hit: !g.Failed && d.Labelled && g.Move == d.Label.Move}
		if g.Confidence.Valid {
			c.Confidence = fmtNum(g.Confidence.Float64)
		}
		if n == s.n && k == s.k && s.ubSims[g.Simulator][g.Condition] {
			c.Href = l.link(page(KindUBDev, "sim", g.Simulator, "cond", g.Condition, "dev", pd.Point.Developer))
		}
		j := slices.Index(d.Conditions, g.Condition)
		d.Rows[i].Cells[j] = append(d.Rows[i].Cells[j], c)
	}
	return d, nil
}

// readMoment reads what the moment page of a point at live window n and
// history k shows: the point's context and label, and its generations (at
// the anchor, those ViewWarm scored, or, for a point it did not score,
// ViewPointGenerations').
func (s *Site) readMoment(ctx context.Context, id string, n, k int) (*momentAhead, error) {
	pd, err := queries.PointContext(ctx, s.db, id)
	if errors.Is(err, queries.ErrNoPoint) {
		return nil, fmt.Errorf("%w: %v", ErrNotFound, err)
	}
	if err != nil {
		return nil, err
	}
	m := &momentAhead{data: &pd}
	if m.label.Label, m.label.Labelled, err = queries.ViewPointLabel(ctx, s.db, id); err != nil {
		return nil, err
	}
	if n == s.n && k == s.k {
		if m.gens, err = queries.ViewPointAnchor(ctx, s.db, pd.Point.Developer, id); err != nil {
			return nil, err
		}
	}
	if len(m.gens) == 0 {
		if m.gens, err = queries.ViewPointGenerations(ctx, s.db, s.opts.Judge, id, n, k); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// window is the turns a prompt with live window n shows (sim.Build): the
// last n turns before the moment, with the agent's latest turn pinned
// first when the last n miss it; earlier is the number of turns of the
// session not shown.
func window(turns []queries.TurnRow, n int) (shown []shownTurn, earlier int) {
	conv := func(t queries.TurnRow) shownTurn {
		return shownTurn{Idx: t.Idx, Role: t.Role, Text: t.Text, Command: t.IsCommand}
	}
	if n <= 0 {
		return nil, len(turns)
	}
	if n >= len(turns) {
		for _, t := range turns {
			shown = append(shown, conv(t))
		}
		return shown, 0
	}
	start := len(turns) - n
	latest := -1
	for i := len(turns) - 1; i >= 0; i-- {
		if turns[i].Role == "agent" {
			latest = i
			break
		}
	}
	if latest < 0 || latest >= start {
		for _, t := range turns[start:] {
			shown = append(shown, conv(t))
		}
		return shown, start
	}
	first := conv(turns[latest])
	first.OmittedAfter = len(turns) - (n - 1) - (latest + 1)
	shown = append(shown, first)
	for _, t := range turns[len(turns)-(n-1):] {
		shown = append(shown, conv(t))
	}
	return shown, len(turns) - n
}
