package review

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/ub-bench/ub/judge/review/reviewtest"
)

func hostileEpisode() reviewtest.Fixture {
	all := strings.Join(reviewtest.XSS, "\n")
	var msgs []reviewtest.Message
	msgs = append(msgs, reviewtest.Message{Role: "assistant", Content: "Hello"})
	for i, p := range reviewtest.XSS {
		msgs = append(msgs, reviewtest.Message{Role: "user", Content: p})
		msgs = append(msgs, reviewtest.Message{Role: "assistant", Content: p, Calls: []reviewtest.Call{{Name: p, Arguments: `{"q": "` + strings.ReplaceAll(p, `"`, `\"`) + `"}`}}})
		msgs = append(msgs, reviewtest.Message{Role: "tool", Requestor: "assistant", Content: p})
		_ = i
	}
	var probes []reviewtest.Probe
	for i, p := range reviewtest.XSS {
		probes = append(probes, reviewtest.Probe{Probe: "P1", Turn: 1 + 3*i, Evidence: p})
	}
	probes = append(probes, reviewtest.Probe{Probe: "P2", Turn: -1, Evidence: reviewtest.XSS[1]})
	return reviewtest.Fixture{ID: `x"><img src=x onerror=window.__xss=99>`, Domain: `<b onmouseover=window.__xss=98>d</b>`, TaskID: `<script>window.__xss=97</script>`,
		Reward: 0, Reason: all, Known: all, Messages: msgs, Probes: probes}
}

// TestXSSCorpusDoesNotExecute loads an episode made of hostile text in a
// real browser: no payload runs, no element of a payload reaches the DOM
// (so escaping holds even without the CSP), every payload is shown as
// text, and bidirectional overrides are made visible.
func TestXSSCorpusDoesNotExecute(t *testing.T) {
	ep := hostileEpisode()
	ws := newWorkspace(t, "", []reviewtest.Fixture{ep}, "alice")
	defer ws.Close()
	base, srv := startServer(t, ws, "alice")
	ctx := browser(t)
	if err := chromedp.Do(ctx,
		chromedp.Navigate(srv.URLs(base)[0].URL),
		chromedp.WaitVisible(chromedp.CSS(`#queue`)),
	); err != nil {
		t.Fatal(err)
	}
	check := func(where string) {
		t.Helper()
		flag := runT(t, ctx, chromedp.Evaluate[string](`String(window.__xss) + "|" + String(window.top.__xss)`))
		if flag != "undefined|undefined" {
			t.Errorf("%s: a payload ran: window.__xss = %s", where, flag)
		}
		// Elements a payload would create; the page itself has none of them.
		bad := runT(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll(
			"img, svg, iframe, object, math, style, link[href^='data:'], meta[http-equiv], bdo, b, #jsurl, #xb, a[href^='javascript:'], [onerror], [onload], [onmouseover], [ontoggle], [onfocus], input[autofocus], form[action^='javascript:']"
		).length`))
		if bad != 0 {
			t.Errorf("%s: %d payload elements in the DOM", where, bad)
		}
		scripts := runT(t, ctx, chromedp.Evaluate[string](`Array.from(document.scripts).map(s => s.src.replace(location.origin, "")).join(",")`))
		if scripts != "/static/app.js" {
			t.Errorf("%s: scripts %q, want only /static/app.js", where, scripts)
		}
	}
	check("queue page")
	// Open the episode through the queue's link (its id is hostile too).
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#queue a`)), chromedp.WaitVisible(chromedp.CSS(`#conversation`))); err != nil {
		t.Fatal(err)
	}
	// Unfold every tool call and result, hover and focus what is there, so
	// event-handler payloads get their chance.
	if err := chromedp.Do(ctx,
		chromedp.Evaluate[chromedp.Void](`document.querySelectorAll("details").forEach(d => d.open = true)`),
		chromedp.KeyEvent("j"), chromedp.KeyEvent("j"),
	); err != nil {
		t.Fatal(err)
	}
	check("episode page")
	text := runT(t, ctx, chromedp.Text(chromedp.CSS(`#conversation`)))
	for _, p := range reviewtest.XSS {
		shown := strings.ReplaceAll(strings.ReplaceAll(p, "\u202E", "[U+202E]"), "\u202C", "[U+202C]")
		if !strings.Contains(text, strings.SplitN(shown, "\n", 2)[0]) {
			t.Errorf("payload not shown as text: %q", p)
		}
	}
	if strings.ContainsRune(text, '\u202E') {
		t.Error("a right-to-left override reached the page unmarked")
	}
	title := runT(t, ctx, chromedp.Title())
	if !strings.Contains(title, `x"><img`) {
		t.Errorf("title %q, want the hostile id as text", title)
	}
}
