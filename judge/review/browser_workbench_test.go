package review

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/ub-bench/ub/judge/review/reviewtest"
	"github.com/ub-bench/ub/queries"
)

// setClock is a clock the test moves by hand.
type setClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *setClock) now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *setClock) set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

// TestBrowserUndoSkipDeepLinkTime drives the workbench in Chromium: a
// deep link with the token lands on its episode (and drops the token);
// the time per decision is measured by the server (a clock the test sets:
// served at T0, saved at T0+42 s) and by the browser; an undo withdraws
// the latest revision and the one before stands again (and counts); a
// skip is recorded and leaves no decision, and undoing it brings the
// episode back; an id of 300 characters wraps instead of widening the
// page.
func TestBrowserUndoSkipDeepLinkTime(t *testing.T) {
	eps := reviewtest.Three()
	long := "sim-" + strings.Repeat("x9", 148) // 300 characters, no break
	eps[2].ID = long
	ws := newWorkspace(t, "", eps, "alice")
	defer ws.Close()
	ln, hosts, err := Listen(context.Background(), "127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	clk := &setClock{t: t0}
	srv, err := NewServer(ws, Options{Batch: "b1", Reviewers: []string{"alice"}, Hosts: hosts, Clock: clk.now})
	if err != nil {
		t.Fatal(err)
	}
	hs := &httptest.Server{Listener: ln, Config: &http.Server{Handler: srv}}
	hs.Start()
	defer hs.Close()
	base := hs.URL
	queue, err := queries.ReviewQueue(context.Background(), ws.Conn(), "b1", "alice")
	if err != nil || len(queue) != 3 {
		t.Fatalf("queue %v %v", queue, err)
	}
	ids := []string{queue[0].SimulationID, queue[1].SimulationID, queue[2].SimulationID}
	token := strings.TrimPrefix(srv.URLs(base)[0].URL, base+"/?token=")
	ctx := browser(t)
	onEpisode := func(id string) chromedp.Action[chromedp.Void] {
		return chromedp.WaitVisible(chromedp.CSS(`body[data-id="` + id + `"]`))
	}
	do := func(name string, acts ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		sctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		defer cancel()
		if err := chromedp.Do(sctx, acts...); err != nil {
			loc, _ := chromedp.Run(ctx, chromedp.Location())
			body, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("body")))
			t.Fatalf("step %q: %v (at %s: %.300s)", name, err, loc, body)
		}
	}
	decision := func(id string) (queries.Decision, bool) {
		t.Helper()
		d, ok, err := queries.GetDecision(context.Background(), ws.Conn(), id, "alice")
		if err != nil {
			t.Fatal(err)
		}
		return d, ok
	}
	shot := func(name string) {
		png := runT(t, ctx, chromedp.FullScreenshot(100))
		dir := os.Getenv("UB_REVIEW_SHOTS") // keep the screenshots to look at them
		if dir == "" {
			dir = t.TempDir()
		}
		if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// 1. The deep link: the token URL of episode 1 opens it, not the queue,
	// and the address bar no longer holds the token.
	wall := time.Now()
	do("deep link", chromedp.Navigate(base+"/episode?id="+ids[0]+"&token="+token), onEpisode(ids[0]))
	if loc := runT(t, ctx, chromedp.Location()); strings.Contains(loc, "token") || !strings.HasSuffix(loc, "/episode?id="+ids[0]) {
		t.Errorf("deep link landed at %s, want %s/episode?id=%s without the token", loc, base, ids[0])
	}
	// 2. 42 s later (the server's clock): x s. The decision carries the
	// server's 42 s and the browser's own measure.
	clk.set(t0.Add(42 * time.Second))
	do("x s on episode 1", chromedp.KeyEvent("x"), chromedp.KeyEvent("s"), onEpisode(ids[1]), chromedp.WaitVisible(chromedp.CSS(`#saved`)))
	elapsed := time.Since(wall).Seconds()
	d, ok := decision(ids[0])
	if !ok || d.Outcome != queries.OutcomeNoError || d.Revision != 1 || !d.LeadTime.Valid || d.LeadTime.Float64 != 42 {
		t.Fatalf("episode 1 after x s: %+v, want no_error, revision 1, lead time 42 s", d)
	}
	if !d.ClientTime.Valid || d.ClientTime.Float64 <= 0 || d.ClientTime.Float64 > elapsed {
		t.Errorf("client time %v, want between 0 and the %.1f s the test took", d.ClientTime, elapsed)
	}
	// 3. Back (p), record an error (1), save 10 s after the page was
	// served: revision 2 counts.
	do("p back to episode 1", chromedp.KeyEvent("p"), onEpisode(ids[0]))
	clk.set(t0.Add(52 * time.Second))
	do("1 s on episode 1", chromedp.KeyEvent("1"), chromedp.KeyEvent("s"), onEpisode(ids[1]), chromedp.WaitVisible(chromedp.CSS(`#saved`)))
	if d, _ := decision(ids[0]); d.Outcome != queries.OutcomeError || d.Revision != 2 || d.LeadTime.Float64 != 10 {
		t.Fatalf("episode 1 after 1 s: %+v, want error, revision 2, lead time 10 s", d)
	}
	// 4. u on episode 2 undoes the save just made: back on episode 1,
	// revision 1 stands again and counts; revision 2 is kept, undone.
	do("u undoes", chromedp.KeyEvent("u"), onEpisode(ids[0]), chromedp.WaitVisible(chromedp.CSS(`#undone`)))
	if d, _ := decision(ids[0]); d.Outcome != queries.OutcomeNoError || d.Revision != 1 {
		t.Fatalf("episode 1 after the undo: %+v, want revision 1 (no_error) standing", d)
	}
	if st, err := Stats(context.Background(), ws.Conn(), StatsOptions{Reviewer: "alice"}); err != nil || st.Episodes != 1 || st.Overall.Error.K != 0 {
		t.Errorf("statistics after the undo: %d episodes, %d with an error (%v); want 1 and 0: the standing revision counts", st.Episodes, st.Overall.Error.K, err)
	}
	decided := runT(t, ctx, chromedp.Text(chromedp.CSS(`#decided`)))
	if !strings.Contains(decided, "revision 1, 42 s") {
		t.Errorf("decided line %q, want revision 1 with its 42 s", decided)
	}
	history := runT(t, ctx, chromedp.TextContent(chromedp.CSS(`#history`)))
	if !strings.Contains(history, "revision 2: simulator error") || !strings.Contains(history, "undone") {
		t.Errorf("history %q, want revision 2 kept and marked undone", history)
	}
	revs, err := queries.DecisionRevisions(context.Background(), ws.Conn(), ids[0], "alice")
	if err != nil || len(revs) != 2 || !revs[0].UndoneAt.Valid || revs[1].UndoneAt.Valid {
		t.Errorf("history in the workspace: %+v %v", revs, err)
	}
	shot("episode-undone.png")
	// 5. Skip episode 2 (i): recorded, no decision; the queue says so.
	do("i skips episode 2", chromedp.Navigate(base+"/episode?id="+ids[1]), onEpisode(ids[1]), chromedp.KeyEvent("i"), onEpisode(ids[2]),
		chromedp.WaitVisible(chromedp.CSS(`#saved`)))
	if saved := runT(t, ctx, chromedp.Text(chromedp.CSS(`#saved`))); !strings.Contains(saved, "your skip on") {
		t.Errorf("flash after the skip: %q", saved)
	}
	if _, ok := decision(ids[1]); ok {
		t.Errorf("episode 2 has a decision after the skip")
	}
	revs, err = queries.DecisionRevisions(context.Background(), ws.Conn(), ids[1], "alice")
	if err != nil || len(revs) != 1 || revs[0].Outcome != queries.OutcomeSkipped {
		t.Errorf("episode 2's history after the skip: %+v %v", revs, err)
	}
	// The long id wraps: pages that show it (in the flash, in the title) are
	// no wider than the window.
	wide := `document.documentElement.scrollWidth > document.documentElement.clientWidth`
	if ids[1] != long {
		t.Fatalf("the queue's second episode is %s: the test expects the long id there (seed 1)", ids[1])
	}
	if runT(t, ctx, chromedp.Evaluate[bool](wide)) {
		t.Errorf("the page saying the 300-character id is wider than the window")
	}
	do("the long id's page", chromedp.Navigate(base+"/episode?id="+long), onEpisode(long))
	if runT(t, ctx, chromedp.Evaluate[bool](wide)) {
		t.Errorf("the episode page of a 300-character id is wider than the window")
	}
	shot("episode-long-id.png")
	do("queue", chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(`#queue`)))
	if s := runT(t, ctx, chromedp.Text(chromedp.CSS(`#skipped`))); s != "1 skipped" {
		t.Errorf("queue says %q, want 1 skipped", s)
	}
	if p := runT(t, ctx, chromedp.Text(chromedp.CSS(`#progress`))); p != "1 of 3 decided" {
		t.Errorf("queue progress %q, want 1 of 3 decided", p)
	}
	if runT(t, ctx, chromedp.Evaluate[bool](wide)) {
		t.Errorf("the queue with a 300-character id is wider than the window")
	}
	shot("queue.png")
	// 6. Undo the skip on episode 2 (u, no save to undo on this page: the
	// episode's own latest revision): it is open again.
	do("u undoes the skip", chromedp.Navigate(base+"/episode?id="+ids[1]), onEpisode(ids[1]), chromedp.KeyEvent("u"), chromedp.WaitVisible(chromedp.CSS(`#undone`)))
	if open := runT(t, ctx, chromedp.Text(chromedp.CSS(`#decided`))); open != "Not reviewed yet." {
		t.Errorf("episode 2 after undoing the skip: %q", open)
	}
	if items, err := queries.ReviewQueue(context.Background(), ws.Conn(), "b1", "alice"); err != nil || items[1].Outcome != "" {
		t.Errorf("episode 2 in the queue after undoing the skip: %+v %v", items, err)
	}
}
