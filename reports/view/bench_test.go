package view

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ub-bench/ub/queries"
)

// scaleWorkspace is a workspace file holding episodes tau2 episodes of 7
// user simulators in 4 domains (10 messages, one tool call and 5 verdicts
// each, the first failing at the first user turn of every other episode)
// and a UserBench study of points frozen points of 2,000 developers with
// 8 simulators' generations under 2 conditions at 3 live windows (48 a
// point) and a judge's label of each; every 20th episode reviewed by two
// reviewers in one batch. Rows are written in key order, as
// ub ingest and ub generate write them.
func scaleWorkspace(tb testing.TB, episodes, points int) *queries.Workspace {
	tb.Helper()
	ctx := context.Background()
	ws, err := queries.Open(ctx, filepath.Join(tb.TempDir(), "scale.duckdb"), queries.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ws.Close() })
	e, p := strconv.Itoa(episodes), strconv.Itoa(points)
	for _, stmt := range []string{
		`SET preserve_insertion_order = true`,
		`INSERT INTO ep_runs (run_id, source_file, format, domain, user_sim, agent)
		 SELECT 'run-' || s || '-' || d, 'f.json', 'tau2', ['airline', 'retail', 'telecom', 'banking'][d + 1], 'user_simulator:sim-' || s || '@t0', 'llm_agent:a@t0'
		 FROM range(7) a(s), range(4) b(d)`,
		`INSERT INTO ep_episodes (simulation_id, run_id, source_file, source_index, content_hash, domain, task_id, trial, reward, n_messages)
		 SELECT printf('ep-%07d', i), 'run-' || (i % 7) || '-' || ((i // 7) % 4), 'f.json', i, 'h', ['airline', 'retail', 'telecom', 'banking'][(i // 7) % 4 + 1],
		        CAST((i // 28) % 100 AS VARCHAR), (i // 2800)::INTEGER, (i % 3 > 0)::INTEGER::DOUBLE, 10
		 FROM range(` + e + `) t(i)`,
		`INSERT INTO ep_messages (simulation_id, idx, turn_idx, role, content, n_tool_calls)
		 SELECT printf('ep-%07d', i), j, j, CASE WHEN j % 2 = 0 THEN 'user' ELSE 'assistant' END,
		        'message ' || j || ' of episode ' || i || ': ' || repeat('words ', 30), (j = 3)::INTEGER
		 FROM range(` + e + `) t(i), range(10) u(j)`,
		`INSERT INTO ep_tool_calls (simulation_id, msg_idx, call_idx, requestor, name, arguments)
		 SELECT printf('ep-%07d', i), 3, 0, 'assistant', 'get_reservation', '{"id": "ABC"}' FROM range(` + e + `) t(i)`,
		`INSERT INTO ep_rubric_criteria (criterion_id, domain, task_id, family, mode, quote, quote_source, text, written_by, status, source_file, source_line)
		 SELECT d || '-' || t || '-c' || c, d, CAST(t AS VARCHAR), ['disclosure', 'groundedness', 'goal_deviation', 'omitted_info', 'disclosure'][c + 1],
		        'm', 'q', 'reason_for_call', 'The user keeps this part of its task.', 'bench', 'accepted', 'r.jsonl', c
		 FROM (VALUES ('airline'), ('retail'), ('telecom'), ('banking')) v(d), range(100) a(t), range(5) b(c)`,
		`INSERT INTO ep_verdicts (simulation_id, criterion_id, grader, verdict, turn_idx, reason, source_file, source_line)
		 SELECT printf('ep-%07d', i), ['airline', 'retail', 'telecom', 'banking'][(i // 7) % 4 + 1] || '-' || ((i // 28) % 100) || '-c' || c, 'g',
		        CASE WHEN c = 0 AND i % 2 = 0 THEN 'fail' ELSE 'pass' END, CASE WHEN c = 0 AND i % 2 = 0 THEN 0 END, 'because', 'v.jsonl', i
		 FROM range(` + e + `) t(i), range(5) u(c)`,
		`INSERT INTO developers SELECT printf('dev-%05d', d) FROM range(2000) t(d)`,
		`INSERT INTO sessions (id, developer, repo, source_format, source_file, source_line, content_hash, n_turns)
		 SELECT printf('s-%07d', i), printf('dev-%05d', i % 2000), 'r', 'x', 'f', i, 'h', 5 FROM range(` + p + `) t(i)`,
		`INSERT INTO turns (session_id, idx, role, text, is_command)
		 SELECT printf('s-%07d', i), j, CASE WHEN j % 2 = 0 THEN 'developer' ELSE 'agent' END, 'turn ' || j || ' ' || repeat('text ', 20), false
		 FROM range(` + p + `) t(i), range(5) u(j)`,
		`INSERT INTO points (id, developer, split, session_id, turn_idx, prior_turns, constant_dose)
		 SELECT printf('p-%07d', i), printf('dev-%05d', i % 2000), 'test', printf('s-%07d', i), 4, 4, false FROM range(` + p + `) t(i)`,
		`INSERT INTO labels (target, target_id, judge, move)
		 SELECT 'point', printf('p-%07d', i), 'j', ['approve', 'critical', 'directive', 'inquiry', 'other'][i % 5 + 1] FROM range(` + p + `) t(i)`,
		`INSERT INTO generations (id, point_id, simulator, condition, window_n, history_k, request_key, key_parts, text, prompt_version, trial)
		 SELECT printf('g-%07d-%d-%d-%d', i, s, c, n), printf('p-%07d', i), 'sim-' || s, ['noprofile', 'profile'][c + 1], [14, 4, 1][n + 1], 0, 'k', '{}',
		        'generated ' || repeat('text ', 15), 'v', 0
		 FROM range(` + p + `) t(i), range(8) a(s), range(2) b(c), range(3) d(n)`,
		`INSERT INTO labels (target, target_id, judge, move)
		 SELECT 'generation', id, 'j', ['approve', 'critical', 'directive', 'inquiry', 'other'][(hash(id) % 5)::BIGINT + 1] FROM generations`,
		// A review batch of every 20th episode, two reviewers each.
		`INSERT INTO rv_assignments (batch, reviewer, position, simulation_id)
		 SELECT 'b1', r, (i // 20 + 1)::INTEGER, printf('ep-%07d', i) FROM range(0, ` + e + `, 20) t(i), (VALUES ('ann'), ('bob')) v(r)`,
		`INSERT INTO rv_decisions (simulation_id, reviewer, kind, outcome, batch, source, decided_at, revision)
		 SELECT printf('ep-%07d', i), r, 'human', CASE WHEN i % 40 = 0 AND r = 'ann' THEN 'error' ELSE 'no_error' END, 'b1', 'web', TIMESTAMP '2026-01-02 03:04:05', 1
		 FROM range(0, ` + e + `, 20) t(i), (VALUES ('ann'), ('bob')) v(r)`,
	} {
		if _, err := ws.Conn().ExecContext(ctx, stmt); err != nil {
			tb.Fatalf("%v\n%s", err, stmt)
		}
	}
	return ws
}

