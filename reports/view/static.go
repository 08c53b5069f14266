package view

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"

	"github.com/ub-bench/ub/queries"
)

// SiteSummary is what WriteSite wrote: the pages and the bytes of every
// file (pages, style sheet, figures).
type SiteSummary struct {
	Pages, Files int
	Bytes        int64
}

// MaxPages bounds the pages of a static site: a site that would need more
// is an error, never a partial site.
const MaxPages = 100000

// WriteSite writes the site as static HTML into dir (which must exist and
// be empty or hold an earlier site): index.html and every page a page
// links to, each list cut to Options.Examples rows; view.css; the report's
// figures in fig/. Every link is relative and resolves inside dir; no page
// has a script. The same workspace gives the same bytes.
//
// record (nil: none) is called with the names of files, relative to dir
// with slashes, before any of them is written: each page's as soon as a
// page links to it (so once per level of the walk, not per file), the
// style sheet and figures together. A caller that lists what it wrote
// (ub publish's marker) so knows every file of an interrupted run.
func (s *Site) WriteSite(ctx context.Context, dir string, record func(rels []string) error) (SiteSummary, error) {
	var sum SiteSummary
	l := &staticLinker{seen: map[string]Page{}, evidence: map[string]*queries.EpisodeEvidence{}, moments: map[queries.PointSetting]*momentAhead{}}
	recorded := map[string]bool{}
	var pending []string // names known, not yet recorded
	own := func(name string) error {
		if recorded[name] {
			return nil
		}
		rels := pending
		if !slices.Contains(rels, name) {
			rels = append(rels, name)
		}
		pending = nil
		for _, n := range rels {
			recorded[n] = true
		}
		if record != nil {
			return record(rels)
		}
		return nil
	}
	write := func(name string, b []byte) error {
		if err := own(filepath.ToSlash(name)); err != nil {
			return err
		}
		sum.Files++
		sum.Bytes += int64(len(b))
		return os.WriteFile(filepath.Join(dir, name), b, 0o644)
	}
	queue := []Page{{Kind: KindIndex}}
	done := map[string]bool{FileName(queue[0]): true}
	for len(queue) > 0 {
		if err := ctx.Err(); err != nil {
			return sum, err
		}
		p := queue[0]
		queue = queue[1:]
		if err := s.readAhead(ctx, l, p, queue); err != nil {
			return sum, fmt.Errorf("site: %s: %w", FileName(p), err)
		}
		var buf bytes.Buffer
		if err := s.render(ctx, &buf, p, l); err != nil {
			return sum, fmt.Errorf("site: %s: %w", FileName(p), err)
		}
		switch p.Kind {
		case KindEpisode:
			delete(l.evidence, p.Q.Get("id"))
		case KindMoment:
			if st, ok := s.momentSetting(p); ok {
				delete(l.moments, st)
			}
		}
		if err := write(FileName(p), buf.Bytes()); err != nil {
			return sum, err
		}
		sum.Pages++
		// The pages this one linked to, in name order: the walk, and so
		// any error, is the same on every run.
		var next []string
		for f := range l.seen {
			if !done[f] {
				next = append(next, f)
			}
		}
		sort.Strings(next)
		for _, f := range next {
			done[f] = true
			queue = append(queue, l.seen[f])
			pending = append(pending, f)
		}
		if len(done) > MaxPages {
			return sum, fmt.Errorf("site: more than %d pages", MaxPages)
		}
	}
	css, err := assetFS.ReadFile("assets/view.css")
	if err != nil {
		return sum, err
	}
	pending = append(pending, "view.css")
	for _, f := range s.figures {
		pending = append(pending, "fig/"+f)
	}
	if err := write("view.css", css); err != nil {
		return sum, err
	}
	if len(s.figures) > 0 {
		if err := os.MkdirAll(filepath.Join(dir, "fig"), 0o755); err != nil {
			return sum, err
		}
	}
	for _, f := range s.figures {
		b, err := os.ReadFile(filepath.Join(s.opts.ReportDir, f))
		if err != nil {
			return sum, err
		}
		if err := write(filepath.Join("fig", f), b); err != nil {
			return sum, err
		}
	}
	return sum, nil
}

// readAheadPages is how many pages WriteSite reads ahead at once.
const readAheadPages = 256

