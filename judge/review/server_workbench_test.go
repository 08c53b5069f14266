package review

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/ub-bench/ub/judge/review/reviewtest"
	"github.com/ub-bench/ub/queries"
)

// serve starts a workbench over ws with opts (Batch b1, loopback hosts,
// the fixed clock), returning its base URL and the server.
func serve(t *testing.T, ws *queries.Workspace, opts Options) (string, *Server) {
	t.Helper()
	ln, hosts, err := Listen(context.Background(), "127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	opts.Batch, opts.Hosts, opts.Clock = "b1", hosts, fixedClock
	srv, err := NewServer(ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	hs := &httptest.Server{Listener: ln, Config: &http.Server{Handler: srv}}
	hs.Start()
	t.Cleanup(hs.Close)
	return hs.URL, srv
}

func TestLanding(t *testing.T) {
	for in, want := range map[string]string{
		"/episode?id=sim%20a&token=T":       "/episode?id=sim+a",
		"/episode?token=T":                  "/",
		"/?page=3&token=T":                  "/?page=3",
		"/?page=-1&token=T":                 "/",
		"/?token=T&next=//evil.example":     "/",
		"//evil.example/episode?id=x":       "/",
		"/static/app.js?token=T":            "/",
		"/episode?id=x&token=T&saved=other": "/episode?id=x",
	} {
		u, err := url.Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := landing(u); got != want {
			t.Errorf("landing(%s) = %s, want %s", in, got, want)
		}
	}
}

// TestDeepLinkWithToken: the token on an episode's URL opens the session
// and redirects to that episode without the token.
func TestDeepLinkWithToken(t *testing.T) {
	ws := newWorkspace(t, "", reviewtest.Three(), "alice")
	defer ws.Close()
	base, srv := serve(t, ws, Options{Reviewers: []string{"alice"}})
	tok := strings.TrimPrefix(srv.URLs(base)[0].URL, base+"/?token=")
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(base + "/episode?id=sim-b&token=" + tok)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || loc != "/episode?id=sim-b" {
		t.Errorf("deep link: %d to %q, want 303 to /episode?id=sim-b", resp.StatusCode, loc)
	}
	resp, err = c.Get(base + "/episode?id=sim-b&token=wrong")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("deep link with a wrong token: %d, want 401", resp.StatusCode)
	}
}

// TestPrefillOnlyWhenTheBatchSaysSo: an LLM review fills the form only on a
// server whose batch names it; a decision saved from that form is marked,
// one saved from another is not.
func TestPrefillOnlyWhenTheBatchSaysSo(t *testing.T) {
	ctx := context.Background()
	ws := newWorkspace(t, "", reviewtest.Three(), "alice")
	defer ws.Close()
	llm := queries.Decision{SimulationID: "sim-a", Reviewer: "llm:r1", Kind: queries.KindLLM, Outcome: queries.OutcomeError, Source: "r1.json",
		DecidedAt: fixedClock(), Errors: []queries.ReviewError{{TurnIdx: sql.NullInt64{Int64: 1, Valid: true}, Code: "revealed_info_early", Severity: "minor", Note: "id unasked"}}}
	if _, err := queries.SaveDecision(ctx, ws, llm); err != nil {
		t.Fatal(err)
	}
	// Without a pre-fill in the batch: nothing of the LLM review shows.
	base, srv := serve(t, ws, Options{Reviewers: []string{"alice"}})
	c := login(t, srv, base, "alice")
	_, page := get(t, c, base+"/episode?id=sim-a")
	if strings.Contains(page, `id="prefill"`) || strings.Contains(page, "id unasked") || strings.Contains(page, `value="error" id="outcome-error" checked`) {
		t.Errorf("the LLM review shows on a batch without a pre-fill")
	}
	// With it: the form holds the LLM's decision, and says so.
	base, srv = serve(t, ws, Options{Reviewers: []string{"alice"}, Prefill: "llm:r1"})
	c = login(t, srv, base, "alice")
	_, page = get(t, c, base+"/episode?id=sim-a")
	for _, want := range []string{`id="prefill"`, `value="id unasked"`, `value="revealed_info_early" selected`, `id="outcome-error" checked`, `name="prefilled" value="llm:r1"`} {
		if !strings.Contains(page, want) {
			t.Errorf("pre-filled page lacks %s", want)
		}
	}
	post := func(id string, f url.Values) {
		t.Helper()
		f.Set("csrf", csrfOf(t, page))
		f.Set("id", id)
		resp, err := c.PostForm(base+"/decision", f)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("save %s: %d", id, resp.StatusCode)
		}
	}
	post("sim-a", url.Values{"outcome": {"error"}, "code0": {"revealed_info_early"}, "severity0": {"minor"}, "turn0": {"1"}, "prefilled": {"llm:r1"}})
	post("sim-b", url.Values{"outcome": {"no_error"}, "prefilled": {"llm:someone-else"}})
	for id, want := range map[string]string{"sim-a": "llm:r1", "sim-b": ""} {
		d, _, err := queries.GetDecision(ctx, ws.Conn(), id, "alice")
		if err != nil || d.Prefilled != want {
			t.Errorf("%s: prefilled %q (%v), want %q", id, d.Prefilled, err, want)
		}
	}
	// Decided: her own decision shows, not the pre-fill.
	_, page = get(t, c, base+"/episode?id=sim-a")
	if strings.Contains(page, `id="prefill"`) || !strings.Contains(page, "made on a form pre-filled by llm:r1") {
		t.Errorf("decided page: pre-fill notice shown or the mark missing")
	}
}

