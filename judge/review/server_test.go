package review

import (
	"context"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ub-bench/ub/judge/review/reviewtest"
	"github.com/ub-bench/ub/queries"
)

// newWorkspace opens path ("" in memory) with eps and a batch "b1" of
// every episode for the reviewers.
func newWorkspace(t *testing.T, path string, eps []reviewtest.Fixture, reviewers ...string) *queries.Workspace {
	t.Helper()
	ctx := context.Background()
	ws, err := queries.Open(ctx, path, queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := reviewtest.Insert(ctx, ws, eps); err != nil {
		t.Fatal(err)
	}
	cands, err := queries.ReviewCandidates(ctx, ws.Conn())
	if err != nil {
		t.Fatal(err)
	}
	as, err := Sample(cands, SampleOptions{N: len(eps), Seed: 1, Reviewers: reviewers})
	if err != nil {
		t.Fatal(err)
	}
	if err := queries.CreateReviewBatch(ctx, ws, queries.ReviewBatch{Batch: "b1", Seed: 1, N: len(eps), Reviewers: strings.Join(reviewers, ",")}, as); err != nil {
		t.Fatal(err)
	}
	return ws
}

var fixedClock = func() time.Time { return time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC) }

// startServer serves ws on a loopback port; it returns the base URL and
// the server.
func startServer(t *testing.T, ws *queries.Workspace, reviewers ...string) (string, *Server) {
	t.Helper()
	ln, hosts, err := Listen(context.Background(), "127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := NewServer(ws, Options{Batch: "b1", Reviewers: reviewers, Hosts: hosts, Clock: fixedClock})
	if err != nil {
		t.Fatal(err)
	}
	hs := &httptest.Server{Listener: ln, Config: &http.Server{Handler: srv}}
	hs.Start()
	t.Cleanup(hs.Close)
	return hs.URL, srv
}

// client logs in with the reviewer's token URL and returns a client
// holding the session cookie, and the CSRF token of the first episode page.
func login(t *testing.T, srv *Server, base, reviewer string) *http.Client {
	t.Helper()
	for _, u := range srv.URLs(base) {
		if u.Reviewer == reviewer {
			return loginURL(t, u.URL)
		}
	}
	t.Fatalf("no URL for %s", reviewer)
	return nil
}

func loginURL(t *testing.T, start string) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	resp, err := c.Get(start)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Request.URL.RawQuery != "" {
		t.Fatalf("login: %d at %s, want 200 at / without the token", resp.StatusCode, resp.Request.URL)
	}
	return c
}

func get(t *testing.T, c *http.Client, u string) (int, string) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func csrfOf(t *testing.T, page string) string {
	t.Helper()
	const mark = `name="csrf" value="`
	i := strings.Index(page, mark)
	if i < 0 {
		t.Fatalf("no csrf field in page")
	}
	rest := page[i+len(mark):]
	return rest[:strings.Index(rest, `"`)]
}

func TestEpisodePageShowsConversationBlueprintProbes(t *testing.T) {
	ws := newWorkspace(t, "", reviewtest.Three(), "alice")
	defer ws.Close()
	base, srv := startServer(t, ws, "alice")
	c := login(t, srv, base, "alice")
	code, page := get(t, c, base+"/episode?id=sim-a")
	if code != 200 {
		t.Fatalf("episode page: %d %s", code, page)
	}
	for _, want := range []string{
		"You want to cancel reservation ABC123.",         // blueprint
		"I am mia_li_3668 and I want to cancel",          // a user message
		"get_reservation_details",                        // a folded tool call
		`class="turn role-user probe-hit" data-turn="1"`, // the probe at its turn
		"user id mia_li_3668 before the agent asked",     // its evidence
	} {
		if !strings.Contains(page, want) {
			t.Errorf("episode page lacks %q", want)
		}
	}
	code, page = get(t, c, base+"/")
	if code != 200 || !strings.Contains(page, "0 of 3 decided") {
		t.Errorf("queue page: %d, want 0 of 3 decided:\n%s", code, page)
	}
}

