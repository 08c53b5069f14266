package review

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/ub-bench/ub/judge/review/reviewtest"
)

// xssPayloads is the corpus of hostile conversation text: each, if it
// ran, would set window.__xss or leave an element the page never makes.
var xssPayloads = []string{
	`<script>window.__xss=1</script>`,
	`<img src=x onerror="window.__xss=2">`,
	`<svg onload=window.__xss=3>`,
	`<a id="jsurl" href="javascript:window.__xss=4">click me</a>`,
	`"><script>window.__xss=5</script>`,
	`'><img src=x onerror=window.__xss=6>`,
	`</pre></article></section><script>window.__xss=7</script>`,
	`<iframe src="javascript:window.top.__xss=8"></iframe>`,
	`<body onload=window.__xss=9>`,
	`<math><mtext><table><mglyph><style><img src=x onerror=window.__xss=10>`,
	`<details open ontoggle=window.__xss=11>`,
	`javascript:window.__xss=12`,
	`<input autofocus onfocus=window.__xss=13>`,
	`<style>body{display:none}</style><link rel=stylesheet href=data:,x>`,
	`{{.CSRF}} <!-- <script>window.__xss=14</script> -->`,
	`<scr<script>ipt>window.__xss=15</scr</script>ipt>`,
	"\u202Eexe.gnp\u202C <bdo dir=rtl>evil</bdo>",
	`<object data="javascript:window.__xss=16"></object>`,
	`<form action="javascript:window.__xss=17"><button id=xb>go</button></form>`,
	`<meta http-equiv="refresh" content="0;url=javascript:window.__xss=18">`,
}

func hostileEpisode() reviewtest.Fixture {
	all := strings.Join(xssPayloads, "\n")
	var msgs []reviewtest.Message
	msgs = append(msgs, reviewtest.Message{Role: "assistant", Content: "Hello"})
	for i, p := range xssPayloads {
		msgs = append(msgs, reviewtest.Message{Role: "user", Content: p})
		msgs = append(msgs, reviewtest.Message{Role: "assistant", Content: p, Calls: []reviewtest.Call{{Name: p, Arguments: `{"q": "` + strings.ReplaceAll(p, `"`, `\"`) + `"}`}}})
		msgs = append(msgs, reviewtest.Message{Role: "tool", Requestor: "assistant", Content: p})
		_ = i
	}
	var probes []reviewtest.Probe
	for i, p := range xssPayloads {
		probes = append(probes, reviewtest.Probe{Probe: "P1", Turn: 1 + 3*i, Evidence: p})
	}
	probes = append(probes, reviewtest.Probe{Probe: "P2", Turn: -1, Evidence: xssPayloads[1]})
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
	for _, p := range xssPayloads {
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