// TestUndoAndSkipRequireTheSession: /undo and the skip are writes: POST,
// same origin, CSRF token; an undo with nothing standing is 409.
func TestUndoAndSkipRequireTheSession(t *testing.T) {
	ws := newWorkspace(t, "", reviewtest.Three(), "alice")
	defer ws.Close()
	base, srv := serve(t, ws, Options{Reviewers: []string{"alice"}})
	c := login(t, srv, base, "alice")
	_, page := get(t, c, base+"/episode?id=sim-a")
	csrf := csrfOf(t, page)
	status := func(req *http.Request) int {
		t.Helper()
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	form := func(v url.Values, origin string) *http.Request {
		req, _ := http.NewRequest("POST", base+"/undo", strings.NewReader(v.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		return req
	}
	get, _ := http.NewRequest("GET", base+"/undo?id=sim-a&csrf="+csrf, nil)
	for name, c := range map[string]struct {
		req  *http.Request
		want int
	}{
		"GET":           {get, http.StatusMethodNotAllowed},
		"no csrf":       {form(url.Values{"id": {"sim-a"}}, ""), http.StatusForbidden},
		"other origin":  {form(url.Values{"id": {"sim-a"}, "csrf": {csrf}}, "http://evil.example"), http.StatusForbidden},
		"not in queue":  {form(url.Values{"id": {"sim-zz"}, "csrf": {csrf}, "revision": {"1"}}, ""), http.StatusNotFound},
		"nothing to do": {form(url.Values{"id": {"sim-a"}, "csrf": {csrf}, "revision": {"1"}}, ""), http.StatusConflict},
		"no revision":   {form(url.Values{"id": {"sim-a"}, "csrf": {csrf}}, ""), http.StatusBadRequest},
	} {
		if got := status(c.req); got != c.want {
			t.Errorf("undo, %s: %d, want %d", name, got, c.want)
		}
	}
	// A skip without the CSRF token stores nothing.
	resp, err := c.PostForm(base+"/decision", url.Values{"id": {"sim-a"}, "action": {"skip"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	revs, _ := queries.DecisionRevisions(context.Background(), ws.Conn(), "sim-a", "alice")
	if resp.StatusCode != http.StatusForbidden || len(revs) != 0 {
		t.Errorf("skip without csrf: %d, %d revisions stored", resp.StatusCode, len(revs))
	}
}

// TestQueuePages: the queue is cut in pages of PageSize episodes; a page
// past the end is 404, a page that is not a number 400.
func TestQueuePages(t *testing.T) {
	var eps []reviewtest.Fixture
	for i := range 25 {
		e := reviewtest.Three()[i%3]
		e.ID = fmt.Sprintf("sim-%02d", i)
		eps = append(eps, e)
	}
	ws := newWorkspace(t, "", eps, "alice")
	defer ws.Close()
	base, srv := serve(t, ws, Options{Reviewers: []string{"alice"}, PageSize: 10})
	c := login(t, srv, base, "alice")
	for page, want := range map[string]int{"": 10, "?page=2": 10, "?page=3": 5} {
		code, body := get(t, c, base+"/"+page)
		if n := strings.Count(body, `<td class="id">`); code != 200 || n != want {
			t.Errorf("queue%s: %d with %d episodes, want 200 with %d", page, code, n, want)
		}
		if !strings.Contains(body, "0 of 25 decided") {
			t.Errorf("queue%s does not count the whole queue", page)
		}
	}
	if code, _ := get(t, c, base+"/?page=4"); code != http.StatusNotFound {
		t.Errorf("page 4 of 3: %d, want 404", code)
	}
	if code, _ := get(t, c, base+"/?page=x"); code != http.StatusBadRequest {
		t.Errorf("page x: %d, want 400", code)
	}
	_, body := get(t, c, base+"/?page=2")
	if !strings.Contains(body, `href="/?page=1"`) || !strings.Contains(body, `href="/?page=3"`) || !strings.Contains(body, "episodes 11-20") {
		t.Errorf("page 2 lacks its links or range")
	}
}

// TestUndoReplayedChangesNothing: the undo form names the revision it
// withdraws; the same undo posted twice (a double key press, a replayed
// POST) withdraws that revision once, and the revision before it stands.
// Before, the second post withdrew revision 1 as well.
func TestUndoReplayedChangesNothing(t *testing.T) {
	ctx := context.Background()
	ws := newWorkspace(t, "", reviewtest.Three(), "alice")
	defer ws.Close()
	base, srv := serve(t, ws, Options{Reviewers: []string{"alice"}})
	c := login(t, srv, base, "alice")
	_, page := get(t, c, base+"/episode?id=sim-a")
	csrf := csrfOf(t, page)
	for _, outcome := range []string{"no_error", "no_error"} {
		resp, err := c.PostForm(base+"/decision", url.Values{"csrf": {csrf}, "id": {"sim-a"}, "outcome": {outcome}, "stay": {"1"}})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		page = string(b)
	}
	// The page after the second save offers to undo revision 2, in both
	// forms (the flash and the one under the history): the browser sends it.
	if n := strings.Count(page, `name="revision" value="2"`); n != 2 {
		t.Fatalf("page after the second save names revision 2 in %d undo forms, want 2", n)
	}
	undo := url.Values{"csrf": {csrf}, "id": {"sim-a"}, "revision": {"2"}}
	for i := range 2 {
		resp, err := c.PostForm(base+"/undo", undo)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("undo %d: status %d", i+1, resp.StatusCode)
		}
	}
	d, ok, err := queries.GetDecision(ctx, ws.Conn(), "sim-a", "alice")
	if err != nil || !ok || d.Revision != 1 {
		t.Fatalf("after the same undo twice: %+v %v %v, want revision 1 standing", d, ok, err)
	}
	// Revision 1 now stands: the page's undo names it.
	_, page = get(t, c, base+"/episode?id=sim-a")
	if !strings.Contains(page, `name="revision" value="1"`) {
		t.Errorf("page after the undo does not offer to undo revision 1")
	}
}
