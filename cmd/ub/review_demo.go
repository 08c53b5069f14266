package main

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/ub-bench/ub/analysis"
	"github.com/ub-bench/ub/analysis/probes"
	"github.com/ub-bench/ub/judge/review"
	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/reports"
)

// runReviewDemo is the demo's review step: a batch of up to six episodes
// for two reviewers, decisions recorded by two scripted reviewers (a fixed
// rule over the probes: they exercise the workbench and the statistics,
// they are no human judgement), the disagreements adjudicated, then the
// statistics printed and the review figures written into dir/review. With
// no episode in the workspace (no tau2 results ingested) it says so and
// does nothing.
func runReviewDemo(ctx context.Context, sio *streams, ws *queries.Workspace, dir string) error {
	fmt.Fprintf(sio.out, "\n== review\n")

	cands, err := queries.ReviewCandidates(ctx, ws.Conn())
	if err != nil {
		return err
	}
	if len(cands) == 0 {
		fmt.Fprintf(sio.out, "review: skipped: the demo workspace has no tau2 episodes\n")
		return nil
	}
	n := min(6, len(cands))
	b, _, err := review.CreateBatch(ctx, ws, review.BatchOptions{Name: "demo", N: n, Seed: 1, Stratify: []string{"domain"}, Reviewers: []string{"demo-a", "demo-b"}})
	if err != nil {
		return reviewError(err)
	}
	ids, err := queries.BatchEpisodes(ctx, ws.Conn(), b.Batch)
	if err != nil {
		return err
	}
	at := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	for i, id := range ids {
		ep, err := queries.ReviewEpisode(ctx, ws.Conn(), id)
		if err != nil {
			return err
		}
		a := demoDecision(ep, "demo-a", b.Batch, at, false)
		bb := demoDecision(ep, "demo-b", b.Batch, at, i%3 == 2) // demo-b sees it otherwise on every third episode
		for _, d := range []queries.Decision{a, bb} {
			if _, err := queries.SaveDecision(ctx, ws, d); err != nil {
				return err
			}
		}
		if (a.Outcome == queries.OutcomeError) != (bb.Outcome == queries.OutcomeError) || demoCritical(a) != demoCritical(bb) {
			adj := a
			adj.Reviewer, adj.Kind = "demo-adjudicator", queries.KindAdjudicator
			if _, err := queries.SaveDecision(ctx, ws, adj); err != nil {
				return err
			}
		}
	}
	ds, err := queries.ReviewDecisions(ctx, ws.Conn())
	if err != nil {
		return err
	}
	st, err := analysis.ReviewStatistics(review.Items(ds), analysis.ReviewOptions{})
	if err != nil {
		return err
	}
	out := filepath.Join(dir, "review")
	files, err := reports.WriteReview(out, st)
	if err != nil {
		return err
	}
	fmt.Fprintf(sio.out, "batch %s: %d episodes, 2 scripted reviewers (a rule over the probes, not people)\n", b.Batch, len(ids))
	fmt.Fprintf(sio.out, "simulator error share %s, critical %s (wilson 95%%)\n",
		shareText(st.Overall.Error), shareText(st.Overall.Critical))
	fmt.Fprintf(sio.out, "review report: %s (%d files); the page: ub --db %s review serve --batch %s\n",
		filepath.ToSlash(filepath.Join(out, "report.md")), len(files), filepath.ToSlash(ws.Path), b.Batch)
	return nil
}

func shareText(p analysis.Proportion) string {
	return fmt.Sprintf("%d/%d = %.3f [%.3f, %.3f]", p.K, p.N, p.P, p.Lo, p.Hi)
}

func demoCritical(d queries.Decision) bool {
	for _, e := range d.Errors {
		if e.Severity != "minor" {
			return true
		}
	}
	return false
}

// demoDecision: an error per probe finding at its turn (critical when the
// agent failed), else no simulator error; flip turns the answer around.
func demoDecision(ep queries.EpisodeView, reviewer, batch string, at time.Time, flip bool) queries.Decision {
	d := queries.Decision{SimulationID: ep.SimulationID, Reviewer: reviewer, Kind: queries.KindHuman, Batch: batch, Source: "demo", DecidedAt: at}
	sev := "minor"
	if ep.Reward.Valid && ep.Reward.Float64 < 1 {
		sev = "critical_hindered"
	}
	for _, p := range ep.Probes {
		pr, _ := probes.ByName(p.Probe)
		d.Errors = append(d.Errors, queries.ReviewError{TurnIdx: p.TurnIdx, Code: pr.ReviewCode, Severity: sev,
			Note: "probe " + p.Probe + ": " + strings.TrimSpace(p.Evidence)})
	}
	if flip {
		if len(d.Errors) > 0 {
			d.Errors = nil
		} else {
			turn := sql.NullInt64{}
			for _, m := range ep.Messages {
				if m.Role == "user" {
					turn = sql.NullInt64{Int64: int64(m.TurnIdx), Valid: true}
					break
				}
			}
			d.Errors = []queries.ReviewError{{TurnIdx: turn, Code: "other", Severity: "minor", Note: "scripted disagreement"}}
		}
	}
	d.Outcome = queries.OutcomeNoError
	if len(d.Errors) > 0 {
		d.Outcome = queries.OutcomeError
	}
	return d
}
