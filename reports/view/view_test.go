package view

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/csv"
	"errors"
	"fmt"
	"html/template"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ub-bench/ub"
	"github.com/ub-bench/ub/analysis/probes"
	"github.com/ub-bench/ub/judge/review/reviewtest"
	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/reports"
	"github.com/ub-bench/ub/sim"
	"github.com/ub-bench/ub/sim/synth"
)

// synthStudy is an in-memory workspace holding the synthetic UserBench
// study of seed 1 with three trials (a setting has three generations at a
// point).
func synthStudy(t *testing.T) *queries.Workspace {
	t.Helper()
	ctx := context.Background()
	ws, err := queries.Open(ctx, "", queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	if _, err := synth.Write(ctx, ws, synth.Options{Seed: 1, Trials: 3}); err != nil {
		t.Fatal(err)
	}
	return ws
}

// synthSite is synthStudy's workspace, its site as the judge synth
// scored it, and its frozen points.
func synthSite(t *testing.T) (*queries.Workspace, *Site, []queries.PointRow) {
	t.Helper()
	ctx := context.Background()
	ws := synthStudy(t)
	s, err := NewSite(ctx, ws.Conn(), Options{Judge: "synth"})
	if err != nil {
		t.Fatal(err)
	}
	points, err := queries.Points(ctx, ws.Conn())
	if err != nil {
		t.Fatal(err)
	}
	return ws, s, points
}

// TestDevelopersMatchTheLeaderboard: the developers page of each
// leaderboard row counts the hits and moments the report's leaderboard
// scores each developer on (reports.AnchorScores, computed from the
// study's aggregates, another path through the data), so the mean of its
// accuracies is the row's macro accuracy; and a page is a slice of it.
func TestDevelopersMatchTheLeaderboard(t *testing.T) {
	ctx := context.Background()
	ws := synthStudy(t)
	st, err := queries.LoadStudy(ctx, ws.Conn(), "synth")
	if err != nil {
		t.Fatal(err)
	}
	site, err := NewSite(ctx, ws.Conn(), Options{Judge: "synth"})
	if err != nil {
		t.Fatal(err)
	}
	n, k := queries.Anchor(st.Settings)
	rows := 0
	for sim, conds := range reports.AnchorSettings(st) {
		for _, cond := range conds {
			want := reports.AnchorScores(st, sim, cond)
			got, total, err := queries.ViewDevelopers(ctx, ws.Conn(), queries.ViewSetting{Simulator: sim, Condition: cond, N: n, K: k}, queries.ViewPage{Limit: 1000})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) || total != len(want) {
				t.Fatalf("%s %s: %d developers (total %d), want %d", sim, cond, len(got), total, len(want))
			}
			var mean, wantMean float64
			for i, d := range got {
				w := want[i]
				if d.Developer != w.Developer || d.Hits != w.Hits || d.Moments != w.N {
					t.Errorf("%s %s: %+v, want %+v", sim, cond, d, w)
				}
				mean += float64(d.Hits) / float64(d.Moments)
				wantMean += w.Accuracy
			}
			if math.Abs(mean-wantMean) > 1e-9 {
				t.Errorf("%s %s: mean accuracy %v, want %v", sim, cond, mean/float64(len(got)), wantMean/float64(len(want)))
			}
			slice, total, err := queries.ViewDevelopers(ctx, ws.Conn(), queries.ViewSetting{Simulator: sim, Condition: cond, N: n, K: k}, queries.ViewPage{Limit: 7, Offset: 14})
			if err != nil {
				t.Fatal(err)
			}
			if total != len(want) || len(slice) != min(7, len(want)-14) || (len(slice) > 0 && slice[0] != got[14]) {
				t.Errorf("%s %s: page 3 of 7 is %d rows from %v (total %d)", sim, cond, len(slice), slice, total)
			}
			// The page the viewer renders for the row lists them.
			var buf bytes.Buffer
			if err := site.render(ctx, &buf, page(KindUBSim, "sim", sim, "cond", cond), liveLinker{}); err != nil {
				t.Fatal(err)
			}
			if c := strings.Count(buf.String(), "<tr><td><a href=\"/ub/dev?"); c != min(PageSize, len(want)) {
				t.Errorf("%s %s: the page lists %d developers, want %d", sim, cond, c, min(PageSize, len(want)))
			}
			rows++
		}
	}
	if rows < 10 {
		t.Errorf("%d leaderboard rows checked, want the study's 16", rows)
	}
}

