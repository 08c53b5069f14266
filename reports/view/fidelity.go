package view

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ub-bench/ub/queries"
)

// sameTaskLimit bounds the episodes of one task an episode's page lists.
const sameTaskLimit = 50

type domainRow struct {
	queries.ViewDomain
	Href string
}

type episodeRow struct {
	queries.ViewEpisodeRow
	Href string
}

type fidSimData struct {
	frame
	Sim, Domain, Grader string // Sim "": every user simulator (a family's or probe's row)
	Family, Probe       string
	Domains             []domainRow
	Rows                []episodeRow
	Pager               pager
	Filter              []option
	AllHref             string
}

// fidSimData is a user simulator's episodes per domain, and one page of
// its episodes (in one domain, when the page names one), filtered by f or
// success.
func (s *Site) fidSimData(ctx context.Context, p Page, l linker) (fidSimData, error) {
	us, dom, filter := p.Q.Get("sim"), p.Q.Get("domain"), p.Q.Get("filter")
	family, probe := p.Q.Get("family"), p.Q.Get("probe")
	doms, ok := s.userSims[us]
	every := us == "" && (family != "" || probe != "") // a family's or probe's row over every simulator
	if every {
		ok = true
		for _, d := range s.userSims {
			doms = append(doms, d...)
		}
	}
	if !ok {
		return fidSimData{}, fmt.Errorf("%w: no episodes of user simulator %q", ErrNotFound, us)
	}
	if dom != "" && !slices.Contains(doms, dom) {
		return fidSimData{}, fmt.Errorf("%w: user simulator %q has no episode in domain %q", ErrNotFound, us, dom)
	}
	if filter != "" && !slices.Contains(queries.ViewEpisodeFilters, filter) {
		return fidSimData{}, fmt.Errorf("%w: filter %q", ErrBadRequest, filter)
	}
	pg, n, err := s.pageOf(p, l)
	if err != nil {
		return fidSimData{}, err
	}
	var ds []queries.ViewDomain
	if !every {
		if ds, err = queries.ViewDomains(ctx, s.db, us); err != nil {
			return fidSimData{}, err
		}
	}
	eps, total, err := queries.ViewEpisodes(ctx, s.db, us, queries.ViewEpisodeFilter{Domain: dom, Filter: filter, Family: family, Probe: probe}, pg)
	if err != nil {
		return fidSimData{}, err
	}
	title := us
	if every {
		title = "Every user simulator"
	}
	if dom != "" {
		title += " in " + dom
	}
	if family != "" {
		title += ", failing " + family
	}
	if probe != "" {
		title += ", " + probe + " fired"
	}
	all := page(KindFidSim, "sim", us)
	if every { // "every domain" keeps the family or probe
		all = page(KindFidSim, "family", family, "probe", probe)
	}
	d := fidSimData{frame: s.frame(l, title), Sim: us, Domain: dom, Family: family, Probe: probe, Grader: s.opts.Grader,
		Filter: options(queries.ViewEpisodeFilters, filter)}
	if dom != "" { // the static site links only what the page shows
		d.AllHref = l.link(all)
	}
	if !every && (dom != "" || family != "" || probe != "") {
		d.Crumbs = append(d.Crumbs, crumb{us, l.link(all)})
	}
	for _, x := range ds {
		d.Domains = append(d.Domains, domainRow{x, l.link(page(KindFidSim, "sim", us, "domain", x.Domain))})
	}
	for _, e := range eps {
		d.Rows = append(d.Rows, episodeRow{e, l.link(page(KindEpisode, "id", e.SimulationID))})
	}
	d.Pager = s.pager(p, l, n, len(eps), total)
	return d, nil
}

type verdictRow struct {
	queries.ViewVerdict
	Turn string // the anchor of the turn it names ("" none)
}

type probeRow struct {
	Probe, Evidence, Turn string
	TurnIdx               int64
}

type messageRow struct {
	queries.EpisodeMessage
	Anchor   string
	Failed   []string // criteria that failed at this turn
	Probes   []string
	Segments []segment // the content, with each probe's evidence marked
}

// segment is a part of a message's text; Mark is set on a probe's evidence.
type segment struct {
	Text string
	Mark bool
}

