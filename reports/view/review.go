package view

import (
	"context"
	"net/url"
	"strings"

	"github.com/ub-bench/ub/analysis"
	"github.com/ub-bench/ub/queries"
)

type reviewedRow struct {
	queries.ViewReviewedEpisode
	Decisions []queries.ViewDecision
	Href      string // the episode's page ("" when the workspace does not hold it)
	// Workbench is the episode's path on the review workbench (ub review
	// serve, a server of its own whose token ub view cannot know: shown,
	// not linked), and Serve the command that starts it for the
	// episode's batch ("" when no batch assigns it).
	Workbench, Serve string
}

type reviewData struct {
	frame
	Domain string // "" every domain
	Rows   []reviewedRow
	Pager  pager
}

// reviewData is one page of the reviewed episodes of a domain (the error
// share table's row; "all" or none: every domain), each with every
// reviewer's standing decision and the adjudication, read-only.
func (s *Site) reviewData(ctx context.Context, p Page, l linker) (reviewData, error) {
	dom := p.Q.Get("domain")
	if dom == "all" {
		dom = ""
	}
	pg, n, err := s.pageOf(p, l)
	if err != nil {
		return reviewData{}, err
	}
	eps, total, err := queries.ViewReviewedEpisodes(ctx, s.db, dom, analysis.NotInWorkspace, pg)
	if err != nil {
		return reviewData{}, err
	}
	title := "Reviewed episodes"
	if dom != "" {
		title += " in " + dom
	}
	d := reviewData{frame: s.frame(l, title), Domain: dom}
	ids := make([]string, len(eps))
	for i, e := range eps {
		ids[i] = e.SimulationID
	}
	decisions, err := queries.ViewReviewDecisionsOf(ctx, s.db, ids)
	if err != nil {
		return d, err
	}
	for _, e := range eps {
		r := reviewedRow{ViewReviewedEpisode: e, Decisions: decisions[e.SimulationID]}
		if e.Domain != "" {
			r.Href = l.link(page(KindEpisode, "id", e.SimulationID))
		}
		if e.Batches != "" {
			r.Workbench = "/episode?id=" + url.QueryEscape(e.SimulationID)
			r.Serve = "ub review serve --batch " + shellWord(strings.Split(e.Batches, ", ")[0])
		}
		d.Rows = append(d.Rows, r)
	}
	d.Pager = s.pager(p, l, n, len(eps), total)
	return d, nil
}

// shellWord quotes a word for a POSIX shell when it holds anything but
// letters, digits and ._-/:@+= (a batch name is the user's).
func shellWord(w string) string {
	if w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-/:@+=") == "" {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}
