package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/ub-bench/ub/judge/review/reviewtest"
	"github.com/ub-bench/ub/queries"
)

// viewWorkspaces are the studies the viewer is tested on: the synthetic
// UserBench and user-fidelity studies of ub synth, and the shared
// corpus's real tau2-bench airline results with their probes, rubrics and
// verdicts.
type viewWorkspaces struct{ userbench, fidelity, airline string }

func makeViewWorkspaces(t *testing.T) viewWorkspaces {
	t.Helper()
	dir := t.TempDir()
	corpus := filepath.Join(sharedCorpus(), "tau2")
	w := viewWorkspaces{filepath.Join(dir, "ub.duckdb"), filepath.Join(dir, "fid.duckdb"), filepath.Join(dir, "airline.duckdb")}
	steps := []struct {
		db    string
		steps [][]string
	}{
		{w.userbench, [][]string{{"synth"}}},
		{w.fidelity, [][]string{{"synth", "--study", "fidelity"}}},
		{w.airline, [][]string{
			{"ingest", filepath.Join(corpus, "results", "airline__*.json")},
			{"probes"},
			{"rubrics", "import", filepath.Join(corpus, "fidelity", "rubrics.jsonl")},
			{"verdicts", "import", "--grader", "mine", filepath.Join(corpus, "fidelity", "verdicts", "*.jsonl")},
		}},
	}
	for _, s := range steps {
		for _, step := range s.steps {
			var args []string
			for _, a := range step {
				if m, _ := filepath.Glob(a); len(m) > 0 && a != m[0] {
					args = append(args, m...)
					continue
				}
				args = append(args, a)
			}
			if code, _, errs := ub(t, append([]string{"--db", s.db}, args...)...); code != 0 {
				t.Fatalf("ub %v: exit %d: %s", step, code, errs)
			}
		}
	}
	return w
}

// viewProc is ub view running as its own process.
type viewProc struct {
	cmd      *exec.Cmd
	url      string // the token URL
	base     string // http://host:port
	stderr   *syncBuffer
	finished bool
}

// syncBuffer is a child's stderr, written by the copying goroutine while
// the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor waits up to 10 s for the child's stderr to hold want.
func (s *syncBuffer) waitFor(want string) bool {
	for range 100 {
		if strings.Contains(s.String(), want) {
			return true
		}
		time.Sleep(100 * time.Millisecond)
	}
	return false
}

// startView runs ub view on db and waits for its token URL.
func startView(t *testing.T, db string) *viewProc {
	t.Helper()
	a, _ := json.Marshal([]string{"--db", db, "view"})
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "UB_TEST_MAIN_ARGS="+string(a))
	stdout, _ := cmd.StdoutPipe()
	v := &viewProc{cmd: cmd, stderr: &syncBuffer{}}
	cmd.Stderr = v.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !v.finished {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	br := bufio.NewReader(stdout)
	for v.url == "" {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("ub view output: %v (stderr %s)", err, v.stderr)
		}
		if i := strings.Index(line, "http://"); i >= 0 && strings.Contains(line, "token=") {
			v.url = strings.TrimSpace(line[i:])
		}
	}
	v.base = v.url[:strings.Index(v.url, "/?token=")]
	go io.Copy(io.Discard, br)
	return v
}

// stop sends Ctrl-C and wants exit 0.
func (v *viewProc) stop(t *testing.T) {
	t.Helper()
	v.cmd.Process.Signal(syscall.SIGINT)
	err := v.cmd.Wait()
	v.finished = true
	if err != nil {
		t.Errorf("ub view ended with %v after SIGINT, want exit 0 (stderr %s)", err, v.stderr)
	}
	if !v.stderr.waitFor("ub view: stopped") {
		t.Errorf("stderr %q, want the line saying it stopped", v.stderr)
	}
}