func TestSecurity(t *testing.T) {
	ws := newWorkspace(t, "", reviewtest.Three(), "alice", "bob")
	defer ws.Close()
	base, srv := startServer(t, ws, "alice", "bob")
	c := login(t, srv, base, "alice")
	_, page := get(t, c, base+"/episode?id=sim-a")
	csrf := csrfOf(t, page)
	form := url.Values{"csrf": {csrf}, "id": {"sim-a"}, "outcome": {"no_error"}}

	t.Run("no session is refused", func(t *testing.T) {
		for _, p := range []string{"/", "/episode?id=sim-a", "/static/app.js"} {
			if code, _ := get(t, http.DefaultClient, base+p); code != http.StatusUnauthorized {
				t.Errorf("GET %s without session: %d, want 401", p, code)
			}
		}
		if code, _ := get(t, http.DefaultClient, base+"/?token=wrong"); code != http.StatusUnauthorized {
			t.Errorf("wrong token: %d, want 401", code)
		}
	})
	t.Run("foreign Host header is refused", func(t *testing.T) {
		req, _ := http.NewRequest("GET", base+"/", nil)
		req.Host = "evil.example:80"
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMisdirectedRequest {
			t.Errorf("foreign host: %d, want 421", resp.StatusCode)
		}
	})
	t.Run("write via GET is refused", func(t *testing.T) {
		if code, _ := get(t, c, base+"/decision?"+form.Encode()); code != http.StatusMethodNotAllowed {
			t.Errorf("GET /decision: %d, want 405", code)
		}
	})
	t.Run("write without CSRF token is refused", func(t *testing.T) {
		bad := url.Values{"id": {"sim-a"}, "outcome": {"no_error"}, "csrf": {"0000"}}
		resp, err := c.PostForm(base+"/decision", bad)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("bad csrf: %d, want 403", resp.StatusCode)
		}
	})
	t.Run("cross-origin write is refused", func(t *testing.T) {
		req, _ := http.NewRequest("POST", base+"/decision", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", "http://evil.example")
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("cross-origin: %d, want 403", resp.StatusCode)
		}
	})
	t.Run("CSP has no inline script", func(t *testing.T) {
		resp, err := c.Get(base + "/episode?id=sim-a")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		p := resp.Header.Get("Content-Security-Policy")
		if !strings.Contains(p, "script-src 'self'") || strings.Contains(p, "unsafe-inline") || !strings.Contains(p, "default-src 'none'") {
			t.Errorf("CSP %q", p)
		}
	})
	if _, ok, _ := queries.GetDecision(context.Background(), ws.Conn(), "sim-a", "alice"); ok {
		t.Fatal("a refused write was stored")
	}
	t.Run("a good write is stored with who and when", func(t *testing.T) {
		resp, err := c.PostForm(base+"/decision", form)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		d, ok, err := queries.GetDecision(context.Background(), ws.Conn(), "sim-a", "alice")
		if err != nil || !ok || d.Outcome != "no_error" || !d.DecidedAt.Equal(fixedClock()) || d.Kind != "human" || d.Batch != "b1" {
			t.Errorf("stored %+v ok %v err %v", d, ok, err)
		}
	})
	t.Run("non-loopback address needs the flag", func(t *testing.T) {
		if _, _, err := Listen(context.Background(), "0.0.0.0:0", false); err == nil || !strings.Contains(err.Error(), "--allow-remote") {
			t.Errorf("Listen 0.0.0.0 without allow: %v", err)
		}
	})
}

func TestBadDecisionIsRefusedAndNothingStored(t *testing.T) {
	ws := newWorkspace(t, "", reviewtest.Three(), "alice")
	defer ws.Close()
	base, srv := startServer(t, ws, "alice")
	c := login(t, srv, base, "alice")
	_, page := get(t, c, base+"/episode?id=sim-b")
	csrf := csrfOf(t, page)
	for name, f := range map[string]url.Values{
		"error without rows":   {"outcome": {"error"}},
		"none with rows":       {"outcome": {"no_error"}, "code0": {"hallucination"}, "severity0": {"minor"}},
		"unknown code":         {"outcome": {"error"}, "code0": {"<script>"}, "severity0": {"minor"}},
		"turn not in episode":  {"outcome": {"error"}, "code0": {"hallucination"}, "severity0": {"minor"}, "turn0": {"99"}},
		"no outcome":           {},
		"severity not allowed": {"outcome": {"error"}, "code0": {"other"}, "severity0": {"fatal"}},
	} {
		f.Set("csrf", csrf)
		f.Set("id", "sim-b")
		resp, err := c.PostForm(base+"/decision", f)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(b), "Not saved") {
			t.Errorf("%s: %d, want 422 with a message", name, resp.StatusCode)
		}
	}
	if _, ok, _ := queries.GetDecision(context.Background(), ws.Conn(), "sim-b", "alice"); ok {
		t.Error("a refused decision was stored")
	}
}

// TestTwoReviewersAtOnce: two reviewers saving every episode at the same
// time lose no decision.
func TestTwoReviewersAtOnce(t *testing.T) {
	ws := newWorkspace(t, "", reviewtest.Three(), "alice", "bob")
	defer ws.Close()
	base, srv := startServer(t, ws, "alice", "bob")
	errs := make(chan error, 6)
	for _, who := range []string{"alice", "bob"} {
		c := login(t, srv, base, who)
		for _, id := range []string{"sim-a", "sim-b", "sim-c"} {
			_, page := get(t, c, base+"/episode?id="+id)
			form := url.Values{"csrf": {csrfOf(t, page)}, "id": {id}, "outcome": {"error"}, "code0": {"other"}, "severity0": {"minor"}, "note0": {who}}
			go func() {
				resp, err := c.PostForm(base+"/decision", form)
				if err == nil {
					resp.Body.Close()
				}
				errs <- err
			}()
		}
	}
	for range 6 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	ds, err := queries.ReviewDecisions(context.Background(), ws.Conn())
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 6 {
		t.Fatalf("%d decisions stored, want 6", len(ds))
	}
	for _, d := range ds {
		if len(d.Errors) != 1 || d.Errors[0].Note != d.Reviewer {
			t.Errorf("%s by %s: %+v", d.SimulationID, d.Reviewer, d.Errors)
		}
	}
}