// aheadOf returns key of p (the page about to be written) and the keys of
// the next pages of queue of its kind that take it, at most
// readAheadPages in all, each once, none that read says is read
// already; none when p takes no key or its own is read.
func aheadOf[K comparable](p Page, queue []Page, key func(Page) (K, bool), read func(K) bool) []K {
	k, ok := key(p)
	if !ok || read(k) {
		return nil
	}
	keys := []K{k}
	for _, n := range queue {
		if len(keys) == readAheadPages {
			break
		}
		if n.Kind != p.Kind {
			continue
		}
		if nk, ok := key(n); ok && !read(nk) && !slices.Contains(keys, nk) {
			keys = append(keys, nk)
		}
	}
	return keys
}

// readAhead reads ahead for p, an episode or a moment page, and for the
// next pages of its kind in the queue: the evidence of episodes
// (EpisodeEvidenceOf), what moment pages show (readMoments).
func (s *Site) readAhead(ctx context.Context, l *staticLinker, p Page, queue []Page) error {
	switch p.Kind {
	case KindEpisode:
		ids := aheadOf(p, queue, func(p Page) (string, bool) { return p.Q.Get("id"), true },
			func(id string) bool { return l.evidence[id] != nil })
		if len(ids) == 0 {
			return nil
		}
		ev, err := queries.EpisodeEvidenceOf(ctx, s.db, s.opts.Grader, ids)
		if err != nil {
			return err
		}
		maps.Copy(l.evidence, ev)
	case KindMoment:
		settings := aheadOf(p, queue, s.momentSetting,
			func(st queries.PointSetting) bool { _, ok := l.moments[st]; return ok })
		if len(settings) == 0 {
			return nil
		}
		return s.readMoments(ctx, l, settings)
	}
	return nil
}

// momentSetting is the point and setting of a moment page; false when its
// N or K does not parse (the page says so itself).
func (s *Site) momentSetting(p Page) (queries.PointSetting, bool) {
	n, err1 := strconv.Atoi(p.Q.Get("n"))
	k, err2 := strconv.Atoi(p.Q.Get("k"))
	return queries.PointSetting{Point: p.Q.Get("point"), N: n, K: k}, err1 == nil && err2 == nil && n >= 0 && k >= 0
}

// readMoments reads what the moment pages of settings show into l.moments,
// in five queries for them all: their points' contexts (PointContextsOf)
// and labels (ViewPointLabelsOf), the generations ViewWarm scored of those
// at the anchor (ViewAnchorGenerationsOf), and the generations of the
// others (ViewPointGenerationsOf), with those at the anchor of points it
// did not score. A page whose point PointContext would refuse is left
// out: it reads alone, and says why.
func (s *Site) readMoments(ctx context.Context, l *staticLinker, settings []queries.PointSetting) error {
	var points, anchored []string
	for _, st := range settings {
		if !slices.Contains(points, st.Point) {
			points = append(points, st.Point)
		}
		if st.N == s.n && st.K == s.k {
			anchored = append(anchored, st.Point)
		}
	}
	data, err := queries.PointContextsOf(ctx, s.db, points)
	if err != nil {
		return err
	}
	labels, err := queries.ViewPointLabelsOf(ctx, s.db, points)
	if err != nil {
		return err
	}
	atAnchor := map[string][]queries.ViewGeneration{}
	if len(anchored) > 0 {
		if atAnchor, err = queries.ViewAnchorGenerationsOf(ctx, s.db, anchored); err != nil {
			return err
		}
	}
	var elsewhere []queries.PointSetting
	for _, st := range settings {
		if data[st.Point] == nil {
			continue
		}
		if st.N != s.n || st.K != s.k || len(atAnchor[st.Point]) == 0 {
			elsewhere = append(elsewhere, st)
		}
	}
	gens := map[queries.PointSetting][]queries.ViewGeneration{}
	if len(elsewhere) > 0 {
		if gens, err = queries.ViewPointGenerationsOf(ctx, s.db, s.opts.Judge, elsewhere); err != nil {
			return err
		}
	}
	for _, st := range settings {
		d := data[st.Point]
		if d == nil {
			continue
		}
		m := &momentAhead{data: d, label: labels[st.Point], gens: gens[st]}
		if st.N == s.n && st.K == s.k && len(atAnchor[st.Point]) > 0 {
			m.gens = atAnchor[st.Point]
		}
		l.moments[st] = m
	}
	return nil
}