// scalePages are a page of each kind over scaleWorkspace, each of a row,
// developer, point and episode in the middle of the workspace.
func scalePages(episodes, points int) []struct {
	name string
	p    Page
} {
	dev := fmt.Sprintf("dev-%05d", 1000)
	ep := fmt.Sprintf("ep-%07d", episodes/2/2*2)
	rare := fmt.Sprintf("of episode %d:", episodes/2)
	further := fmt.Sprintf("messages:%d", max(0, episodes/2*10-SearchWindow/2))
	rareSim := fmt.Sprintf("user_simulator:sim-%d@t0", episodes/2%7)
	rareDomain := []string{"airline", "retail", "telecom", "banking"}[episodes/2/7%4]
	return []struct {
		name string
		p    Page
	}{
		{"developers", page(KindUBSim, "sim", "sim-3", "cond", "profile")},
		{"developers-page-20", page(KindUBSim, "sim", "sim-3", "cond", "profile", "page", "20")},
		{"moments", page(KindUBDev, "sim", "sim-3", "cond", "profile", "dev", dev)},
		{"moments-misses", page(KindUBDev, "sim", "sim-3", "cond", "profile", "dev", dev, "outcome", "miss")},
		{"moment", page(KindMoment, "point", fmt.Sprintf("p-%07d", points/2), "n", "14", "k", "0")},
		{"episodes", page(KindFidSim, "sim", "user_simulator:sim-3@t0")},
		{"episodes-domain-f0", page(KindFidSim, "sim", "user_simulator:sim-3@t0", "domain", "retail", "filter", "f0", "page", "3")},
		{"episode", page(KindEpisode, "id", ep)},
		// Search: a text most turns hold; a text one episode's messages
		// hold, from the start (the window ends in the turns) and from
		// where its messages lie (the window reads 100,000 messages); a
		// text none holds; the rare text narrowed to a domain, a user
		// simulator and a role.
		{"search-common", page(KindSearch, "q", "TEXT")},
		{"search-rare", page(KindSearch, "q", rare)},
		{"search-rare-further", page(KindSearch, "q", rare, "at", further)},
		{"search-none-further", page(KindSearch, "q", "zebra", "at", further)},
		{"search-rare-filtered", page(KindSearch, "q", rare, "domain", rareDomain, "sim", rareSim, "role", "user")},
		{"compare-userbench", page(KindCompare, "study", "ub", "sim", "sim-3", "cond", "profile", "sim2", "sim-4", "cond2", "profile")},
		{"compare-fidelity", page(KindCompare, "study", "fid", "sim", "user_simulator:sim-3@t0", "sim2", "user_simulator:sim-4@t0")},
		{"reviewed", page(KindReview, "domain", "all")},
		{"reviewed-domain-page-3", page(KindReview, "domain", "retail", "page", "3")},
		{"sweep-cell", page(KindCell, "sim", "sim-3", "cond", "profile", "n", "4", "k", "0")},
		{"moments-profile-lift", page(KindUBDev, "sim", "sim-3", "cond", "profile", "dev", dev, "lift", "profile")},
		{"episodes-every-simulator-family", page(KindFidSim, "family", "disclosure")},
	}
}