func TestAdjudicator(t *testing.T) {
	ctx := context.Background()
	ws := newWorkspace(t, "", reviewtest.Three(), "alice", "bob")
	defer ws.Close()
	ln, hosts, err := Listen(ctx, "127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := NewServer(ws, Options{Batch: "b1", Reviewers: []string{"alice", "bob"}, Adjudicator: "carol", Hosts: hosts, Clock: fixedClock})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(srv)
	hs.Listener.Close()
	hs.Listener = ln
	hs.Start()
	defer hs.Close()
	base := hs.URL
	post := func(c *http.Client, id string, f url.Values) int {
		_, page := get(t, c, base+"/episode?id="+id)
		f.Set("csrf", csrfOf(t, page))
		f.Set("id", id)
		resp, err := c.PostForm(base+"/decision", f)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	alice, bob, carol := login(t, srv, base, "alice"), login(t, srv, base, "bob"), login(t, srv, base, "carol")
	// alice and bob agree on sim-b, disagree on sim-a.
	post(alice, "sim-a", url.Values{"outcome": {"error"}, "code0": {"revealed_info_early"}, "severity0": {"minor"}, "turn0": {"1"}, "note0": {"id unasked"}})
	post(bob, "sim-a", url.Values{"outcome": {"no_error"}})
	post(alice, "sim-b", url.Values{"outcome": {"no_error"}})
	post(bob, "sim-b", url.Values{"outcome": {"no_error"}})
	_, q := get(t, carol, base+"/")
	if !strings.Contains(q, "0 of 1 decided") || !strings.Contains(q, "sim-a") || strings.Contains(q, "sim-b") {
		t.Fatalf("adjudicator's queue, want only sim-a:\n%s", q)
	}
	if code, _ := get(t, carol, base+"/episode?id=sim-b"); code != http.StatusNotFound {
		t.Errorf("sim-b (no dispute) for the adjudicator: %d, want 404", code)
	}
	_, page := get(t, carol, base+"/episode?id=sim-a")
	if !strings.Contains(page, "turn 1: revealed_info_early (minor): id unasked") || !strings.Contains(page, "<strong>bob</strong>: no simulator error") {
		t.Errorf("adjudicator does not see both decisions")
	}
	carol.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	if code := post(carol, "sim-a", url.Values{"outcome": {"error"}, "code0": {"revealed_info_early"}, "severity0": {"minor"}, "turn0": {"1"}}); code != http.StatusSeeOther {
		t.Fatalf("adjudication: %d", code)
	}
	d, ok, err := queries.GetDecision(ctx, ws.Conn(), "sim-a", "carol")
	if err != nil || !ok || d.Kind != "adjudicator" {
		t.Fatalf("adjudication stored as %+v %v %v", d, ok, err)
	}
	if _, err := NewServer(ws, Options{Batch: "b1", Reviewers: []string{"alice"}, Adjudicator: "alice", Hosts: hosts}); err == nil {
		t.Error("a reviewer as adjudicator: no error")
	}
}

// TestFormatCharactersShownVisibly: a task id, a domain and a message that
// end in a right-to-left override (and hold other invisible format
// characters) are shown as [U+202E] on the queue and the episode page;
// none reaches either page raw.
func TestFormatCharactersShownVisibly(t *testing.T) {
	eps := reviewtest.Three()
	eps[0].TaskID = "task-7\u202E"
	eps[0].Domain = "air\u2066line\u200B"
	eps[0].Messages[1].Content = "my id is \uFEFFabc\u202E"
	ws := newWorkspace(t, "", eps, "alice")
	defer ws.Close()
	base, srv := startServer(t, ws, "alice")
	c := login(t, srv, base, "alice")
	pages := map[string]string{}
	_, pages["queue"] = get(t, c, base+"/")
	_, pages["episode"] = get(t, c, base+"/episode?id="+eps[0].ID)
	for name, page := range pages {
		page = html.UnescapeString(page)
		pages[name] = page
		for _, want := range []string{"task-7[U+202E]", "air[U+2066]line[U+200B]"} {
			if !strings.Contains(page, want) {
				t.Errorf("%s page lacks %q", name, want)
			}
		}
		for _, r := range []rune{'\u202E', '\u2066', '\u200B', '\uFEFF'} {
			if strings.ContainsRune(page, r) {
				t.Errorf("%s page holds a raw U+%04X", name, r)
			}
		}
	}
	if !strings.Contains(pages["episode"], "my id is [U+FEFF]abc[U+202E]") {
		t.Error("episode page does not show the message's format characters")
	}
}