// TestMomentsFilter: a developer's moments under each filter are the rows
// that pass it, and the filters partition them (hit + miss = all; the real
// moves add up); trials are listed apart.
func TestMomentsFilter(t *testing.T) {
	ctx := context.Background()
	ws := synthStudy(t)
	set := queries.ViewSetting{Simulator: "glm-5.2", Condition: "profile", N: 14, K: 0}
	if err := queries.ViewWarm(ctx, ws.Conn(), "synth", "", 14, 0); err != nil {
		t.Fatal(err)
	}
	all, total, err := queries.ViewMoments(ctx, ws.Conn(), "dev-0033", set, queries.ViewMomentFilter{}, queries.ViewPage{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if total == 0 || len(all) != total {
		t.Fatalf("%d moments of %d", len(all), total)
	}
	trials := map[int]int{}
	for _, m := range all {
		trials[m.Trial]++
		if m.RealText == "" || (!m.Failed && m.Text == "") {
			t.Errorf("moment %+v: a text is missing", m)
		}
	}
	if len(trials) != 3 || trials[0] != trials[1] || trials[1] != trials[2] {
		t.Errorf("moments per trial %v, want three trials of the same points", trials)
	}
	count := func(f queries.ViewMomentFilter) int {
		t.Helper()
		ms, n, err := queries.ViewMoments(ctx, ws.Conn(), "dev-0033", set, f, queries.ViewPage{Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			if (f.Outcome == "hit" && !m.Hit) || (f.Outcome == "miss" && m.Hit) || (f.Real != "" && m.RealMove != f.Real) || (f.Generated != "" && m.Generated != f.Generated) {
				t.Errorf("filter %+v passed %+v", f, m)
			}
		}
		return n
	}
	hits, misses := count(queries.ViewMomentFilter{Outcome: "hit"}), count(queries.ViewMomentFilter{Outcome: "miss"})
	if hits+misses != total || hits == 0 || misses == 0 {
		t.Errorf("hits %d + misses %d, want %d, both present", hits, misses, total)
	}
	byReal := 0
	for _, m := range moves {
		byReal += count(queries.ViewMomentFilter{Real: m})
	}
	if byReal != total {
		t.Errorf("the real moves' filters add up to %d, want %d", byReal, total)
	}
	if n := count(queries.ViewMomentFilter{Real: "directive", Outcome: "hit", Generated: "directive"}); n != count(queries.ViewMomentFilter{Real: "directive", Outcome: "hit"}) {
		t.Errorf("a hit on a directive moment is a generated directive: %d", n)
	}
}

// TestBadPages: a page naming nothing the workspace holds is not found; a
// parameter that does not parse is a bad request.
func TestBadPages(t *testing.T) {
	ctx := context.Background()
	ws := synthStudy(t)
	site, err := NewSite(ctx, ws.Conn(), Options{Judge: "synth"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		p    Page
		want error
	}{
		{page(KindUBSim, "sim", "nobody", "cond", "profile"), ErrNotFound},
		{page(KindUBDev, "sim", "glm-5.2", "cond", "profile", "dev", "nobody"), ErrNotFound},
		{page(KindUBDev, "sim", "glm-5.2", "cond", "profile", "dev", "dev-0033", "real", "<x>"), ErrBadRequest},
		{page(KindUBSim, "sim", "glm-5.2", "cond", "profile", "page", "0"), ErrBadRequest},
		{page(KindMoment, "point", "nope", "n", "14", "k", "0"), ErrNotFound},
		{page(KindMoment, "point", "nope", "n", "x", "k", "0"), ErrBadRequest},
		{page(KindFidSim, "sim", "nobody"), ErrNotFound},
		{page(KindEpisode, "id", "nope"), ErrNotFound},
		{Page{Kind: "admin", Q: url.Values{}}, ErrNotFound},
	} {
		err := site.render(ctx, &bytes.Buffer{}, tc.p, liveLinker{})
		if !errors.Is(err, tc.want) {
			t.Errorf("%s %v: %v, want %v", tc.p.Kind, tc.p.Q, err, tc.want)
		}
	}
}

// TestMarkEvidence: a probe's evidence is marked where the message quotes
// it; evidence the message does not hold, or overlapping a mark, is not;
// the segments give back the text.
func TestMarkEvidence(t *testing.T) {
	for _, tc := range []struct {
		text     string
		evidence []string
		want     string // marked parts in [ ]
	}{
		{"I've turned off airplane mode already.", []string{"I've turned off airplane mode"}, "[I've turned off airplane mode] already."},
		{"user id mia_li_3668, and ABC123", []string{"ABC123", "mia_li_3668"}, "user id [mia_li_3668], and [ABC123]"},
		{"nothing quoted", []string{"elsewhere"}, "nothing quoted"},
		{"overlap here", []string{"overlap", "lap here"}, "[overlap] here"},
		{"", []string{"x"}, ""},
		{"Sure, my user ID is james_lee_6136, and I want", []string{"sure, my user id is james_lee_6136, and ..."}, "[Sure, my user ID is james_lee_6136, and] I want"},
		{"Hi. Could you double-check my reservation? My user id is x.", []string{"...ble-check my reservation? my user id is x…"}, "Hi. Could you dou[ble-check my reservation? My user id is x]."},
		{"İstanbul trip", []string{"i̇stanbul"}, "İstanbul trip"},
	} {
		var b strings.Builder
		var plain strings.Builder
		for _, s := range markEvidence(tc.text, tc.evidence) {
			plain.WriteString(s.Text)
			if s.Mark {
				b.WriteString("[" + s.Text + "]")
			} else {
				b.WriteString(s.Text)
			}
		}
		if b.String() != tc.want || plain.String() != tc.text {
			t.Errorf("markEvidence(%q, %q) = %q (text %q), want %q", tc.text, tc.evidence, b.String(), plain.String(), tc.want)
		}
	}
}

// TestMarkEvidenceOfATruncatedP1Span: the P1 probe quotes 40 bytes either
// side of the identifier and cuts the rest with "..."; where the cut falls
// just after a full stop ("...x. ..." or "...x...."), or in a run of
// spaces the probe collapsed, the mark is still exactly the quoted text,
// dot included.
func TestMarkEvidenceOfATruncatedP1Span(t *testing.T) {
	task := &probes.ViewTask{KnownInfo: "Your user id is mia_li_3668.", Blueprint: []string{"Your user id is mia_li_3668."}}
	for _, tc := range []struct {
		text, want string
	}{
		// 40 bytes after the id end with the full stop: the snippet ends "....".
		{"Good morning, I need help: mia_li_3668 is my user id and I want a new changes. Thanks!",
			"Good morning, I need help: mia_li_3668 is my user id and I want a new changes."},
		// Cut at the start one byte after a full stop: the snippet starts "....".
		{"Hello there. Hi. Well, what I would want to say is mia_li_3668 thanks.",
			". Hi. Well, what I would want to say is mia_li_3668 thanks."},
		// Two spaces and a line break the probe collapsed.
		{"Hi there,  I am\nmia_li_3668 and I want to fly to Seattle tomorrow morning, if you can. Otherwise later.",
			"Hi there,  I am\nmia_li_3668 and I want to fly to Seattle tomorrow m"},
	} {
		e := &probes.View{SimulationID: "s", Task: task, Messages: []probes.ViewMessage{{TurnIdx: 1, Role: "user", Content: tc.text}}}
		fs := probes.ProbeDisclosure(e, false)
		if len(fs) != 1 || fs[0].Probe != probes.ProbeP1 {
			t.Fatalf("%q: findings %+v, want one P1", tc.text, fs)
		}
		var marked []string
		for _, s := range markEvidence(tc.text, []string{fs[0].Evidence}) {
			if s.Mark {
				marked = append(marked, s.Text)
			}
		}
		if len(marked) != 1 || marked[0] != tc.want {
			t.Errorf("evidence %q of %q marks %q, want %q", fs[0].Evidence, tc.text, marked, tc.want)
		}
	}
}

// TestWindowIsThePrompts: the live turns the moment's page shows are the
// turns sim.Build puts in the prompt, for every window size and a mix of
// roles (the agent's latest turn pinned when the window misses it).
func TestWindowIsThePrompts(t *testing.T) {
	for _, roles := range []string{"da", "dadtdad", "datttttd", "ddddda", "dtdtdt", "adddddddd"} {
		var rows []queries.TurnRow
		var turns []ub.Turn
		for i, r := range roles {
			role := map[rune]string{'d': "developer", 'a': "agent", 't': "tool"}[r]
			text := fmt.Sprintf("turn-%02d-%s", i, role)
			rows = append(rows, queries.TurnRow{Idx: i, Role: role, Text: text})
			turns = append(turns, ub.Turn{Role: ub.Role(role), Text: text})
		}
		for n := 1; n <= len(roles)+1; n++ {
			msgs, _, err := sim.Build(sim.PromptInput{Turns: turns}, sim.PromptOptions{Window: n})
			if err != nil {
				t.Fatal(err)
			}
			prompt := msgs[len(msgs)-1].Content
			shown, earlier := window(rows, n)
			in := map[int]bool{}
			for _, s := range shown {
				in[s.Idx] = true
			}
			for _, r := range rows {
				if got := strings.Contains(prompt, r.Text); got != in[r.Idx] {
					t.Errorf("%s, N = %d: turn %d in the prompt %v, on the page %v", roles, n, r.Idx, got, in[r.Idx])
				}
			}
			if earlier != len(rows)-len(shown) {
				t.Errorf("%s, N = %d: %d earlier turns said, want %d", roles, n, earlier, len(rows)-len(shown))
			}
		}
	}
}

// TestPointAnchorIsTheGenerations: the generations at a point read from
// the table ViewWarm writes (ids, moves, texts by id) are those read from
// the generations and labels themselves, for every point of a developer.
func TestPointAnchorIsTheGenerations(t *testing.T) {
	ctx := context.Background()
	ws := synthStudy(t)
	if _, err := NewSite(ctx, ws.Conn(), Options{Judge: "synth"}); err != nil {
		t.Fatal(err)
	}
	ms, _, err := queries.ViewMoments(ctx, ws.Conn(), "dev-0033", queries.ViewSetting{Simulator: "gpt-5.5", Condition: "noprofile", N: 14, K: 0},
		queries.ViewMomentFilter{}, queries.ViewPage{Limit: 1000})
	if err != nil || len(ms) == 0 {
		t.Fatalf("%d moments, %v", len(ms), err)
	}
	// The published site reads the points of a batch of moment pages at
	// once (queries.ViewAnchorGenerationsOf): each as ViewPointAnchor
	// reads it alone; a point that is not there is left out.
	var points []string // each once (a point has a moment per trial)
	for _, m := range ms {
		if !slices.Contains(points, m.PointID) {
			points = append(points, m.PointID)
		}
	}
	batch, err := queries.ViewAnchorGenerationsOf(ctx, ws.Conn(), append(points, "no-such-point"))
	if err != nil {
		t.Fatal(err)
	}
	if len(batch) != len(points) {
		t.Errorf("%d points read in a batch, want %d", len(batch), len(points))
	}
	for _, m := range ms {
		warm, err := queries.ViewPointAnchor(ctx, ws.Conn(), "dev-0033", m.PointID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(batch[m.PointID], warm) {
			t.Errorf("point %s: in a batch\n%v\nalone\n%v", m.PointID, batch[m.PointID], warm)
		}
		direct, err := queries.ViewPointGenerations(ctx, ws.Conn(), "synth", m.PointID, 14, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(warm) == 0 || fmt.Sprint(warm) != fmt.Sprint(direct) {
			t.Fatalf("point %s: from the warm table\n%v\nfrom the generations\n%v", m.PointID, warm, direct)
		}
		// The developer's page lists the moment with its generation's
		// text (the page's texts read at once).
		if m.GenID.Valid && !m.Failed {
			i := slices.IndexFunc(direct, func(g queries.ViewGeneration) bool {
				return g.Simulator == "gpt-5.5" && g.Condition == "noprofile" && g.Trial == m.Trial
			})
			if i < 0 || direct[i].Text == "" || m.Text != direct[i].Text {
				t.Errorf("point %s trial %d: the developer's page shows %q, want its generation's text", m.PointID, m.Trial, m.Text)
			}
		}
		l, ok, err := queries.ViewPointLabel(ctx, ws.Conn(), m.PointID)
		if err != nil || !ok || l.Move != m.RealMove {
			t.Errorf("point %s: label %+v %v %v, want move %s", m.PointID, l, ok, err, m.RealMove)
		}
	}
}

// TestMomentsReadAheadAreEachPagesOwn: the published site reads the
// moment pages of a batch at once (readMoments: points, labels,
// generations at the anchor and at every other setting, in five queries);
// each page's is what the page reads alone (readMoment), at the anchor,
// off it, at a setting with no generation, and for a point a batch shares
// between settings. A point that is not there is left out, so its page
// reads alone and says it is not found.
func TestMomentsReadAheadAreEachPagesOwn(t *testing.T) {
	ctx := context.Background()
	ws, s, points := synthSite(t)
	if len(points) < 20 {
		t.Fatalf("%d points", len(points))
	}
	var want []queries.PointSetting
	for i, p := range points[:20] {
		// Every point at the anchor; one in ten at each stored setting
		// (each a page of a sweep cell) and at one with no generation.
		want = append(want, queries.PointSetting{Point: p.ID, N: s.n, K: s.k})
		if i%10 != 1 {
			continue
		}
		seen := map[[2]int]bool{{s.n, s.k}: true}
		for _, st := range s.settings {
			if !seen[[2]int{st.N, st.K}] {
				seen[[2]int{st.N, st.K}] = true
				want = append(want, queries.PointSetting{Point: p.ID, N: st.N, K: st.K})
			}
		}
		want = append(want, queries.PointSetting{Point: p.ID, N: 999, K: 0})
	}
	if len(want) < 60 {
		t.Fatalf("%d pages: too few settings stored", len(want))
	}
	settings := append([]queries.PointSetting{{Point: "no-such-point", N: s.n, K: s.k}}, want...)
	l := &staticLinker{moments: map[queries.PointSetting]*momentAhead{}}
	if err := s.readMoments(ctx, l, settings); err != nil {
		t.Fatal(err)
	}
	if len(l.moments) != len(want) {
		t.Errorf("%d pages read in a batch, want %d", len(l.moments), len(want))
	}
	offAnchor, empty := 0, 0
	for _, st := range want {
		alone, err := s.readMoment(ctx, st.Point, st.N, st.K)
		if err != nil {
			t.Fatal(err)
		}
		got := l.moments[st]
		if got == nil {
			t.Errorf("%+v: not read in the batch", st)
			continue
		}
		if !reflect.DeepEqual(*got.data, *alone.data) || got.label != alone.label || fmt.Sprint(got.gens) != fmt.Sprint(alone.gens) {
			t.Errorf("%+v: in a batch\n%+v %+v\n%v\nalone\n%+v %+v\n%v", st, *got.data, got.label, got.gens, *alone.data, alone.label, alone.gens)
		}
		if st.N != s.n || st.K != s.k {
			offAnchor++
		}
		if len(got.gens) == 0 {
			empty++
		}
		if !alone.label.Labelled || len(alone.data.Before) == 0 || alone.data.Real == "" {
			t.Errorf("%+v: label %+v, %d turns before, real %q: want what the page shows", st, alone.label, len(alone.data.Before), alone.data.Real)
		}
	}
	if offAnchor < 40 || empty < 2 {
		t.Errorf("%d pages off the anchor, %d with no generation: the test reads too few of either", offAnchor, empty)
	}
	if _, err := s.readMoment(ctx, "no-such-point", s.n, s.k); !errors.Is(err, ErrNotFound) {
		t.Errorf("a point not there, read alone: %v, want not found", err)
	}
	// A point stored twice (points has no key; ub sql --write can do it)
	// is still one point with its turns once, in a batch as alone.
	p := points[1].ID
	before := l.moments[queries.PointSetting{Point: p, N: s.n, K: s.k}].data
	if _, err := ws.Conn().ExecContext(ctx, `INSERT INTO points SELECT * FROM points WHERE id = ?`, p); err != nil {
		t.Fatal(err)
	}
	batch, err := queries.PointContextsOf(ctx, ws.Conn(), []string{p})
	if err != nil {
		t.Fatal(err)
	}
	alone, err := queries.PointContext(ctx, ws.Conn(), p)
	if err != nil {
		t.Fatal(err)
	}
	if batch[p] == nil || !reflect.DeepEqual(*batch[p], alone) || !reflect.DeepEqual(alone, *before) {
		t.Errorf("a point stored twice: %d turns before in a batch, %d alone, %d when stored once", len(batch[p].Before), len(alone.Before), len(before.Before))
	}
}

// TestEpisodeShowsReviews: an episode's page shows every reviewer's
// standing decision, each error linked to its turn, escaped, the
// adjudicator's last.
func TestEpisodeShowsReviews(t *testing.T) {
	ctx := context.Background()
	ws, err := queries.Open(ctx, "", queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if err := reviewtest.Insert(ctx, ws, reviewtest.Three()); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, d := range []queries.Decision{
		{SimulationID: "sim-a", Reviewer: "zoe", Kind: "adjudicator", Outcome: "no_error", Source: "web", DecidedAt: at},
		{SimulationID: "sim-a", Reviewer: "ann", Kind: "human", Outcome: "error", Source: "web", DecidedAt: at, Errors: []queries.ReviewError{
			{TurnIdx: sql.NullInt64{Int64: 1, Valid: true}, Code: "hallucination", Severity: "minor", Note: "<b>made up</b> an id"}}},
		{SimulationID: "sim-a", Reviewer: "bob", Kind: "human", Outcome: "no_error", Source: "web", DecidedAt: at},
	} {
		if _, err := queries.SaveDecision(ctx, ws, d); err != nil {
			t.Fatal(err)
		}
	}
	site, err := NewSite(ctx, ws.Conn(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := site.render(ctx, &buf, page(KindEpisode, "id", "sim-a"), liveLinker{}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	ann, bob, zoe := strings.Index(page, "<td>ann</td>"), strings.Index(page, "<td>bob</td>"), strings.Index(page, "<td>zoe</td>")
	if ann < 0 || bob < 0 || zoe < 0 || !(ann < bob && bob < zoe) {
		t.Errorf("reviewers at %d, %d, %d: want ann, bob, then the adjudicator zoe", ann, bob, zoe)
	}
	for _, want := range []string{`<a href="#turn-1">1</a>`, `id="turn-1"`, "hallucination", "&lt;b&gt;made up&lt;/b&gt; an id", "error (revision 1)"} {
		if !strings.Contains(page, want) {
			t.Errorf("the episode page lacks %q", want)
		}
	}
}

// TestEpisodeListFilters: a user simulator's episodes narrowed to a
// failing family or a probe that fired are exactly those; f follows the
// verdicts (1 when none failed, 0 when one did, none without verdicts).
func TestEpisodeListFilters(t *testing.T) {
	ctx := context.Background()
	ws, err := queries.Open(ctx, "", queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if err := reviewtest.Insert(ctx, ws, reviewtest.Three()); err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		`INSERT INTO ep_rubric_criteria (criterion_id, domain, task_id, family, mode, quote, quote_source, text, written_by, status, source_file, source_line)
		 VALUES ('a-1', 'airline', '7', 'disclosure', 'm', 'q', 'reason_for_call', 't', 'x', 'accepted', 'r', 1),
		        ('a-2', 'airline', '7', 'groundedness', 'm', 'q', 'reason_for_call', 't', 'x', 'accepted', 'r', 2),
		        ('r-1', 'retail', '12', 'omitted_info', 'm', 'q', 'reason_for_call', 't', 'x', 'accepted', 'r', 3)`,
		`INSERT INTO ep_verdicts (simulation_id, criterion_id, grader, verdict, turn_idx, reason, source_file, source_line)
		 VALUES ('sim-a', 'a-1', 'g', 'fail', 1, 'r', 'v', 1), ('sim-a', 'a-2', 'g', 'pass', NULL, 'r', 'v', 2),
		        ('sim-b', 'r-1', 'g', 'pass', NULL, 'r', 'v', 3)`,
	} {
		if _, err := ws.Conn().ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := NewSite(ctx, ws.Conn(), Options{Grader: "g"}); err != nil {
		t.Fatal(err)
	}
	ids := func(f queries.ViewEpisodeFilter) string {
		t.Helper()
		eps, total, err := queries.ViewEpisodes(ctx, ws.Conn(), "user_simulator:gpt-4.1@t0", f, queries.ViewPage{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range eps {
			out = append(out, fmt.Sprintf("%s:%s", e.SimulationID, fmtNullFloat(e.F)))
		}
		if total != len(eps) {
			t.Errorf("%+v: total %d, %d rows", f, total, len(eps))
		}
		return strings.Join(out, " ")
	}
	for _, tc := range []struct {
		f    queries.ViewEpisodeFilter
		want string
	}{
		{queries.ViewEpisodeFilter{}, "sim-a:0 sim-b:1 sim-c:–"},
		{queries.ViewEpisodeFilter{Family: "disclosure"}, "sim-a:0"},
		{queries.ViewEpisodeFilter{Family: "groundedness"}, ""},
		{queries.ViewEpisodeFilter{Probe: "P5"}, "sim-c:–"},
		{queries.ViewEpisodeFilter{Probe: "P1"}, "sim-a:0"},
		{queries.ViewEpisodeFilter{Filter: "f1"}, "sim-b:1"},
		{queries.ViewEpisodeFilter{Filter: "unscored"}, "sim-c:–"},
		{queries.ViewEpisodeFilter{Domain: "retail", Filter: "failure"}, "sim-b:1"},
	} {
		if got := ids(tc.f); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.f, got, tc.want)
		}
	}
}

// TestReviewedEpisodes: the error share table's domain cells link to the
// reviewed episodes of that domain ("all": every domain); each lists every
// reviewer's decision, the adjudicator last, linked to the episode's page
// and its turn; an episode the workspace does not hold is listed under its
// own row but links nowhere; the static site cuts the list and says so.
func TestReviewedEpisodes(t *testing.T) {
	ctx := context.Background()
	ws, err := queries.Open(ctx, "", queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if err := reviewtest.Insert(ctx, ws, reviewtest.Three()); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, d := range []queries.Decision{
		{SimulationID: "sim-a", Reviewer: "zoe", Kind: "adjudicator", Outcome: "no_error", Source: "web", DecidedAt: at},
		{SimulationID: "sim-a", Reviewer: "ann", Kind: "human", Outcome: "error", Source: "web", DecidedAt: at, Errors: []queries.ReviewError{
			{TurnIdx: sql.NullInt64{Int64: 1, Valid: true}, Code: "hallucination", Severity: "minor", Note: "<b>made up</b> an id"}}},
		{SimulationID: "sim-a", Reviewer: "bob", Kind: "human", Outcome: "no_error", Source: "web", DecidedAt: at},
		{SimulationID: "sim-b", Reviewer: "ann", Kind: "human", Outcome: "no_error", Source: "web", DecidedAt: at},
	} {
		if _, err := queries.SaveDecision(ctx, ws, d); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ws.Conn().ExecContext(ctx, `INSERT INTO rv_decisions (simulation_id, reviewer, kind, outcome, source, decided_at, revision)
		VALUES ('ghost-1', 'ann', 'human', 'error', 'labels.csv:2', TIMESTAMP '2026-01-02 03:04:05', 1)`); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	report := "# Report\n\n| domain | n | simulator error | critical error |\n|---|---|---|---|\n| airline | 1 | 0 | 0 |\n| (not in workspace) | 1 | 1 | 0 |\n| all | 3 | 0.333 | 0 |\n"
	if err := os.WriteFile(filepath.Join(dir, "report.md"), []byte(report), 0o644); err != nil {
		t.Fatal(err)
	}
	site, err := NewSite(ctx, ws.Conn(), Options{ReportDir: dir, PageSize: 2, Examples: 1})
	if err != nil {
		t.Fatal(err)
	}
	render := func(p Page, l linker) string {
		t.Helper()
		var buf bytes.Buffer
		if err := site.render(ctx, &buf, p, l); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	index := render(Page{Kind: KindIndex}, liveLinker{})
	for _, want := range []string{
		`<a href="/review/episodes?domain=airline">airline</a>`,
		`<a href="/review/episodes?domain=%28not+in+workspace%29">(not in workspace)</a>`,
		`<a href="/review/episodes?domain=all">all</a>`,
	} {
		if !strings.Contains(index, want) {
			t.Errorf("the report lacks %s", want)
		}
	}
	listed := func(html string) []string {
		var out []string
		for _, id := range []string{"sim-a", "sim-b", "sim-c", "ghost-1"} {
			if strings.Contains(html, ">"+id+"<") || strings.Contains(html, ">"+id+" (not in the workspace)<") {
				out = append(out, id)
			}
		}
		return out
	}
	for _, tc := range []struct {
		domain string
		page   string
		want   string
		pager  string
	}{
		{"airline", "", "sim-a", "1–1 of 1"},
		{"retail", "", "sim-b", "1–1 of 1"},
		{"telecom", "", "", "None."},
		{"(not in workspace)", "", "ghost-1", "1–1 of 1"},
		{"all", "", "sim-a sim-b", "1–2 of 3"},
		{"all", "2", "ghost-1", "3–3 of 3"},
	} {
		got := render(page(KindReview, "domain", tc.domain, "page", tc.page), liveLinker{})
		if ids := strings.Join(listed(got), " "); ids != tc.want {
			t.Errorf("%s page %q lists %q, want %q", tc.domain, tc.page, ids, tc.want)
		}
		if !strings.Contains(got, tc.pager) {
			t.Errorf("%s page %q lacks %q", tc.domain, tc.page, tc.pager)
		}
	}
	a := render(page(KindReview, "domain", "airline"), liveLinker{})
	ann, bob, zoe := strings.Index(a, "<td>ann</td>"), strings.Index(a, "<td>bob</td>"), strings.Index(a, "<td>zoe</td>")
	if ann < 0 || bob < 0 || zoe < 0 || !(ann < bob && bob < zoe) {
		t.Errorf("reviewers at %d, %d, %d: want ann, bob, then the adjudicator zoe", ann, bob, zoe)
	}
	for _, want := range []string{`<a href="/fid/episode?id=sim-a">sim-a</a>`, `<a href="/fid/episode?id=sim-a#turn-1">1</a>`,
		"&lt;b&gt;made up&lt;/b&gt; an id", "error (revision 1)", "no_error (revision 1)", "adjudicator"} {
		if !strings.Contains(a, want) {
			t.Errorf("the airline page lacks %q", want)
		}
	}
	g := render(page(KindReview, "domain", "(not in workspace)"), liveLinker{})
	if strings.Contains(g, "id=ghost-1") || !strings.Contains(g, "ghost-1 (not in the workspace)") {
		t.Errorf("the episode the workspace lacks is linked or unnamed:\n%s", g)
	}
	st := render(page(KindReview, "domain", "all"), &staticLinker{seen: map[string]Page{}})
	if got := listed(st); len(got) != 1 || !strings.Contains(st, "The first 1 of 3: this published site shows at most 1 rows") {
		t.Errorf("the static page lists %v and says %q", got, st)
	}
}

// TestComparePoints: two UserBench settings side by side share every
// point of the synthetic study (each simulator generated at all of them),
// so their hits and moments add up to the leaderboard's per-developer
// scores (reports.AnchorScores, from the study's aggregates); rows come
// largest gap first, and the disagreements are the rows whose shares
// differ. A report table of distinct simulators gets a compare column
// against its first row; one that names a simulator twice does not.
func TestComparePoints(t *testing.T) {
	ctx := context.Background()
	ws := synthStudy(t)
	st, err := queries.LoadStudy(ctx, ws.Conn(), "synth")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	report := "# Report\n\n| simulator | condition | accuracy |\n|---|---|---|\n| gpt-5.5 | noprofile | 1 |\n| glm-5.2 | profile | 2 |\n| osim-4b | noprofile | 3 |\n\n" +
		"| simulator | condition | n |\n|---|---|---|\n| gpt-5.5 | noprofile | 1 |\n| gpt-5.5 | noprofile | 2 |\n"
	if err := os.WriteFile(filepath.Join(dir, "report.md"), []byte(report), 0o644); err != nil {
		t.Fatal(err)
	}
	site, err := NewSite(ctx, ws.Conn(), Options{Judge: "synth", ReportDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	n, k := queries.Anchor(st.Settings)
	a := queries.ViewSetting{Simulator: "gpt-5.5", Condition: "noprofile", N: n, K: k}
	b := queries.ViewSetting{Simulator: "glm-5.2", Condition: "profile", N: n, K: k}
	rows, total, disagree, err := queries.ViewComparePoints(ctx, ws.Conn(), a, b, queries.ViewPage{Limit: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if total != len(rows) || total == 0 {
		t.Fatalf("%d rows, total %d", len(rows), total)
	}
	sum := func(s queries.ViewSetting) (hits, moments int) {
		for _, d := range reports.AnchorScores(st, s.Simulator, s.Condition) {
			hits += d.Hits
			moments += d.N
		}
		return hits, moments
	}
	var hA, mA, hB, mB, differ int
	last := math.Inf(1)
	for _, r := range rows {
		hA, mA, hB, mB = hA+r.HitsA, mA+r.MomentsA, hB+r.HitsB, mB+r.MomentsB
		gap := math.Abs(float64(r.HitsB)/float64(r.MomentsB) - float64(r.HitsA)/float64(r.MomentsA))
		if gap > last+1e-12 {
			t.Errorf("%s: gap %v after %v: not where they disagree first", r.PointID, gap, last)
		}
		last = gap
		if gap > 0 {
			differ++
		}
		if len(strings.Fields(r.MovesA)) != r.MomentsA || len(strings.Fields(r.MovesB)) != r.MomentsB {
			t.Errorf("%s: moves %q and %q for %d and %d moments", r.PointID, r.MovesA, r.MovesB, r.MomentsA, r.MomentsB)
		}
	}
	if wh, wm := sum(a); hA != wh || mA != wm {
		t.Errorf("A: %d hits of %d moments, the leaderboard's %d of %d", hA, mA, wh, wm)
	}
	if wh, wm := sum(b); hB != wh || mB != wm {
		t.Errorf("B: %d hits of %d moments, the leaderboard's %d of %d", hB, mB, wh, wm)
	}
	if differ != disagree || differ == 0 || differ == total {
		t.Errorf("%d rows differ, the query says %d of %d", differ, disagree, total)
	}
	var buf bytes.Buffer
	if err := site.render(ctx, &buf, page(KindCompare, "study", "ub", "sim", a.Simulator, "cond", a.Condition, "sim2", b.Simulator, "cond2", b.Condition), liveLinker{}); err != nil {
		t.Fatal(err)
	}
	if c := strings.Count(buf.String(), `<td><a href="/ub/moment?`); c != min(PageSize, total) {
		t.Errorf("the page links %d moments, want %d", c, min(PageSize, total))
	}
	if !strings.Contains(buf.String(), fmt.Sprintf("They differ on %d of %d.", disagree, total)) {
		t.Errorf("the page does not say where they differ")
	}
	buf.Reset()
	if err := site.render(ctx, &buf, Page{Kind: KindIndex}, liveLinker{}); err != nil {
		t.Fatal(err)
	}
	index := buf.String()
	for _, want := range []string{
		`<a href="/compare?cond=noprofile&amp;cond2=profile&amp;sim=gpt-5.5&amp;sim2=glm-5.2&amp;study=ub">against gpt-5.5 noprofile</a>`,
		`<a href="/compare?cond=noprofile&amp;cond2=noprofile&amp;sim=gpt-5.5&amp;sim2=osim-4b&amp;study=ub">against gpt-5.5 noprofile</a>`,
	} {
		if !strings.Contains(index, want) {
			t.Errorf("the leaderboard lacks %s", want)
		}
	}
	if c := strings.Count(index, "<th>compare</th>"); c != 1 {
		t.Errorf("%d tables have a compare column, want the one of distinct simulators", c)
	}
	for _, p := range []Page{
		page(KindCompare, "study", "ub", "sim", "nope", "cond", "profile", "sim2", b.Simulator, "cond2", b.Condition),
		page(KindCompare, "study", "fid", "sim", "nope", "sim2", "nope"),
	} {
		if err := site.render(ctx, &bytes.Buffer{}, p, liveLinker{}); !errors.Is(err, ErrNotFound) {
			t.Errorf("%v: %v, want not found", p, err)
		}
	}
	if err := site.render(ctx, &bytes.Buffer{}, page(KindCompare, "study", "x"), liveLinker{}); !errors.Is(err, ErrBadRequest) {
		t.Errorf("study x: %v, want a bad request", err)
	}
}

// TestCompareTasks: two user simulators side by side on the tasks both
// ran hold, per task, the scored and faithful episodes that the
// fidelity study's own loader (queries.LoadFidelity) counts; rows come
// largest gap first.
func TestCompareTasks(t *testing.T) {
	ctx := context.Background()
	ws, err := queries.Open(ctx, "", queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if _, err := synth.WriteFidelity(ctx, ws, synth.FidelityOptions{Seed: 2, Scale: 1, Sampled: true}); err != nil {
		t.Fatal(err)
	}
	site, err := NewSite(ctx, ws.Conn(), Options{Grader: synth.FidelityGrader})
	if err != nil {
		t.Fatal(err)
	}
	eps, err := queries.LoadFidelity(ctx, ws.Conn(), synth.FidelityGrader)
	if err != nil {
		t.Fatal(err)
	}
	type count struct{ episodes, scored, faithful int }
	by := map[string]map[string]*count{} // simulator -> domain/task
	for _, e := range eps {
		if by[e.Simulator] == nil {
			by[e.Simulator] = map[string]*count{}
		}
		key := e.Domain + "/" + e.Task
		c := by[e.Simulator][key]
		if c == nil {
			c = &count{}
			by[e.Simulator][key] = c
		}
		c.episodes++
		var applicable, failed int
		for i := range e.Applicable {
			applicable, failed = applicable+e.Applicable[i], failed+e.Failed[i]
		}
		if applicable > 0 && !slices.Contains(e.Probes, "P0") {
			c.scored++
			if failed == 0 {
				c.faithful++
			}
		}
	}
	sims := sortedKeys(by)
	if len(sims) < 2 {
		t.Fatalf("user simulators %v", sims)
	}
	a, b := sims[0], sims[1]
	shared := 0
	for key := range by[a] {
		if by[b][key] != nil {
			shared++
		}
	}
	rows, total, disagree, err := queries.ViewCompareTasks(ctx, ws.Conn(), a, b, queries.ViewPage{Limit: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if total != shared || len(rows) != shared || shared == 0 {
		t.Fatalf("%d rows (total %d), want the %d tasks both ran", len(rows), total, shared)
	}
	share := func(s queries.ViewTaskSide) float64 {
		if s.Scored == 0 {
			return math.NaN()
		}
		return float64(s.Faithful) / float64(s.Scored)
	}
	last, differ := math.Inf(1), 0
	for _, r := range rows {
		key := r.Domain + "/" + r.TaskID
		for _, side := range []struct {
			sim string
			got queries.ViewTaskSide
		}{{a, r.A}, {b, r.B}} {
			w := by[side.sim][key]
			if side.got.Episodes != w.episodes || side.got.Scored != w.scored || side.got.Faithful != w.faithful {
				t.Errorf("%s %s: %+v, the loader counts %+v", side.sim, key, side.got, *w)
			}
		}
		gap := math.Abs(share(r.B) - share(r.A))
		if math.IsNaN(gap) {
			gap = 0
		}
		if gap > last+1e-12 {
			t.Errorf("%s: gap %v after %v", key, gap, last)
		}
		last = gap
		if gap > 0 {
			differ++
		}
	}
	if differ != disagree || differ == 0 {
		t.Errorf("%d tasks differ, the query says %d", differ, disagree)
	}
	var buf bytes.Buffer
	if err := site.render(ctx, &buf, page(KindCompare, "study", "fid", "sim", a, "sim2", b), liveLinker{}); err != nil {
		t.Fatal(err)
	}
	if c := strings.Count(buf.String(), `<td><a href="/fid/episode?id=`); c != 2*min(PageSize, total) {
		t.Errorf("the page links %d episodes, want two a task", c)
	}
}

// TestSweepCellsMatchTheReport: on the report drawn from the synthetic
// study, every row of the context sweep, the history sweep (and its
// substitution test) and every cell of the N x K surface links to the
// page of its setting's moments, whose macro accuracy, interval,
// developers and moments are the report's row (computed again from the
// moments, another path than the report's aggregates); each moment of the
// case study links to its page; the published site's cell page lists at
// most Examples moments and says how many there are.
func TestSweepCellsMatchTheReport(t *testing.T) {
	ctx := context.Background()
	ws := synthStudy(t)
	st, err := queries.LoadStudy(ctx, ws.Conn(), "synth")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rep := reports.Prepare(reports.Input{Study: st})
	if dev, n, k, ok := rep.CaseDeveloper(); ok {
		ct, err := queries.LoadCaseTexts(ctx, ws.Conn(), "synth", dev, n, k)
		if err != nil {
			t.Fatal(err)
		}
		rep.SetCase(&ct)
	}
	if _, err := rep.WriteAll(dir); err != nil {
		t.Fatal(err)
	}
	site, err := NewSite(ctx, ws.Conn(), Options{Judge: "synth", ReportDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	render := func(p Page, l linker) string {
		t.Helper()
		var buf bytes.Buffer
		if err := site.render(ctx, &buf, p, l); err != nil {
			t.Fatalf("%s %v: %v", p.Kind, p.Q, err)
		}
		return buf.String()
	}
	index := render(Page{Kind: KindIndex}, liveLinker{})
	readCSV := func(name string) []map[string]string {
		t.Helper()
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		recs, err := csv.NewReader(f).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		var out []map[string]string
		for _, r := range recs[1:] {
			m := map[string]string{}
			for i, h := range recs[0] {
				m[h] = r[i]
			}
			out = append(out, m)
		}
		return out
	}
	field := func(html, id string) string {
		m := regexp.MustCompile(`id="` + id + `">([^<]*)<`).FindStringSubmatch(html)
		if m == nil {
			t.Fatalf("no %s on the page", id)
		}
		return m[1]
	}
	// The sweeps' simulator, condition and anchor, as the captions name them.
	sim, cond := "gemini-3.5-flash", "noprofile"
	n0, k0 := queries.Anchor(st.Settings)
	type cell struct {
		n, k               int
		dose               bool
		acc, lo, hi        string
		developers, momnts string
	}
	var cells []cell
	for _, r := range readCSV("context-scaling.csv") {
		cells = append(cells, cell{atoi(r["setting"]), k0, r["view"] == "constant dose", r["accuracy"], r["ci_lo"], r["ci_hi"], r["developers"], r["moments"]})
	}
	for _, r := range readCSV("history-sweep.csv") {
		n := n0
		if strings.HasPrefix(r["view"], "substitution at N = ") {
			n = atoi(strings.TrimPrefix(r["view"], "substitution at N = "))
		}
		cells = append(cells, cell{n, atoi(r["setting"]), false, r["accuracy"], r["ci_lo"], r["ci_hi"], r["developers"], r["moments"]})
	}
	for _, r := range readCSV("context-heatmap.csv") {
		if r["kind"] == "cell" {
			cells = append(cells, cell{atoi(r["n"]), atoi(r["k"]), false, r["value"], r["ci_lo"], r["ci_hi"], r["developers"], ""})
		}
	}
	if len(cells) < 40 {
		t.Fatalf("%d sweep rows: the synthetic report's sweeps are missing", len(cells))
	}
	for _, c := range cells {
		view := ""
		if c.dose {
			view = "dose"
		}
		p := page(KindCell, "sim", sim, "cond", cond, "n", strconv.Itoa(c.n), "k", strconv.Itoa(c.k), "view", view)
		href := template.HTMLEscapeString(liveLinker{}.link(p))
		if !strings.Contains(index, `<a href="`+href+`">`+c.acc+`</a>`) {
			t.Errorf("the report's row N = %d, K = %d (dose %v) does not link %s to %s", c.n, c.k, c.dose, c.acc, href)
			continue
		}
		got := render(p, liveLinker{})
		if a, ci, d := field(got, "cell-accuracy"), field(got, "cell-ci"), field(got, "cell-developers"); a != c.acc || ci != c.lo+" to "+c.hi || d != c.developers {
			t.Errorf("N = %d, K = %d (dose %v): the page gives %s (%s) over %s developers, the report %s (%s to %s) over %s", c.n, c.k, c.dose, a, ci, d, c.acc, c.lo, c.hi, c.developers)
		}
		if m := field(got, "cell-moments"); c.momnts != "" && m != c.momnts {
			t.Errorf("N = %d, K = %d (dose %v): %s moments, the report %s", c.n, c.k, c.dose, m, c.momnts)
		}
		want := fmt.Sprintf(`href="/ub/moment?k=%d&amp;n=%d&amp;point=`, c.k, c.n)
		if strings.Count(got, want) != min(PageSize, atoi(field(got, "cell-moments"))) {
			t.Errorf("N = %d, K = %d: the page links %d moments at its N and K", c.n, c.k, strings.Count(got, want))
		}
	}
	// The case study's moments.
	caseRows := readCSV("case-study.csv")
	seen := map[string]bool{}
	for _, r := range caseRows {
		if seen[r["moment"]] {
			continue
		}
		seen[r["moment"]] = true
		href := template.HTMLEscapeString(liveLinker{}.link(page(KindMoment, "point", r["point"], "n", strconv.Itoa(n0), "k", strconv.Itoa(k0))))
		if !strings.Contains(index, `<a href="`+href+`">`+r["moment"]+`</a>`) {
			t.Errorf("case study moment %s does not link to %s", r["moment"], href)
		}
	}
	if len(seen) == 0 {
		t.Error("no case study moment")
	}
	// The published site: a bounded list that says how long it is.
	sl := &staticLinker{seen: map[string]Page{}}
	got := render(page(KindCell, "sim", sim, "cond", cond, "n", "1", "k", "0"), sl)
	if c := strings.Count(got, `href="ub-moment-`); c != Examples || !strings.Contains(got, fmt.Sprintf("The first %d of ", Examples)) {
		t.Errorf("the static cell page links %d moments and says %q", c, regexp.MustCompile(`<p class="pager"[^\n]*`).FindString(got))
	}
}

// TestMomentsProfileLift: a developer's moments filtered by profile lift
// are the points and trials where the simulator's generation under
// profile hit and its noprofile one missed (or the reverse), as the two
// conditions' unfiltered lists show them, whichever condition's page
// asks; the page offers the filter and refuses an unknown lift.
func TestMomentsProfileLift(t *testing.T) {
	ctx := context.Background()
	ws := synthStudy(t)
	site, err := NewSite(ctx, ws.Conn(), Options{Judge: "synth"})
	if err != nil {
		t.Fatal(err)
	}
	sim := "glm-5.2"
	type key struct {
		point string
		trial int
	}
	list := func(dev, cond string, f queries.ViewMomentFilter) map[key]bool {
		t.Helper()
		ms, total, err := queries.ViewMoments(ctx, ws.Conn(), dev, queries.ViewSetting{Simulator: sim, Condition: cond, N: site.n, K: site.k}, f, queries.ViewPage{Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		if total != len(ms) {
			t.Fatalf("%d of %d moments", len(ms), total)
		}
		out := map[key]bool{}
		for _, m := range ms {
			out[key{m.PointID, m.Trial}] = m.Hit
		}
		return out
	}
	found := map[string]int{}
	for _, dev := range []string{"dev-0033", "dev-0153", "dev-0042", "dev-0106"} {
		prof, noprof := list(dev, queries.CondProfile, queries.ViewMomentFilter{}), list(dev, queries.CondNoProfile, queries.ViewMomentFilter{})
		if len(prof) == 0 {
			continue
		}
		for _, lift := range []string{queries.LiftProfile, queries.LiftNoProfile} {
			want := map[key]bool{}
			for k, hit := range prof {
				other, ok := noprof[k]
				if ok && ((lift == queries.LiftProfile && hit && !other) || (lift == queries.LiftNoProfile && other && !hit)) {
					want[k] = true
				}
			}
			for _, cond := range []string{queries.CondProfile, queries.CondNoProfile} {
				got := list(dev, cond, queries.ViewMomentFilter{Lift: lift})
				if len(got) != len(want) {
					t.Errorf("%s %s lift %s: %d moments, want %d", dev, cond, lift, len(got), len(want))
				}
				for k := range got {
					if !want[k] {
						t.Errorf("%s %s lift %s: %v passed", dev, cond, lift, k)
					}
				}
			}
			found[lift] += len(want)
		}
	}
	if found[queries.LiftProfile] == 0 || found[queries.LiftNoProfile] == 0 {
		t.Fatalf("lifts found %v: the test needs moments of both kinds", found)
	}
	var buf bytes.Buffer
	if err := site.render(ctx, &buf, page(KindUBDev, "sim", sim, "cond", "profile", "dev", "dev-0033", "lift", "profile"), liveLinker{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `<option value="profile" selected>hit only with the profile</option>`) {
		t.Errorf("the page does not offer the chosen lift:\n%s", buf.String())
	}
	if err := site.render(ctx, &bytes.Buffer{}, page(KindUBDev, "sim", sim, "cond", "profile", "dev", "dev-0033", "lift", "both"), liveLinker{}); !errors.Is(err, ErrBadRequest) {
		t.Errorf("lift both: %v, want a bad request", err)
	}
}

// TestFidelityTablesLink: the report's failure-family table links its
// rows over every simulator ("all") to every simulator's episodes failing
// the family, and its per-simulator rows to that simulator's; the
// frontier choice links U*(q) and the re-rank table each simulator to its
// episodes, as the UFS rows do. The page over every simulator lists
// exactly the episodes each simulator's own page lists for the family.
func TestFidelityTablesLink(t *testing.T) {
	ctx := context.Background()
	ws, err := queries.Open(ctx, "", queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if _, err := synth.WriteFidelity(ctx, ws, synth.FidelityOptions{Seed: 2}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	report := "# Report\n\n### Failure families\n\n| family | episodes\\_present | simulator | domain | effect |\n| --- | --- | --- | --- | --- |\n" +
		"| disclosure | 385 | all | all | 0.048 |\n| disclosure |  | user\\_simulator:gemini-3.5-flash@t1 | banking | \\-0.283 |\n\n" +
		"### Frontier choice\n\n| q | U\\*(q) | UFS |\n| --- | --- | --- |\n| 0.75 | user\\_simulator:gpt-4.1-mini@t1 | 0.769 |\n| 0.99 | none |  |\n\n" +
		"### Ranks without disclosure criteria\n\n| simulator | ufs\\_all | rank\\_all |\n| --- | --- | --- |\n| user\\_simulator:gemma-4-26b@t1 | 0.520 | 7 |\n| user\\_simulator:sonnet-4-6@t1 | 0.699 | 5 |\n"
	if err := os.WriteFile(filepath.Join(dir, "report.md"), []byte(report), 0o644); err != nil {
		t.Fatal(err)
	}
	site, err := NewSite(ctx, ws.Conn(), Options{Grader: "synth-grader", ReportDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	render := func(p Page) string {
		t.Helper()
		var buf bytes.Buffer
		if err := site.render(ctx, &buf, p, liveLinker{}); err != nil {
			t.Fatalf("%s %v: %v", p.Kind, p.Q, err)
		}
		return buf.String()
	}
	index := render(Page{Kind: KindIndex})
	for _, want := range []string{
		`<td><a href="/fid/sim?family=disclosure">disclosure</a></td>`,
		`<a href="/fid/sim?domain=banking&amp;family=disclosure&amp;sim=user_simulator%3Agemini-3.5-flash%40t1">`,
		`<td><a href="/fid/sim?sim=user_simulator%3Agpt-4.1-mini%40t1">user_simulator:gpt-4.1-mini@t1</a></td>`,
		`<td>none</td>`,
		`<td><a href="/fid/sim?sim=user_simulator%3Agemma-4-26b%40t1">user_simulator:gemma-4-26b@t1</a></td>`,
		`<td><a href="/fid/sim?sim=user_simulator%3Asonnet-4-6%40t1">user_simulator:sonnet-4-6@t1</a></td>`,
	} {
		if !strings.Contains(index, want) {
			t.Errorf("the report lacks %s", want)
		}
	}
	// Every simulator's episodes failing disclosure, against each one's own list.
	want := 0
	for _, us := range sortedKeys(site.userSims) {
		_, n, err := queries.ViewEpisodes(ctx, ws.Conn(), us, queries.ViewEpisodeFilter{Family: "disclosure"}, queries.ViewPage{Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		want += n
	}
	eps, total, err := queries.ViewEpisodes(ctx, ws.Conn(), "", queries.ViewEpisodeFilter{Family: "disclosure"}, queries.ViewPage{Limit: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	sims := map[string]bool{}
	for _, e := range eps {
		sims[e.UserSim] = true
		if !strings.Contains(e.Families, "disclosure") {
			t.Errorf("%s (%s) listed, failing %q", e.SimulationID, e.UserSim, e.Families)
		}
	}
	if total != want || len(eps) != want || want == 0 || len(sims) < 2 {
		t.Errorf("every simulator: %d episodes (total %d) of %d simulators, want %d", len(eps), total, len(sims), want)
	}
	got := render(page(KindFidSim, "family", "disclosure"))
	if !strings.Contains(got, "<h1>Every user simulator</h1>") || !strings.Contains(got, fmt.Sprintf("1–%d of %d", min(PageSize, want), want)) ||
		!strings.Contains(got, "<th>user simulator</th>") {
		t.Errorf("the page over every simulator:\n%s", got)
	}
	if err := site.render(ctx, &bytes.Buffer{}, page(KindFidSim), liveLinker{}); !errors.Is(err, ErrNotFound) {
		t.Errorf("no simulator and no family: %v, want not found", err)
	}
}

// TestReviewedEpisodesPointToTheWorkbench: each reviewed episode a batch
// assigns says how to open it in the review workbench (the command for
// its batch, shell-quoted, and its path there), as text: the workbench is
// another server whose address and token ub view cannot know, so no link
// points there; an episode no batch assigns gets no such note.
func TestReviewedEpisodesPointToTheWorkbench(t *testing.T) {
	ctx := context.Background()
	ws, err := queries.Open(ctx, "", queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if err := reviewtest.Insert(ctx, ws, reviewtest.Three()); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, id := range []string{"sim-a", "sim-b", "sim-c"} {
		if _, err := queries.SaveDecision(ctx, ws, queries.Decision{SimulationID: id, Reviewer: "ann", Kind: "human", Outcome: "no_error", Source: "web", DecidedAt: at}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ws.Conn().ExecContext(ctx, `INSERT INTO rv_assignments (batch, reviewer, position, simulation_id)
		VALUES ('s1-n2', 'ann', 1, 'sim-a'), ('s9', 'bob', 1, 'sim-a'), ('pilot ''2''', 'ann', 1, 'sim-b')`); err != nil {
		t.Fatal(err)
	}
	site, err := NewSite(ctx, ws.Conn(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := site.render(ctx, &buf, page(KindReview, "domain", "all"), liveLinker{}); err != nil {
		t.Fatal(err)
	}
	got := buf.String()
	for _, want := range []string{
		`open in the workbench: <code>ub review serve --batch s1-n2</code>, then <code>/episode?id=sim-a</code>`,
		`open in the workbench: <code>ub review serve --batch &#39;pilot &#39;\&#39;&#39;2&#39;\&#39;&#39;&#39;</code>, then <code>/episode?id=sim-b</code>`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the page lacks %s:\n%s", want, got)
		}
	}
	if c := strings.Count(got, "open in the workbench:"); c != 2 {
		t.Errorf("%d workbench notes, want 2 (sim-c is in no batch)", c)
	}
	if strings.Contains(got, `href="/episode?`) || strings.Contains(got, `href="http`) {
		t.Errorf("the page links into the workbench:\n%s", got)
	}
}

// TestWriteSiteRecordsBeforeWriting: WriteSite names every file to its
// record callback once, before the file exists, a level of its walk at a
// time (far fewer calls than files), and the names recorded are the files
// it wrote; over the fidelity study with its family rows, whose pages over
// every simulator are part of the site.
func TestWriteSiteRecordsBeforeWriting(t *testing.T) {
	ctx := context.Background()
	ws, err := queries.Open(ctx, "", queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if _, err := synth.WriteFidelity(ctx, ws, synth.FidelityOptions{Seed: 2}); err != nil {
		t.Fatal(err)
	}
	rep := t.TempDir()
	report := "# Report\n\n| family | simulator | domain |\n| --- | --- | --- |\n| disclosure | all | all |\n| goal\\_deviation | user\\_simulator:gemma-4-26b@t1 | retail |\n\n![f](f.svg)\n"
	if err := os.WriteFile(filepath.Join(rep, "report.md"), []byte(report), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(rep, "f.svg"), []byte("<svg xmlns=\"http://www.w3.org/2000/svg\"/>"), 0o644); err != nil {
		t.Fatal(err)
	}
	site, err := NewSite(ctx, ws.Conn(), Options{Grader: "synth-grader", ReportDir: rep})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	recorded := map[string]int{}
	calls := 0
	sum, err := site.WriteSite(ctx, dir, func(rels []string) error {
		calls++
		for _, r := range rels {
			recorded[r]++
			if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(r))); err == nil {
				t.Errorf("%s recorded after it was written", r)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	})
	if len(files) != len(recorded) || len(files) != sum.Files {
		t.Errorf("%d files written (summary %d), %d recorded", len(files), sum.Files, len(recorded))
	}
	for _, f := range files {
		if recorded[f] != 1 {
			t.Errorf("%s recorded %d times", f, recorded[f])
		}
	}
	if recorded["fig/f.svg"] != 1 || recorded["view.css"] != 1 || recorded[FileName(page(KindFidSim, "family", "disclosure"))] != 1 {
		t.Errorf("the figure, style sheet or the family's page over every simulator is missing: %v", recorded)
	}
	if calls*10 > len(files) {
		t.Errorf("%d calls for %d files: not a level of the walk at a time", calls, len(files))
	}
}

// TestEpisodeEvidenceOfIsEachEpisodesOwn: what the published site reads
// for a batch of episode pages (queries.EpisodeEvidenceOf) is, episode by
// episode, what the page reads alone (ReviewEpisode, ViewEpisodeReward,
// ViewVerdicts, ViewChecks, ViewReviewDecisions), on the synthetic
// fidelity study (verdicts, checks, tool calls) with reviews, and on the
// review fixtures (probe findings); an id the workspace does not hold is
// left out.
func TestEpisodeEvidenceOfIsEachEpisodesOwn(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		name, grader string
		fill         func(ws *queries.Workspace) error
	}{
		{"synthetic fidelity", synth.FidelityGrader, func(ws *queries.Workspace) error {
			_, err := synth.WriteFidelity(ctx, ws, synth.FidelityOptions{Seed: 2})
			return err
		}},
		{"review fixtures", "", func(ws *queries.Workspace) error { return reviewtest.Insert(ctx, ws, reviewtest.Three()) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws, err := queries.Open(ctx, "", queries.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer ws.Close()
			if err := tc.fill(ws); err != nil {
				t.Fatal(err)
			}
			db := ws.Conn()
			rows, err := db.QueryContext(ctx, "SELECT simulation_id FROM ep_episodes ORDER BY hash(simulation_id) LIMIT 40")
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for rows.Next() {
				var id string
				if err := rows.Scan(&id); err != nil {
					t.Fatal(err)
				}
				ids = append(ids, id)
			}
			rows.Close()
			for _, id := range ids[:min(2, len(ids))] {
				// Checks, out of order, and one probe finding at the
				// episode level (the synthetic study stores none).
				for _, row := range []string{"'db', 0, 'db_match', NULL, true, 1.0, '{\"a\": 1}'",
					"'action', 1, 'book', 'assistant', false, 0.0, NULL", "'action', 0, 'get_user', 'user', NULL, NULL, NULL"} {
					if _, err := ws.Conn().ExecContext(ctx, "INSERT INTO ep_checks VALUES ('"+id+"', "+row+")"); err != nil {
						t.Fatal(err)
					}
				}
				if _, err := ws.Conn().ExecContext(ctx, "INSERT INTO ep_probe_findings VALUES ('"+id+"', 'P2', NULL, 'never called toggle_airplane_mode', NULL)"); err != nil {
					t.Fatal(err)
				}
			}
			for i, id := range ids[:min(3, len(ids))] {
				for _, d := range []queries.Decision{
					{SimulationID: id, Reviewer: "ann", Kind: "human", Outcome: "error", Source: "web", DecidedAt: at, Errors: []queries.ReviewError{
						{TurnIdx: sql.NullInt64{Int64: int64(i), Valid: true}, Code: "hallucination", Severity: "minor", Note: "n"}, {Code: "other", Severity: "minor"}}},
					{SimulationID: id, Reviewer: "zoe", Kind: "adjudicator", Outcome: "no_error", Source: "web", DecidedAt: at},
				} {
					if _, err := queries.SaveDecision(ctx, ws, d); err != nil {
						t.Fatal(err)
					}
				}
			}
			got, err := queries.EpisodeEvidenceOf(ctx, db, tc.grader, append(ids, "no-such-episode"))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(ids) {
				t.Errorf("%d episodes' evidence for %d held and one not", len(got), len(ids))
			}
			var calls, verdicts, checks, reviews, probes int
			for _, id := range ids {
				var want queries.EpisodeEvidence
				if want.View, err = queries.ReviewEpisode(ctx, db, id); err != nil {
					t.Fatal(err)
				}
				if want.Reward, err = queries.ViewEpisodeReward(ctx, db, id); err != nil {
					t.Fatal(err)
				}
				if want.Verdicts, err = queries.ViewVerdicts(ctx, db, tc.grader, id); err != nil {
					t.Fatal(err)
				}
				if want.Checks, err = queries.ViewChecks(ctx, db, id); err != nil {
					t.Fatal(err)
				}
				if want.Reviews, err = queries.ViewReviewDecisions(ctx, db, id); err != nil {
					t.Fatal(err)
				}
				if g := got[id]; g == nil || !reflect.DeepEqual(*g, want) {
					t.Errorf("%s: batch %+v\nalone %+v", id, g, want)
				}
				for _, m := range want.View.Messages {
					calls += len(m.Calls)
				}
				verdicts, checks, reviews, probes = verdicts+len(want.Verdicts), checks+len(want.Checks), reviews+len(want.Reviews), probes+len(want.View.Probes)
			}
			t.Logf("%d episodes: %d tool calls, %d verdicts, %d checks, %d decisions, %d probe findings", len(ids), calls, verdicts, checks, reviews, probes)
			if calls == 0 || checks == 0 || reviews == 0 || probes == 0 || tc.grader != "" && verdicts == 0 {
				t.Errorf("the comparison saw no tool call, check, decision, probe finding or verdict")
			}
		})
	}
}

// TestMomentCountsItsTurns: a moment page counts its turns and messages
// as English does ("1 turn", "3 earlier turns", "0 earlier messages").
func TestMomentCountsItsTurns(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{{0, "0 turns"}, {1, "1 turn"}, {2, "2 turns"}, {11, "11 turns"}} {
		if got := counted(c.n, "turn"); got != c.want {
			t.Errorf("counted(%d) = %q, want %q", c.n, got, c.want)
		}
	}
	ctx := context.Background()
	_, s, points := synthSite(t)
	// At N = 1 the prompt shows one turn, its session's others not.
	var p queries.PointRow
	for _, pt := range points {
		if pt.PriorTurns >= 3 {
			p = pt
			break
		}
	}
	var buf bytes.Buffer
	if err := s.render(ctx, &buf, Page{Kind: KindMoment, Q: url.Values{"point": {p.ID}, "n": {"1"}, "k": {"1"}}}, liveLinker{}); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("Live session: 1 turn (N = 1), %d earlier turns not shown", p.PriorTurns-1)
	if !strings.Contains(buf.String(), want) || !strings.Contains(buf.String(), "History: the developer's 1 earlier message (K = 1)") {
		t.Errorf("the moment page at N = 1, K = 1 does not say %q and its one earlier message:\n%.3000s", want, buf.String())
	}
}