// markEvidence marks in text where each probe's evidence quotes it. A
// probe's evidence is a snippet of the normalized message (lower-cased,
// white space collapsed), cut with "..." (or "…") where it was truncated
// (evidencePieces): each of its pieces of 4 characters or more is found in
// the text ignoring case, a space of the piece matching any run of white
// space, first occurrence; a piece the text does not hold, or that
// overlaps an earlier mark, is left unmarked.
func markEvidence(text string, evidence []string) []segment {
	type span struct{ lo, hi int }
	var spans []span
	for _, e := range evidence {
		for _, piece := range evidencePieces(e) {
			if len([]rune(piece)) < 4 {
				continue
			}
			loc := pieceRE(piece).FindStringIndex(text)
			if loc == nil {
				continue
			}
			sp := span{loc[0], loc[1]}
			overlaps := false
			for _, o := range spans {
				if sp.lo < o.hi && o.lo < sp.hi {
					overlaps = true
				}
			}
			if !overlaps {
				spans = append(spans, sp)
			}
		}
	}
	slices.SortFunc(spans, func(a, b span) int { return a.lo - b.lo })
	var out []segment
	at := 0
	for _, sp := range spans {
		if sp.lo > at {
			out = append(out, segment{Text: text[at:sp.lo]})
		}
		out = append(out, segment{Text: text[sp.lo:sp.hi], Mark: true})
		at = sp.hi
	}
	if at < len(text) || len(out) == 0 {
		out = append(out, segment{Text: text[at:]})
	}
	return out
}

// evidencePieces splits a probe's evidence at its cut marks: a run of
// three dots or more (an ellipsis counts as three) is a cut of three dots,
// and the dots beyond them belong to the text: to the piece after a cut
// at the start (the snippet began after a truncation), to the piece
// before any other (the quoted text ended in a dot where it was
// truncated, "id is x." + "..."). Pieces are trimmed of white space.
func evidencePieces(e string) []string {
	e = strings.ReplaceAll(e, "…", "...")
	var out []string
	piece := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	start := 0
	for i := 0; i < len(e); {
		if e[i] != '.' {
			i++
			continue
		}
		j := i
		for j < len(e) && e[j] == '.' {
			j++
		}
		if j-i < 3 {
			i = j
			continue
		}
		if i == 0 {
			start = 3 // the cut is the first three dots; the rest is text
		} else {
			piece(e[start : j-3])
			start = j
		}
		i = j
	}
	piece(e[start:])
	return out
}

// pieceRE matches a piece of evidence in a message: its characters ignoring
// case, each run of white space in it any run of white space (Normalize
// collapsed them).
func pieceRE(piece string) *regexp.Regexp {
	words := strings.Fields(piece)
	for i, w := range words {
		words[i] = regexp.QuoteMeta(w)
	}
	return regexp.MustCompile(`(?i)` + strings.Join(words, `\s+`))
}

type taskRow struct {
	queries.ViewTaskEpisode
	Href string
	This bool
}

type episodeData struct {
	frame
	Episode  queries.EpisodeView
	Reward   queries.ViewReward
	Grader   string
	Verdicts []verdictRow
	Probes   []probeRow
	Messages []messageRow
	Checks   []queries.ViewCheck
	Task     []taskRow
	Reviews  []queries.ViewDecision
	TaskCut  int // the episodes of the task listed when there are more (0: all)
	SimHref  string
}

// turnAnchor is the id of a message on the episode's page.
func turnAnchor(turn int64) string { return "turn-" + strconv.FormatInt(turn, 10) }

// episodeData is one episode: the transcript with the failing turns and
// probe findings marked, every verdict with its reason linked to its
// turn, the reward and its checks, and the same task under every other
// simulator.
// sameTask is ViewSameTask, read once per task for the static site.
func (s *Site) sameTask(ctx context.Context, l linker, domain, taskID string, limit int) ([]queries.ViewTaskEpisode, error) {
	sl, ok := l.(*staticLinker)
	if !ok {
		return queries.ViewSameTask(ctx, s.db, domain, taskID, limit)
	}
	k := [2]string{domain, taskID}
	if same, ok := sl.sameTask[k]; ok {
		return same, nil
	}
	same, err := queries.ViewSameTask(ctx, s.db, domain, taskID, limit)
	if err == nil {
		if sl.sameTask == nil {
			sl.sameTask = map[[2]string][]queries.ViewTaskEpisode{}
		}
		sl.sameTask[k] = same
	}
	return same, err
}

