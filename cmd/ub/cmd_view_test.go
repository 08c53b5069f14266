package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/ub-bench/ub/judge/review/reviewtest"
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

// TestView runs ub view and ub publish's site on the three studies.
func TestView(t *testing.T) {
	w := makeViewWorkspaces(t)
	t.Run("guards", func(t *testing.T) { testViewGuards(t, w.userbench) })
	t.Run("walk", func(t *testing.T) { testViewWalk(t, w) })
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