// BenchmarkPagesAtScale renders each page kind over a workspace of 10,000
// and of 100,000 episodes, with 100,000 and 1,008,000 generations: ns/op
// is what a reader waits for (the server adds nothing but the copy), B/page
// the page's size, which must not grow with the workspace.
func BenchmarkPagesAtScale(b *testing.B) {
	ctx := context.Background()
	for _, sc := range []struct{ episodes, points int }{{10_000, 2_100}, {100_000, 21_000}} {
		ws := scaleWorkspace(b, sc.episodes, sc.points)
		site, err := NewSite(ctx, ws.Conn(), Options{Judge: "j", Grader: "g"})
		if err != nil {
			b.Fatal(err)
		}
		// Starting: NewSite reads the settings and writes the lists'
		// tables (queries.ViewWarm), once per ub view or site.
		b.Run(fmt.Sprintf("start/episodes=%d/generations=%d", sc.episodes, sc.points*48), func(b *testing.B) {
			for b.Loop() {
				if _, err := NewSite(ctx, ws.Conn(), Options{Judge: "j", Grader: "g"}); err != nil {
					b.Fatal(err)
				}
			}
		})
		for _, pg := range scalePages(sc.episodes, sc.points) {
			b.Run(fmt.Sprintf("%s/episodes=%d/generations=%d", pg.name, sc.episodes, sc.points*48), func(b *testing.B) {
				b.ReportAllocs()
				var size int
				for b.Loop() {
					var buf bytes.Buffer
					if err := site.render(ctx, &buf, pg.p, liveLinker{}); err != nil {
						b.Fatal(err)
					}
					size = buf.Len()
				}
				b.ReportMetric(float64(size), "B/page")
			})
		}
	}
}

// TestPagesAtScaleSmoke renders every benchmarked page once over a small
// scale workspace, so the benchmark's pages are known to exist; and says
// how long each took.
func TestPagesAtScaleSmoke(t *testing.T) {
	ctx := context.Background()
	ws := scaleWorkspace(t, 2_800, 2_000)
	site, err := NewSite(ctx, ws.Conn(), Options{Judge: "j", Grader: "g"})
	if err != nil {
		t.Fatal(err)
	}
	for _, pg := range scalePages(2_800, 2_000) {
		var buf bytes.Buffer
		start := time.Now()
		if err := site.render(ctx, &buf, pg.p, liveLinker{}); err != nil {
			t.Fatalf("%s: %v", pg.name, err)
		}
		t.Logf("%s: %v, %d bytes", pg.name, time.Since(start), buf.Len())
		if pg.p.Kind == KindSearch {
			if !bytes.Contains(buf.Bytes(), []byte(`id="searched"`)) {
				t.Errorf("%s: no account of what it searched", pg.name)
			}
			if hits := bytes.Contains(buf.Bytes(), []byte(`<li class="hit-row">`)); hits != !strings.Contains(pg.name, "none") {
				t.Errorf("%s: hits shown %v", pg.name, hits)
			}
			continue
		}
		if !bytes.Contains(buf.Bytes(), []byte("<table")) {
			t.Errorf("%s: no table", pg.name)
		}
	}
}