func (s *Site) episodeData(ctx context.Context, p Page, l linker) (episodeData, error) {
	id := p.Q.Get("id")
	var ev *queries.EpisodeEvidence // read ahead by WriteSite (nil: read here)
	if sl, ok := l.(*staticLinker); ok {
		ev = sl.evidence[id]
	}
	var ep queries.EpisodeView
	var err error
	if ev != nil {
		ep = ev.View
	} else if ep, err = queries.ReviewEpisode(ctx, s.db, id); errors.Is(err, queries.ErrNoEpisode) {
		return episodeData{}, fmt.Errorf("%w: %v", ErrNotFound, err)
	} else if err != nil {
		return episodeData{}, err
	}
	d := episodeData{Episode: ep, Grader: s.opts.Grader}
	d.SimHref = l.link(page(KindFidSim, "sim", ep.UserSim, "domain", ep.Domain))
	d.frame = s.frame(l, "episode "+id, crumb{ep.UserSim + " in " + ep.Domain, d.SimHref})
	var vs []queries.ViewVerdict
	if ev != nil {
		d.Reward, vs = ev.Reward, ev.Verdicts
	} else {
		if d.Reward, err = queries.ViewEpisodeReward(ctx, s.db, id); err != nil {
			return d, err
		}
		if vs, err = queries.ViewVerdicts(ctx, s.db, s.opts.Grader, id); err != nil {
			return d, err
		}
	}
	failedAt := map[int64][]string{}
	for _, v := range vs {
		r := verdictRow{ViewVerdict: v}
		if v.TurnIdx.Valid {
			r.Turn = turnAnchor(v.TurnIdx.Int64)
			if v.Verdict == "fail" {
				failedAt[v.TurnIdx.Int64] = append(failedAt[v.TurnIdx.Int64], v.CriterionID)
			}
		}
		d.Verdicts = append(d.Verdicts, r)
	}
	probesAt, evidenceAt := map[int64][]string{}, map[int64][]string{}
	for _, pr := range ep.Probes {
		r := probeRow{Probe: pr.Probe, Evidence: pr.Evidence}
		if pr.TurnIdx.Valid {
			r.Turn, r.TurnIdx = turnAnchor(pr.TurnIdx.Int64), pr.TurnIdx.Int64
			probesAt[pr.TurnIdx.Int64] = append(probesAt[pr.TurnIdx.Int64], pr.Probe)
			evidenceAt[pr.TurnIdx.Int64] = append(evidenceAt[pr.TurnIdx.Int64], pr.Evidence)
		}
		d.Probes = append(d.Probes, r)
	}
	seen := map[int]bool{}
	for _, m := range ep.Messages {
		r := messageRow{EpisodeMessage: m, Segments: markEvidence(m.Content, evidenceAt[int64(m.TurnIdx)])}
		if !seen[m.TurnIdx] { // the first message of a turn carries its anchor
			seen[m.TurnIdx] = true
			r.Anchor = turnAnchor(int64(m.TurnIdx))
			r.Failed, r.Probes = failedAt[int64(m.TurnIdx)], probesAt[int64(m.TurnIdx)]
		}
		d.Messages = append(d.Messages, r)
	}
	if ev != nil {
		d.Checks, d.Reviews = ev.Checks, ev.Reviews
	} else {
		if d.Checks, err = queries.ViewChecks(ctx, s.db, id); err != nil {
			return d, err
		}
		if d.Reviews, err = queries.ViewReviewDecisions(ctx, s.db, id); err != nil {
			return d, err
		}
	}
	limit := sameTaskLimit
	if l.static() {
		limit = s.opts.Examples
	}
	same, err := s.sameTask(ctx, l, ep.Domain, ep.TaskID, limit+1)
	if err != nil {
		return d, err
	}
	if len(same) > limit {
		same, d.TaskCut = same[:limit], limit
	}
	for _, t := range same {
		r := taskRow{ViewTaskEpisode: t, This: t.SimulationID == id}
		if !r.This {
			r.Href = l.link(page(KindEpisode, "id", t.SimulationID))
		}
		d.Task = append(d.Task, r)
	}
	return d, nil
}
