package review

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/ub-bench/ub/judge/review/reviewtest"
	"github.com/ub-bench/ub/queries"
)

// browser starts a headless Chromium (reviewtest.Browser).
func browser(t *testing.T) context.Context { return reviewtest.Browser(t) }

// TestBrowserReviewWithKeyboard reviews three episodes with the keyboard
// only, reloads every page and finds each decision, in the page and in the
// workspace, and screenshots the episode page.
func TestBrowserReviewWithKeyboard(t *testing.T) {
	ws := newWorkspace(t, "", reviewtest.Three(), "alice")
	defer ws.Close()
	base, srv := startServer(t, ws, "alice")
	ctx := browser(t)
	queue, err := queries.ReviewQueue(context.Background(), ws.Conn(), "b1", "alice")
	if err != nil || len(queue) != 3 {
		t.Fatalf("queue %v %v", queue, err)
	}
	ids := []string{queue[0].SimulationID, queue[1].SimulationID, queue[2].SimulationID}
	onEpisode := func(id string) chromedp.Action[chromedp.Void] {
		return chromedp.WaitVisible(chromedp.CSS(`body[data-id="` + id + `"]`))
	}
	// Step 1: the token URL opens the queue; n opens the first episode.
	// Step 2: episode 1: x (no simulator error), s (save) -> episode 2.
	// Step 3: episode 2: j (next turn), 1 (hallucination at that turn),
	//         c (severity -> critical_hindered), s -> episode 3.
	// Step 4: episode 3: 6 (premature_termination at the first user turn),
	//         s -> back to the queue, which says 3 of 3 decided.
	steps := []struct {
		name string
		acts []chromedp.Action[chromedp.Void]
	}{
		{"open the token URL", []chromedp.Action[chromedp.Void]{chromedp.Navigate(srv.URLs(base)[0].URL), chromedp.WaitVisible(chromedp.CSS(`#queue`))}},
		{"n opens episode 1", []chromedp.Action[chromedp.Void]{chromedp.KeyEvent("n"), onEpisode(ids[0])}},
		{"x s on episode 1", []chromedp.Action[chromedp.Void]{chromedp.KeyEvent("x"), chromedp.KeyEvent("s"), onEpisode(ids[1]), chromedp.WaitVisible(chromedp.CSS(`#saved`))}},
		{"j 1 c s on episode 2", []chromedp.Action[chromedp.Void]{chromedp.KeyEvent("j"), chromedp.KeyEvent("1"), chromedp.KeyEvent("c"), chromedp.KeyEvent("s"), onEpisode(ids[2])}},
		{"6 s on episode 3", []chromedp.Action[chromedp.Void]{chromedp.KeyEvent("6"), chromedp.KeyEvent("s"), chromedp.WaitVisible(chromedp.CSS(`#queue`))}},
	}
	for _, st := range steps {
		sctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		err := chromedp.Do(sctx, st.acts...)
		cancel()
		if err != nil {
			loc, _ := chromedp.Run(ctx, chromedp.Location())
			body, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("body")))
			t.Fatalf("keyboard review, step %q: %v (at %s: %.300s)", st.name, err, loc, body)
		}
	}
	progress, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#progress`)))
	if err != nil {
		t.Fatal(err)
	}
	if progress != "3 of 3 decided" {
		t.Errorf("queue progress %q, want 3 of 3 decided", progress)
	}
	// The turn the keys chose: episode 2's first user turn is selected on
	// load, j moves to the next message; episode 3 records at its first
	// user turn.
	firstUser := func(id string) (first, next int) {
		ep, err := queries.ReviewEpisode(context.Background(), ws.Conn(), id)
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range ep.Messages {
			if m.Role == "user" {
				return m.TurnIdx, ep.Messages[i+1].TurnIdx
			}
		}
		t.Fatalf("%s has no user message", id)
		return 0, 0
	}
	_, turn2 := firstUser(ids[1])
	turn3, _ := firstUser(ids[2])
	want := []struct {
		outcome, code, severity string
		turn                    int
	}{
		{"no_error", "", "", 0},
		{"error", "hallucination", "critical_hindered", turn2},
		{"error", "premature_termination", "minor", turn3},
	}
	// Step 5: reload every episode page: the form shows each decision.
	for i, id := range ids {
		err := chromedp.Do(ctx,
			chromedp.Navigate(base+"/episode?id="+id),
			onEpisode(id),
			chromedp.Reload(),
			onEpisode(id),
		)
		if err != nil {
			t.Fatalf("reload %s: %v", id, err)
		}
		noneChecked := runT(t, ctx, chromedp.JavascriptAttribute[bool](chromedp.CSS(`#outcome-none`), "checked"))
		errChecked := runT(t, ctx, chromedp.JavascriptAttribute[bool](chromedp.CSS(`#outcome-error`), "checked"))
		code := runT(t, ctx, chromedp.Value(chromedp.CSS(`select[name="code0"]`)))
		sev := runT(t, ctx, chromedp.Value(chromedp.CSS(`select[name="severity0"]`)))
		turn := runT(t, ctx, chromedp.Value(chromedp.CSS(`select[name="turn0"]`)))
		decided := runT(t, ctx, chromedp.Text(chromedp.CSS(`#decided`)))
		w := want[i]
		if noneChecked != (w.outcome == "no_error") || errChecked != (w.outcome == "error") {
			t.Errorf("episode %d after reload: no-error %v error %v, want %s", i+1, noneChecked, errChecked, w.outcome)
		}
		if w.outcome == "error" && (code != w.code || sev != w.severity || turn != itoa(w.turn)) {
			t.Errorf("episode %d after reload: turn %s code %s severity %s, want %d %s %s", i+1, turn, code, sev, w.turn, w.code, w.severity)
		}
		if !strings.Contains(decided, "alice at 2026-03-01T10:00:00Z") {
			t.Errorf("episode %d: decided line %q", i+1, decided)
		}
		d, ok, err := queries.GetDecision(context.Background(), ws.Conn(), id, "alice")
		if err != nil || !ok || d.Outcome != w.outcome {
			t.Errorf("episode %d in the workspace: %+v %v %v", i+1, d, ok, err)
		}
	}
	// Step 6: a screenshot of the episode page.
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/episode?id="+ids[1]), onEpisode(ids[1])); err != nil {
		t.Fatal(err)
	}
	png := runT(t, ctx, chromedp.FullScreenshot(100))
	shot := filepath.Join(t.TempDir(), "episode.png")
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(shot)
	if err != nil || fi.Size() < 20_000 || string(png[1:4]) != "PNG" {
		t.Errorf("screenshot %s: %d bytes, want a PNG of at least 20 kB", shot, fi.Size())
	}
	if out := os.Getenv("UB_REVIEW_SCREENSHOT"); out != "" { // refresh docs/review-episode.png
		os.WriteFile(out, png, 0o644)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// runT runs one action and returns its value, failing the test on error.
func runT[T any](t *testing.T, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