func fileHash(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// TestViewRefusals: ub view without a workspace is a missing
// prerequisite (exit 6); a non-loopback address, an argument or an
// unknown judge is a usage error (exit 2); nothing is served.
func TestViewRefusals(t *testing.T) {
	dir := t.TempDir()
	if code, _, errs := ub(t, "--db", filepath.Join(dir, "none.duckdb"), "view"); code != exitNoData || !strings.Contains(errs, "no workspace") {
		t.Errorf("no workspace: exit %d %s, want %d", code, errs, exitNoData)
	}
	db := filepath.Join(dir, "ub.duckdb")
	reviewWorkspace(t, db)
	for _, args := range [][]string{{"view", "--addr", "0.0.0.0:0"}, {"view", "extra"}, {"view", "--judge", "nobody"}} {
		if code, out, errs := ub(t, append([]string{"--db", db}, args...)...); code != exitUsage || strings.Contains(out, "token=") {
			t.Errorf("%v: exit %d (%s %s), want %d and no URL", args, code, out, errs, exitUsage)
		}
	}
}

// TestView runs ub view and ub publish's site on the three studies.
func TestView(t *testing.T) {
	t.Parallel()
	w := makeViewWorkspaces(t)
	t.Run("guards", func(t *testing.T) { testViewGuards(t, w.userbench) })
	t.Run("walk", func(t *testing.T) { testViewWalk(t, w) })
	t.Run("xss", func(t *testing.T) { testViewXSS(t, w) })
	t.Run("site", func(t *testing.T) { testPublishSite(t, w) })
}

var linkAttr = regexp.MustCompile(`(?:href|src|action)="([^"]*)"`)
var idAttr = regexp.MustCompile(` id="([^"]*)"`)

// testPublishSite: ub publish writes site/index.html and the pages it
// links to; every link of every page resolves to a file inside site/ (and
// to an element of it, for a link with a fragment); no page has a script;
// a list says how many rows the site leaves out; two runs of the reviewed
// fidelity workspace give the same bytes (publish.txtar checks the demo's
// whole bundle, whose site holds every study, byte for byte).
func testPublishSite(t *testing.T, w viewWorkspaces) {
	reviewed := reviewedWorkspace(t, w.fidelity, 12)
	// The fidelity workspace with its reviews, whose site has the review
	// pages besides the fidelity ones, is published twice.
	for _, tc := range []struct {
		name, db      string
		entries, says []string
		runs          []string
	}{
		{"fidelity and review", reviewed, []string{"review-episodes-", "fid-sim-"},
			[]string{"The first 10 of 12: this published site shows at most 10 rows of each list"}, []string{"b1", "b2"}},
		{"userbench", w.userbench, []string{"compare-", "ub-sim-"}, []string{
			"The first 10 of 480: this published site shows at most 10 rows of each list",
			"The first 10 of 20: this published site shows at most 10 rows of each list"}, []string{"b1"}},
		{"airline", w.airline, []string{"fid-sim-"}, nil, []string{"b1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var sites []map[string][]byte
			for _, b := range tc.runs {
				if code, _, errs := ub(t, "--db", tc.db, "publish", filepath.Join(dir, b)); code != 0 {
					t.Fatalf("publish: exit %d: %s", code, errs)
				}
				files := map[string][]byte{}
				root := filepath.Join(dir, b, "site")
				err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
					if err != nil || d.IsDir() {
						return err
					}
					rel, _ := filepath.Rel(root, p)
					files[filepath.ToSlash(rel)], err = os.ReadFile(p)
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
				sites = append(sites, files)
			}
			site := sites[0]
			for _, again := range sites[1:] {
				if len(site) != len(again) {
					t.Errorf("two runs wrote %d and %d files", len(site), len(again))
				}
				for f, b := range site {
					if !bytes.Equal(b, again[f]) {
						t.Errorf("%s differs between two runs", f)
					}
				}
			}
			if _, ok := site["index.html"]; !ok {
				t.Fatal("no site/index.html")
			}
			ids := func(b []byte) map[string]bool {
				out := map[string]bool{}
				for _, m := range idAttr.FindAllSubmatch(b, -1) {
					out[string(m[1])] = true
				}
				return out
			}
			var total int
			entries, says := map[string]int{}, map[string]bool{}
			for f, b := range site {
				total += len(b)
				if !strings.HasSuffix(f, ".html") {
					continue
				}
				if bytes.Contains(b, []byte("<script")) {
					t.Errorf("%s has a script", f)
				}
				for _, e := range tc.entries {
					if strings.HasPrefix(f, e) {
						entries[e]++
					}
				}
				for _, w := range tc.says {
					if bytes.Contains(b, []byte(w)) {
						says[w] = true
					}
				}
				for _, m := range linkAttr.FindAllSubmatch(b, -1) {
					link := html.UnescapeString(string(m[1]))
					file, frag, _ := strings.Cut(link, "#")
					if strings.Contains(file, ":") || strings.HasPrefix(file, "/") || strings.Contains(file, "..") || strings.Contains(file, "?") {
						t.Errorf("%s links %q: not a file inside the site", f, link)
						continue
					}
					target := b
					if file != "" {
						tb, ok := site[file]
						if !ok {
							t.Errorf("%s links %q: no such file in site/", f, link)
							continue
						}
						target = tb
					}
					if frag != "" && !ids(target)[frag] {
						t.Errorf("%s links %q: no element with that id", f, link)
					}
				}
			}
			for _, e := range tc.entries {
				if entries[e] == 0 {
					t.Errorf("no %s page: the report's rows link nowhere", e)
				}
			}
			for _, w := range tc.says {
				if !says[w] {
					t.Errorf("no page says %q", w)
				}
			}
			t.Logf("site of %s: %d files, %d bytes", tc.name, len(site), total)
		})
	}
}

// reviewedWorkspace is a copy of db with n of its episodes reviewed: two
// people's decisions on each (one finds an error at turn 1) and an
// adjudication.
func reviewedWorkspace(t *testing.T, db string, n int) string {
	t.Helper()
	ctx := context.Background()
	to := filepath.Join(t.TempDir(), "reviewed.duckdb")
	copyFile(t, db, to)
	ws, err := queries.Open(ctx, to, queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	rows, err := ws.Conn().QueryContext(ctx, "SELECT simulation_id FROM ep_episodes ORDER BY simulation_id LIMIT ?", n)
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
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, id := range ids {
		for _, d := range []queries.Decision{
			{SimulationID: id, Reviewer: "ann", Kind: "human", Outcome: "error", Source: "web", DecidedAt: at, Errors: []queries.ReviewError{
				{TurnIdx: sql.NullInt64{Int64: 1, Valid: true}, Code: "hallucination", Severity: "critical_hindered", Note: "made up an id"}}},
			{SimulationID: id, Reviewer: "bob", Kind: "human", Outcome: "no_error", Source: "web", DecidedAt: at},
			{SimulationID: id, Reviewer: "zoe", Kind: "adjudicator", Outcome: "error", Source: "web", DecidedAt: at, Errors: []queries.ReviewError{
				{Code: "hallucination", Severity: "minor"}}},
		} {
			if _, err := queries.SaveDecision(ctx, ws, d); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(ids) != n {
		t.Fatalf("%d episodes to review, want %d", len(ids), n)
	}
	return to
}

// sqlString is s as a SQL string literal.
func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// copyFile copies a workspace file for a test that changes it.
func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// testViewXSS puts the corpus into the names and texts every page shows
// (a simulator's and a user simulator's name, the session's turns, the
// generations, the transcript, tool calls, criteria and the grader's
// reasons) and opens each page type in a real browser: no payload runs,
// no element of a payload reaches the DOM, the pages have no script, and
// a right-to-left override is shown as [U+202E].
func testViewXSS(t *testing.T, w viewWorkspaces) {
	all := strings.Join(reviewtest.XSS, "\n")
	dir := t.TempDir()
	hostileSim := `<img src=x onerror="window.__xss=20">`
	hostileUser := `"><script>window.__xss=21</script>`
	for _, tc := range []struct {
		name, from string
		sql        []string
		pages      func(b string) []string
	}{
		{"userbench", w.userbench, []string{
			"UPDATE generations SET simulator = " + sqlString(hostileSim) + " WHERE simulator = 'osim-4b'",
			"UPDATE generations SET text = " + sqlString(all) + " WHERE point_id = 'p0a646616468e'",
			"UPDATE turns SET text = " + sqlString(all) + " WHERE session_id = (SELECT session_id FROM points WHERE id = 'p0a646616468e')",
		}, func(b string) []string {
			return []string{b + "/", b + "/ub/sim?cond=noprofile&sim=" + url.QueryEscape(hostileSim),
				b + "/ub/dev?cond=noprofile&dev=dev-0033&sim=" + url.QueryEscape(hostileSim),
				b + "/ub/moment?k=0&n=14&point=p0a646616468e",
				b + "/compare?cond=noprofile&cond2=noprofile&sim=" + url.QueryEscape(hostileSim) + "&sim2=gpt-5.5&study=ub",
				b + "/search?q=window.__xss", b + "/search?q=" + url.QueryEscape("<script>") + "&role=generation&sim=" + url.QueryEscape(hostileSim)}
		}},
		{"fidelity", w.fidelity, []string{
			"UPDATE ep_runs SET user_sim = " + sqlString(hostileUser) + " WHERE user_sim = 'user_simulator:sonnet-4-6@t1'",
			"UPDATE ep_messages SET content = " + sqlString(all) + " WHERE simulation_id = 'synth-sonnet-4-6-airline-0'",
			"UPDATE ep_tool_calls SET name = " + sqlString(hostileSim) + " WHERE simulation_id = 'synth-sonnet-4-6-airline-0'",
			"UPDATE ep_verdicts SET reason = " + sqlString(all) + " WHERE simulation_id = 'synth-sonnet-4-6-airline-0'",
			"UPDATE ep_rubric_criteria SET text = " + sqlString(all) + " WHERE task_id = '0' AND domain = 'airline'",
			"INSERT INTO rv_decisions (simulation_id, reviewer, kind, outcome, source, decided_at, revision) VALUES ('synth-sonnet-4-6-airline-0', " +
				sqlString(hostileSim) + ", 'human', 'error', 'web', TIMESTAMP '2026-01-02 03:04:05', 1)",
			"INSERT INTO rv_errors (simulation_id, reviewer, idx, turn_idx, code, severity, note) VALUES ('synth-sonnet-4-6-airline-0', " +
				sqlString(hostileSim) + ", 0, 1, " + sqlString(hostileUser) + ", 'minor', " + sqlString(all) + ")",
		}, func(b string) []string {
			return []string{b + "/", b + "/fid/sim?sim=" + url.QueryEscape(hostileUser), b + "/fid/sim?domain=airline&sim=" + url.QueryEscape(hostileUser),
				b + "/fid/episode?id=synth-sonnet-4-6-airline-0", b + "/fid/episode?id=synth-gemma-4-26b-airline-0",
				b + "/review/episodes?domain=airline", b + "/review/episodes?domain=all",
				b + "/compare?sim=" + url.QueryEscape(hostileUser) + "&sim2=" + url.QueryEscape("user_simulator:gemma-4-26b@t1") + "&study=fid",
				b + "/search?q=window.__xss", b + "/search?q=" + url.QueryEscape(`"><script>`) + "&sim=" + url.QueryEscape(hostileUser)}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := filepath.Join(dir, tc.name+".duckdb")
			copyFile(t, tc.from, db)
			for _, q := range tc.sql {
				if code, _, errs := ub(t, "--db", db, "sql", "--write", q); code != 0 {
					t.Fatalf("%s: exit %d: %s", q, code, errs)
				}
			}
			v := startView(t, db)
			ctx := reviewtest.Browser(t)
			runStep(t, ctx, "token", chromedp.Navigate(v.url), chromedp.WaitVisible(chromedp.CSS(`#report`)))
			for _, p := range tc.pages(v.base) {
				runStep(t, ctx, p, chromedp.Navigate(p), chromedp.WaitVisible(chromedp.CSS(`#crumbs`)))
				evalT[chromedp.Void](t, ctx, `document.querySelectorAll("details").forEach(d => d.open = true)`)
				if flag := evalT[string](t, ctx, `String(window.__xss) + "|" + String(window.top.__xss)`); flag != "undefined|undefined" {
					t.Errorf("%s: a payload ran: window.__xss = %s", p, flag)
				}
				bad := evalT[int](t, ctx, `document.querySelectorAll(
					"img:not(.figure), svg, iframe, object, math, style, link[href^='data:'], meta[http-equiv], bdo, #jsurl, #xb, a[href^='javascript:'], [onerror], [onload], [onmouseover], [ontoggle], [onfocus], input[autofocus], form[action^='javascript:']"
				).length`)
				if bad != 0 {
					t.Errorf("%s: %d payload elements in the DOM", p, bad)
				}
				if n := evalT[int](t, ctx, `document.scripts.length`); n != 0 {
					t.Errorf("%s: %d scripts, want none", p, n)
				}
				text := evalT[string](t, ctx, `document.body.innerText`)
				if strings.ContainsRune(text, '\u202E') {
					t.Errorf("%s: a right-to-left override reached the page unmarked", p)
				}
				if !strings.Contains(text, "window.__xss") {
					t.Errorf("%s: the payloads are not shown as text", p)
				}
				if (strings.Contains(p, "/ub/moment") || strings.Contains(p, "sonnet-4-6-airline-0")) && !strings.Contains(text, "[U+202E]exe.gnp[U+202C]") {
					t.Errorf("%s: the right-to-left override is not shown as [U+202E]", p)
				}
			}
			v.stop(t)
		})
	}
}

// testViewGuards: a request without the token gets no data, nor does one
// naming another host or writing; the token opens a session; Ctrl-C ends
// the server with exit 0; the workspace file is unchanged.
func testViewGuards(t *testing.T, db string) {
	before := fileHash(t, db)
	v := startView(t, db)
	if !v.stderr.waitFor("read-only: 189 developers, 480 points, 22560 generations") {
		t.Errorf("stderr %q, want what the workspace holds", v.stderr)
	}
	get := func(c *http.Client, method, url, host string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, url, nil)
		if host != "" {
			req.Host = host
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	plain := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, path := range []string{"/", "/ub/sim?sim=claude-opus-4.8&cond=noprofile", "/fig/leaderboard.svg", "/static/view.css", "/ub/moment?point=p0a646616468e&n=14&k=0"} {
		code, body := get(plain, "GET", v.base+path, "")
		if code != http.StatusUnauthorized || strings.Contains(body, "claude") || strings.Contains(body, "<svg") || strings.Contains(body, "dev-0") {
			t.Errorf("GET %s without the token: %d %.200q, want 401 and no data", path, code, body)
		}
	}
	if code, _ := get(plain, "GET", v.base+"/?token=wrong", ""); code != http.StatusUnauthorized {
		t.Errorf("a wrong token: %d, want 401", code)
	}
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	if code, body := get(c, "GET", v.url, ""); code != 200 || !strings.Contains(body, "Leaderboard") {
		t.Fatalf("the token URL: %d %.300s", code, body)
	}
	if code, _ := get(c, "GET", v.base+"/", "evil.example:80"); code != http.StatusMisdirectedRequest {
		t.Errorf("another Host: %d, want 421", code)
	}
	for _, m := range []string{"POST", "PUT", "DELETE"} {
		if code, _ := get(c, m, v.base+"/", ""); code != http.StatusMethodNotAllowed {
			t.Errorf("%s: %d, want 405", m, code)
		}
	}
	resp, err := c.Get(v.base + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "script-src") {
		t.Errorf("CSP %q, want default-src 'none' and no script source", csp)
	}
	if code, body := get(c, "GET", v.base+"/fig/leaderboard.svg", ""); code != 200 || !strings.Contains(body, "<svg") {
		t.Errorf("the leaderboard figure: %d %.100s", code, body)
	}
	if code, _ := get(c, "GET", v.base+"/fig/..%2fub.duckdb", ""); code != http.StatusNotFound {
		t.Errorf("a path out of the report: %d, want 404", code)
	}
	v.stop(t)
	if fileHash(t, db) != before {
		t.Error("ub view changed the workspace file")
	}
}

// run runs chromedp actions with a step timeout, naming the step.
func runStep(t *testing.T, ctx context.Context, step string, acts ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(sctx, acts...); err != nil {
		loc, _ := chromedp.Run(ctx, chromedp.Location())
		body, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("body")))
		t.Fatalf("step %q: %v (at %s: %.400s)", step, err, loc, body)
	}
}

func evalT[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

// testViewWalk clicks, in a real browser, from the front page to a
// moment (leaderboard row, developer, moment) and from a UFS row to an
// episode whose failing criterion links to the user turn it failed on.
func testViewWalk(t *testing.T, w viewWorkspaces) {
	t.Run("userbench", func(t *testing.T) {
		v := startView(t, w.userbench)
		ctx := reviewtest.Browser(t)
		runStep(t, ctx, "front page", chromedp.Navigate(v.url), chromedp.WaitVisible(chromedp.CSS(`#report`)))
		// The leaderboard is the report's first table that links to a
		// UserBench row.
		row := evalT[string](t, ctx, `document.querySelector('#report table a[href^="/ub/sim"]').textContent`)
		if row != "claude-opus-4.8" {
			t.Errorf("the first leaderboard row links %q, want claude-opus-4.8", row)
		}
		if n := evalT[int](t, ctx, `document.querySelectorAll('#report img[src$=".svg"]').length`); n < 10 {
			t.Errorf("%d SVG figures on the front page, want every figure", n)
		}
		runStep(t, ctx, "leaderboard row", chromedp.Click(chromedp.CSS(`#report table a[href^="/ub/sim"]`)), chromedp.WaitVisible(chromedp.CSS(`#developers`)))
		if n := evalT[int](t, ctx, `document.querySelectorAll('#developers tbody tr').length`); n != 20 {
			t.Errorf("%d developers, want the leaderboard's 20", n)
		}
		runStep(t, ctx, "developer", chromedp.Click(chromedp.CSS(`#developers tbody a`)), chromedp.WaitVisible(chromedp.CSS(`#moments`)))
		runStep(t, ctx, "moment", chromedp.Click(chromedp.CSS(`#moments tbody a`)), chromedp.WaitVisible(chromedp.CSS(`#real-text`)))
		if n := evalT[int](t, ctx, `document.querySelectorAll('#gens tbody tr').length`); n != 8 {
			t.Errorf("%d simulators' generations on the moment's page, want 8", n)
		}
		if move := evalT[string](t, ctx, `document.querySelector('#real-move').textContent`); move == "" {
			t.Error("the real message's move is not shown")
		}
		if n := evalT[int](t, ctx, `document.querySelectorAll('#live .turn').length`); n < 1 {
			t.Error("no live turn shown")
		}
		v.stop(t)
	})
	t.Run("search", func(t *testing.T) { testViewSearch(t, w) })
	for _, tc := range []struct{ name, db string }{{"fidelity", w.fidelity}, {"airline", w.airline}} {
		t.Run(tc.name, func(t *testing.T) {
			v := startView(t, tc.db)
			ctx := reviewtest.Browser(t)
			runStep(t, ctx, "front page", chromedp.Navigate(v.url), chromedp.WaitVisible(chromedp.CSS(`#report`)))
			runStep(t, ctx, "UFS row", chromedp.Click(chromedp.CSS(`#table-1-summary-per-simulator + table a`)), chromedp.WaitVisible(chromedp.CSS(`#episodes`)))
			// The episodes with a failing criterion.
			runStep(t, ctx, "filter f = 0", chromedp.SetValue(chromedp.CSS(`select[name=filter]`), "f0"),
				chromedp.Submit(chromedp.CSS(`form.filters`)), chromedp.WaitVisible(chromedp.CSS(`#episodes tbody a`)))
			runStep(t, ctx, "episode", chromedp.Click(chromedp.CSS(`#episodes tbody a`)), chromedp.WaitVisible(chromedp.CSS(`#transcript`)))
			href := evalT[string](t, ctx, `(document.querySelector('#verdicts tr.verdict-fail a.turnlink') || {}).getAttribute?.('href') || ''`)
			if href == "" {
				t.Fatal("no failing criterion links to a turn")
			}
			runStep(t, ctx, "failing criterion", chromedp.Click(chromedp.CSS(`#verdicts tr.verdict-fail a.turnlink`)))
			hash := evalT[string](t, ctx, `location.hash`)
			target := evalT[string](t, ctx, `(document.querySelector(':target') || {className: ''}).className`)
			turn := evalT[string](t, ctx, `document.querySelector('#verdicts tr.verdict-fail a.turnlink').textContent`)
			shown := evalT[string](t, ctx, `(document.querySelector(':target .meta') || {textContent: ''}).textContent`)
			if hash != href || !strings.Contains(target, "role-user") || !strings.Contains(target, "failed") || shown != "#"+turn+" user" {
				t.Errorf("the failing criterion's link (turn %s) lands on %q (class %q, %q), want %s, that failed user turn", turn, hash, target, shown, href)
			}
			v.stop(t)
		})
	}
}

// testViewSearch types a text into the search form of a page's header,
// narrows it on the search page, and clicks a hit: a generation lands on
// its moment's generations, a simulated user's message on its episode at
// that turn, each holding the text.
func testViewSearch(t *testing.T, w viewWorkspaces) {
	for _, tc := range []struct {
		name, db, text, role, lands string
	}{
		// The synthetic study's first sessions lead to no moment (their
		// turns are listed unlinked): narrow to the generations.
		{"userbench", w.userbench, "retryloop", "generation", "#real-text"},
		{"fidelity", w.fidelity, "booking", "user", "#transcript"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := startView(t, tc.db)
			ctx := reviewtest.Browser(t)
			runStep(t, ctx, "front page", chromedp.Navigate(v.url), chromedp.WaitVisible(chromedp.CSS(`#report`)))
			runStep(t, ctx, "search from the header", chromedp.SendKeys(chromedp.CSS(`#search input[name=q]`), tc.text),
				chromedp.Submit(chromedp.CSS(`#search input[name=q]`)), chromedp.WaitVisible(chromedp.CSS(`#searched`)))
			if n := evalT[int](t, ctx, `document.querySelectorAll('#hits li').length`); n != 20 {
				t.Errorf("%d hits on the first page, want 20", n)
			}
			runStep(t, ctx, "narrow to a role", chromedp.SetValue(chromedp.CSS(`#search-form select[name=role]`), tc.role),
				chromedp.Submit(chromedp.CSS(`#search-form`)), chromedp.WaitVisible(chromedp.CSS(`#hits a.hitlink`)))
			roles := evalT[[]string](t, ctx, `Array.from(document.querySelectorAll('#hits .tag.role')).map(e => e.textContent)`)
			for _, r := range roles {
				if r != tc.role {
					t.Errorf("a hit of role %q after narrowing to %s", r, tc.role)
				}
			}
			marked := evalT[string](t, ctx, `document.querySelector('#hits mark').textContent`)
			if strings.ToLower(marked) != tc.text {
				t.Errorf("the first hit marks %q, want %q in any case", marked, tc.text)
			}
			href := evalT[string](t, ctx, `document.querySelector('#hits a.hitlink').getAttribute('href')`)
			runStep(t, ctx, "hit", chromedp.Click(chromedp.CSS(`#hits a.hitlink`)), chromedp.WaitVisible(chromedp.CSS(tc.lands)))
			hash := evalT[string](t, ctx, `location.hash`)
			target := evalT[string](t, ctx, `(document.querySelector(':target') || {innerText: ''}).innerText`)
			if hash == "" || !strings.HasSuffix(href, hash) || !strings.Contains(strings.ToLower(target), tc.text) {
				t.Errorf("the hit %s lands on %q holding %.200q, want its turn holding %q", href, hash, target, tc.text)
			}
			v.stop(t)
		})
	}
}
