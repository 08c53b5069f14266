package view

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"html"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ub-bench/ub/judge/review/reviewtest"
	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/sim/synth"
)

// searchStudy is an in-memory workspace holding the synthetic UserBench
// study (seed 1) and the synthetic user-fidelity study (seed 2), with the
// marker "Zebra Crossing" written, in other cases, into one session turn,
// one episode message and one generation.
func searchStudy(t *testing.T) (*queries.Workspace, *Site) {
	t.Helper()
	ctx := context.Background()
	ws, err := queries.Open(ctx, "", queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	if _, err := synth.Write(ctx, ws, synth.Options{Seed: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := synth.WriteFidelity(ctx, ws, synth.FidelityOptions{Seed: 2, Scale: 1, Sampled: true}); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`UPDATE turns SET text = text || ' a ZEBRA CROSSING here' WHERE rowid = (SELECT t.rowid FROM turns t JOIN points p ON p.session_id = t.session_id AND t.idx = p.turn_idx - 2 ORDER BY p.id LIMIT 1)`,
		`UPDATE ep_messages SET content = 'the zebra crossing, said the user' WHERE rowid = (SELECT rowid FROM ep_messages WHERE role = 'user' AND turn_idx > 0 ORDER BY simulation_id, idx LIMIT 1)`,
		`UPDATE generations SET text = 'Zebra Crossing!' WHERE rowid = (SELECT rowid FROM generations WHERE text IS NOT NULL ORDER BY id LIMIT 1)`,
	} {
		if _, err := ws.Conn().ExecContext(ctx, q); err != nil {
			t.Fatalf("%v\n%s", err, q)
		}
	}
	site, err := NewSite(ctx, ws.Conn(), Options{Judge: "synth", Grader: synth.FidelityGrader})
	if err != nil {
		t.Fatal(err)
	}
	return ws, site
}

// stored is one message of the workspace, read apart from the search.
type stored struct {
	source                            int
	pos                               int64
	role, text, sim, domain, dev, key string
}

// allMessages reads every turn, episode message and generation with what
// a filter names, by source and position.
func allMessages(t *testing.T, ws *queries.Workspace) []stored {
	t.Helper()
	var out []stored
	for src, q := range []string{
		`SELECT t.rowid, t.role, t.text, '', '', s.developer, t.session_id || '/' || t.idx FROM turns t JOIN sessions s ON s.id = t.session_id ORDER BY t.rowid`,
		`SELECT m.rowid, m.role, m.content, r.user_sim, e.domain, '', m.simulation_id || '/' || m.idx FROM ep_messages m JOIN ep_episodes e USING (simulation_id) JOIN ep_runs r USING (run_id) WHERE m.content IS NOT NULL ORDER BY m.rowid`,
		`SELECT g.rowid, 'generation', g.text, g.simulator, '', p.developer, g.id FROM generations g JOIN points p ON p.id = g.point_id WHERE g.text IS NOT NULL ORDER BY g.rowid`,
	} {
		rows, err := ws.Conn().QueryContext(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			m := stored{source: src}
			if err := rows.Scan(&m.pos, &m.role, &m.text, &m.sim, &m.domain, &m.dev, &m.key); err != nil {
				t.Fatal(err)
			}
			out = append(out, m)
		}
		rows.Close()
	}
	return out
}

// want is the messages that pass a filter, by source and position.
func want(all []stored, f queries.ViewSearchFilter) []stored {
	var out []stored
	on := f.Sources()
	for _, m := range all {
		if on[m.source] && strings.Contains(strings.ToLower(m.text), strings.ToLower(f.Text)) &&
			(f.Role == "" || m.role == f.Role) && (f.Simulator == "" || m.sim == f.Simulator) &&
			(f.Domain == "" || m.domain == f.Domain) && (f.Developer == "" || m.dev == f.Developer) {
			out = append(out, m)
		}
	}
	return out
}

// searchAll follows a search from its first page to its end, through the
// pages' next and search-further links, and returns every hit in page
// order and the pages' HTML.
func searchAll(t *testing.T, site *Site, q url.Values) (hits []queries.SearchHit, pages []string, rows int64) {
	t.Helper()
	ctx := context.Background()
	f := queries.ViewSearchFilter{Text: q.Get("q"), Simulator: q.Get("sim"), Domain: q.Get("domain"), Developer: q.Get("dev"), Role: q.Get("role")}
	at := queries.SearchCursor{}
	for i := 0; ; i++ {
		if i > 10000 {
			t.Fatal("the search does not end")
		}
		var buf bytes.Buffer
		if err := site.render(ctx, &buf, Page{Kind: KindSearch, Q: q}, liveLinker{}); err != nil {
			t.Fatalf("%v: %v", q, err)
		}
		pages = append(pages, buf.String())
		res, err := queries.ViewSearch(ctx, site.db, f, at, SearchHits, searchWindow, *site.searchExtent)
		if err != nil {
			t.Fatal(err)
		}
		var read int64
		for _, sp := range res.Read {
			read += sp.To - sp.From
			rows += sp.Rows
		}
		if read > searchWindow {
			t.Fatalf("a page read %d positions, more than the window's %d", read, searchWindow)
		}
		if c := strings.Count(buf.String(), `<li class="hit-row">`); c != len(res.Hits) {
			t.Fatalf("the page shows %d hits, the search found %d", c, len(res.Hits))
		}
		hits = append(hits, res.Hits...)
		link := regexp.MustCompile(`id="(?:next|further)" href="([^"]*)"`).FindStringSubmatch(buf.String())
		if res.Done {
			if link != nil {
				t.Fatalf("the last page links %s", link[1])
			}
			return hits, pages, rows
		}
		if link == nil {
			t.Fatalf("page %d is not the last and has no next link", i)
		}
		u, err := url.Parse(html.UnescapeString(link[1]))
		if err != nil || u.Path != "/"+KindSearch {
			t.Fatalf("next link %q", link[1])
		}
		q = u.Query()
		if at, err = searchCursor(q.Get("at")); err != nil {
			t.Fatal(err)
		}
	}
}

func setWindow(t *testing.T, n int64) {
	was := searchWindow
	searchWindow = n
	t.Cleanup(func() { searchWindow = was })
}

// TestSearchFindsEveryMessage: followed through its pages (20 hits, or
// the window's rows, a page), a search finds exactly the messages that
// hold the text ignoring case and pass the filters, read apart from it,
// each once and in storage order; with a window smaller than the
// workspace a text that is rare still is found, pages later.
func TestSearchFindsEveryMessage(t *testing.T) {
	ws, site := searchStudy(t)
	// Rows deleted: storage positions are not rows any more (DuckDB
	// keeps the deleted rows' positions until it compacts).
	if _, err := ws.Conn().ExecContext(context.Background(), `DELETE FROM turns WHERE rowid % 7 = 3`); err != nil {
		t.Fatal(err)
	}
	count := map[int]int64{}
	for src, table := range []string{"turns", "ep_messages", "generations"} {
		var n int64
		if err := ws.Conn().QueryRowContext(context.Background(), "SELECT count(*) FROM "+table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		count[src] = n
	}
	all := allMessages(t, ws)
	var dev, userSim, ubSim string
	for _, m := range all {
		switch {
		case m.source == queries.SearchTurns && dev == "" && strings.Contains(strings.ToLower(m.text), "retryloop"):
			dev = m.dev
		case m.source == queries.SearchMessages && userSim == "":
			userSim = m.sim
		case m.source == queries.SearchGenerations && ubSim == "":
			ubSim = m.sim
		}
	}
	for _, window := range []int64{SearchWindow, 3000} {
		setWindow(t, window)
		for _, f := range []queries.ViewSearchFilter{
			{Text: "zebra crossing"},
			{Text: "ZEBRA"},
			{Text: "no message holds this text"},
			{Text: "retryloop", Role: "developer"},
			{Text: "retryloop", Role: "generation", Simulator: ubSim},
			{Text: "retryloop", Developer: dev},
			{Text: "retryloop", Simulator: ubSim},
			{Text: "booking", Simulator: userSim},
			{Text: "booking", Domain: "retail", Role: "user"},
			{Text: "booking", Domain: "airline", Simulator: userSim, Role: "user"},
			{Text: "zebra", Role: "user"},
			{Text: "zebra", Role: "tool"},
		} {
			q := url.Values{"q": {f.Text}}
			for k, v := range map[string]string{"sim": f.Simulator, "domain": f.Domain, "dev": f.Developer, "role": f.Role} {
				if v != "" {
					q.Set(k, v)
				}
			}
			got, pages, rows := searchAll(t, site, q)
			var wantRows int64
			for src, on := range f.Sources() {
				if on {
					wantRows += count[src]
				}
			}
			if rows != wantRows {
				t.Errorf("window %d, %+v: the pages say they read %d rows, the sources hold %d", window, f, rows, wantRows)
			}
			w := want(all, f)
			if len(got) != len(w) {
				t.Errorf("window %d, %+v: %d hits over %d pages, want %d", window, f, len(got), len(pages), len(w))
				continue
			}
			for i := range got {
				if got[i].Source != w[i].source || got[i].Pos != w[i].pos || got[i].Text != w[i].text || got[i].Role != w[i].role {
					t.Errorf("window %d, %+v: hit %d is %d:%d %q, want %d:%d %q", window, f, i, got[i].Source, got[i].Pos, got[i].Role, w[i].source, w[i].pos, w[i].role)
					break
				}
			}
			t.Logf("window %d, %+v: %d hits, %d pages", window, f, len(got), len(pages))
			if f.Text == "zebra crossing" && len(got) != 3 {
				t.Errorf("%d hits of the marker, want its turn, message and generation", len(got))
			}
		}
	}
	if len(all) < 3*3000 {
		t.Errorf("%d messages: the small window does not split the workspace", len(all))
	}
}

// TestSearchLinks: every hit links to a page of the viewer that renders
// and holds the element its fragment names: a session turn to the moment
// it leads to at that turn, an episode message to its episode at its
// turn, a generation to its moment's generations; the snippet marks the
// match in its own case.
func TestSearchLinks(t *testing.T) {
	_, site := searchStudy(t)
	setWindow(t, 1_000_000) // the first page reads every message
	ctx := context.Background()
	var buf bytes.Buffer
	if err := site.render(ctx, &buf, page(KindSearch, "q", "zebra crossing"), liveLinker{}); err != nil {
		t.Fatal(err)
	}
	body := buf.String()
	for _, m := range []string{"<mark>ZEBRA CROSSING</mark>", "<mark>zebra crossing</mark>", "<mark>Zebra Crossing</mark>"} {
		if !strings.Contains(body, m) {
			t.Errorf("the page lacks %s", m)
		}
	}
	links := regexp.MustCompile(`class="hitlink" href="([^"]*)"`).FindAllStringSubmatch(body, -1)
	if len(links) != 3 {
		t.Fatalf("%d hit links, want 3:\n%s", len(links), body)
	}
	kinds := map[string]bool{}
	for _, l := range links {
		u, err := url.Parse(html.UnescapeString(l[1]))
		if err != nil {
			t.Fatal(err)
		}
		kind := strings.TrimPrefix(u.Path, "/")
		kinds[kind+"#"+strings.TrimRightFunc(u.Fragment, func(r rune) bool { return r >= '0' && r <= '9' })] = true
		var pb bytes.Buffer
		if err := site.render(ctx, &pb, Page{Kind: kind, Q: u.Query()}, liveLinker{}); err != nil {
			t.Errorf("%s: %v", l[1], err)
			continue
		}
		if u.Fragment == "" || !strings.Contains(pb.String(), ` id="`+u.Fragment+`"`) {
			t.Errorf("%s: the page has no element %q", l[1], u.Fragment)
		}
		// The turn the link names holds the marker.
		if strings.HasPrefix(u.Fragment, "turn-") {
			i := strings.Index(pb.String(), ` id="`+u.Fragment+`"`)
			end := strings.Index(pb.String()[i:], "</div>")
			if !strings.Contains(strings.ToLower(pb.String()[i:i+end]), "zebra crossing") {
				t.Errorf("%s: the turn it lands on does not hold the text: %.300s", l[1], pb.String()[i:])
			}
		}
	}
	for _, k := range []string{KindMoment + "#turn-", KindEpisode + "#turn-", KindMoment + "#generations"} {
		if !kinds[k] {
			t.Errorf("no hit links to %s (links: %v)", k, kinds)
		}
	}
}

// TestSearchBadRequests: an empty, too long or invisible-holding text, an
// unknown filter value or position, and filters no message has together
// are refused as bad requests (400 through the server), never a 500.
func TestSearchBadRequests(t *testing.T) {
	_, site := searchStudy(t)
	ctx := context.Background()
	long := strings.Repeat("é", MaxQuery+1)
	cases := []url.Values{
		{},
		{"q": {""}},
		{"q": {"   "}},
		{"q": {long}},
		{"q": {"a\x00b"}},
		{"q": {"a\nb"}},
		{"q": {"evil\u202Etxt"}},
		{"q": {"zero\u200Bwidth"}},
		{"q": {"bad \xff utf8"}},
		{"q": {"the"}, "sim": {"nobody"}},
		{"q": {"the"}, "domain": {"moon"}},
		{"q": {"the"}, "dev": {"nobody"}},
		{"q": {"the"}, "dev": {"dev\x1b[31m"}},
		{"q": {"the"}, "role": {"admin"}},
		{"q": {"the"}, "at": {"x"}},
		{"q": {"the"}, "at": {"turns:-1"}},
		{"q": {"the"}, "at": {"turns:1e3"}},
		{"q": {"the"}, "at": {"nowhere:0"}},
		{"q": {"the"}, "at": {"turns:99999999999999999999"}},
		{"q": {"the"}, "page": {"2"}},
		{"q": {"the"}, "domain": {"airline"}, "dev": {"dev-0033"}},
		{"q": {"the"}, "role": {"developer"}, "domain": {"airline"}},
	}
	for _, q := range cases {
		err := site.render(ctx, &bytes.Buffer{}, Page{Kind: KindSearch, Q: q}, liveLinker{})
		if !errors.Is(err, ErrBadRequest) {
			t.Errorf("%q: %v, want a bad request", q.Encode(), err)
		}
	}
	// Long but within the bound, and a position past the end, are fine.
	for _, q := range []url.Values{{"q": {strings.Repeat("é", MaxQuery)}}, {"q": {"the"}, "at": {"generations:999999999"}}} {
		if err := site.render(ctx, &bytes.Buffer{}, Page{Kind: KindSearch, Q: q}, liveLinker{}); err != nil {
			t.Errorf("%q: %v", q.Encode(), err)
		}
	}
	// Through the server: 400 with the message.
	srv, err := NewServer(site, ServerOptions{Hosts: []string{"view.test"}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	jar, _ := cookiejar.New(nil)
	c := hs.Client()
	c.Jar = jar
	get := func(path string) (int, string) {
		req, _ := http.NewRequest("GET", hs.URL+path, nil)
		req.Host = "view.test"
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		return resp.StatusCode, b.String()
	}
	// The redirect after the token keeps the Host header only on the
	// first request: open the session by hand.
	req, _ := http.NewRequest("GET", hs.URL+"/?token="+srv.token, nil)
	req.Host = "view.test"
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for _, q := range cases {
		code, body := get("/search?" + q.Encode())
		if code != http.StatusBadRequest || !strings.Contains(body, "bad request") {
			t.Errorf("GET /search?%s: %d %q, want 400", q.Encode(), code, body)
		}
	}
	if code, body := get("/search?q=zebra"); code != 200 || !strings.Contains(body, "<mark>") {
		t.Errorf("GET /search?q=zebra: %d %.300q", code, body)
	}
}

// TestSearchEscapes: with the hostile corpus in a session turn, an
// episode message, a generation, a simulator's name and the text searched
// for, the search page shows every payload as text: no element of one
// reaches the HTML, the highlight does not break the escaping, and a
// right-to-left override shows as [U+202E].
func TestSearchEscapes(t *testing.T) {
	ws, _ := searchStudy(t)
	ctx := context.Background()
	all := strings.Join(reviewtest.XSS, "\n")
	hostile := `<img src=x onerror="window.__xss=20">`
	for _, q := range []string{
		`UPDATE turns SET text = $1 WHERE rowid < 3`,
		`UPDATE ep_messages SET content = $1 WHERE rowid < 3`,
		`UPDATE generations SET text = $1 WHERE rowid < 3`,
	} {
		if _, err := ws.Conn().ExecContext(ctx, q, all); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ws.Conn().ExecContext(ctx, `UPDATE generations SET simulator = $1 WHERE rowid < 3`, hostile); err != nil {
		t.Fatal(err)
	}
	site, err := NewSite(ctx, ws.Conn(), Options{Judge: "synth", Grader: synth.FidelityGrader})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"window.__xss", "<script>", `"><script>window.__xss=5</script>`, "onerror", "exe.gnp", "<"} {
		var buf bytes.Buffer
		if err := site.render(ctx, &buf, page(KindSearch, "q", q), liveLinker{}); err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		body := buf.String()
		if c := strings.Count(body, `<li class="hit-row">`); c < 3 {
			t.Errorf("%q: %d hits, want the three hostile messages", q, c)
		}
		checkMarkup(t, q, body)
		if q == "exe.gnp" && !strings.Contains(body, "[U&#43;202E]<mark>exe.gnp</mark>") {
			t.Errorf("the override before the match is not shown as [U+202E]")
		}
		if !strings.Contains(body, "<mark>") {
			t.Errorf("%q: no highlight", q)
		}
	}
}

var (
	tagRe  = regexp.MustCompile(`<(/?)([a-zA-Z][a-zA-Z0-9]*)((?:\s+[a-zA-Z-]+(?:="[^"]*")?)*)\s*>|<!doctype html>|<`)
	attrRe = regexp.MustCompile(`([a-zA-Z-]+)(?:="([^"]*)")?`)
)

// pageTags are the elements the search page makes.
var pageTags = []string{"html", "head", "meta", "title", "link", "body", "nav", "a", "span", "form", "input", "button",
	"h1", "p", "label", "select", "option", "q", "b", "ol", "li", "pre", "mark"}

// checkMarkup reads every tag of a page (in escaped text, a "<" is
// always &lt;): each is one the page makes, none has an event handler
// attribute or a javascript: address, and none is broken.
func checkMarkup(t *testing.T, name, body string) {
	t.Helper()
	for _, m := range tagRe.FindAllStringSubmatch(body, -1) {
		if m[0] == "<!doctype html>" {
			continue
		}
		if m[2] == "" {
			t.Errorf("%s: a bare %q in the page", name, m[0])
			continue
		}
		if !slices.Contains(pageTags, strings.ToLower(m[2])) {
			t.Errorf("%s: element %q in the page", name, m[0])
		}
		for _, a := range attrRe.FindAllStringSubmatch(m[3], -1) {
			if strings.HasPrefix(strings.ToLower(a[1]), "on") || strings.Contains(strings.ToLower(html.UnescapeString(a[2])), "javascript:") && a[1] != "value" {
				t.Errorf("%s: attribute %q in %q", name, a[0], m[0])
			}
		}
	}
}

// TestSnip: the snippet is the text around the first match, cut with
// "…" marks; the match keeps the text's own case, also where lowering
// changes a character's length.
func TestSnip(t *testing.T) {
	long := strings.Repeat("a", 500)
	for _, tc := range []struct {
		text, q string
		want    snippet
	}{
		{"Hello World", "world", snippet{Before: "Hello ", Match: "World"}},
		{"HELLO", "hello", snippet{Match: "HELLO"}},
		{long + "Needle" + long, "needle", snippet{Lead: true, Tail: true, Before: long[:snippetBefore], Match: "Needle", After: long[:snippetAfter]}},
		{"ÄRGER über Ärger", "ärger", snippet{Match: "ÄRGER", After: " über Ärger"}},
		{"xİstanbul", "istanbul", snippet{Before: "x", Match: "İstanbul"}},
		{"ΣΟΦΊΑ", "σοφία", snippet{Match: "ΣΟΦΊΑ"}},
		{"no match here", "zzz", snippet{Before: "no match here"}},
		{long, "zzz", snippet{Before: long[:snippetBefore+snippetAfter], Tail: true}},
		{"bad \xff byte then Match", "match", snippet{Before: "bad \uFFFD byte then ", Match: "Match"}},
	} {
		if got := snip(tc.text, tc.q); got != tc.want {
			t.Errorf("snip(%.30q, %q) = %+v, want %+v", tc.text, tc.q, got, tc.want)
		}
	}
}

// TestSearchNotOnTheSite: the published site has no search: no page of it
// holds the header's form or links to /search, and the search page is
// not one of its pages; the live pages hold the form.
func TestSearchNotOnTheSite(t *testing.T) {
	_, site := searchStudy(t)
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := site.WriteSite(ctx, dir, nil); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.html"))
	if len(files) < 10 {
		t.Fatalf("%d pages", len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte("search")) && (bytes.Contains(b, []byte(`<form id="search"`)) || bytes.Contains(b, []byte(`/search`))) {
			t.Errorf("%s: a search form or link on the static site", filepath.Base(f))
		}
		if strings.HasPrefix(filepath.Base(f), "search-") {
			t.Errorf("%s: a search page on the static site", filepath.Base(f))
		}
	}
	if err := site.render(ctx, &bytes.Buffer{}, page(KindSearch, "q", "the"), &staticLinker{seen: map[string]Page{}}); !errors.Is(err, ErrNotFound) {
		t.Errorf("the search page on the site: %v, want not found", err)
	}
	for _, p := range []Page{{Kind: KindIndex}, page(KindEpisode, "id", "synth-sonnet-4-6-airline-0"), page(KindSearch, "q", "the")} {
		var buf bytes.Buffer
		if err := site.render(ctx, &buf, p, liveLinker{}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(buf.String(), `<form id="search" method="get" action="/search"`) {
			t.Errorf("%s: the live page has no search form", p.Kind)
		}
	}
}

// TestSearchSources: a filter leaves out the sources that cannot match it.
func TestSearchSources(t *testing.T) {
	for _, tc := range []struct {
		f    queries.ViewSearchFilter
		want [3]bool
	}{
		{queries.ViewSearchFilter{}, [3]bool{true, true, true}},
		{queries.ViewSearchFilter{Simulator: "s"}, [3]bool{false, true, true}},
		{queries.ViewSearchFilter{Domain: "d"}, [3]bool{false, true, false}},
		{queries.ViewSearchFilter{Developer: "d"}, [3]bool{true, false, true}},
		{queries.ViewSearchFilter{Role: "generation"}, [3]bool{false, false, true}},
		{queries.ViewSearchFilter{Role: "developer"}, [3]bool{true, false, false}},
		{queries.ViewSearchFilter{Role: "assistant"}, [3]bool{false, true, false}},
		{queries.ViewSearchFilter{Role: "tool"}, [3]bool{true, true, false}},
		{queries.ViewSearchFilter{Role: "user", Developer: "d"}, [3]bool{false, false, false}},
	} {
		if got := tc.f.Sources(); got != tc.want {
			t.Errorf("%+v: %v, want %v", tc.f, got, tc.want)
		}
	}
}

// TestSearchHitsBelongWhereTheyAre: what each hit of a search belongs to
// (read for a page's hits at once) is what the workspace says, read here
// hit by hit: a turn's developer and the moment it leads to (the
// session's first point at or after the turn, or none), a message's user
// simulator, domain and task, a generation's developer; a session that
// holds several hits is read right for each.
func TestSearchHitsBelongWhereTheyAre(t *testing.T) {
	ctx := context.Background()
	ws, site := searchStudy(t)
	db := ws.Conn()
	var hits []queries.SearchHit
	for _, text := range []string{"zebra crossing", "retryloop", "booking"} {
		h, _, _ := searchAll(t, site, url.Values{"q": {text}})
		hits = append(hits, h...)
	}
	bySource := map[int]int{}
	sessions := map[string]int{}
	for _, h := range hits {
		bySource[h.Source]++
		if h.Source == queries.SearchTurns {
			sessions[h.SessionID]++
		}
	}
	// Every hit of a source when it has few, else 150 spread over them.
	seen := map[int]int{}
	for _, h := range hits {
		seen[h.Source]++
		if n := bySource[h.Source]; n > 150 && seen[h.Source]%(n/150) != 0 {
			continue
		}
		switch h.Source {
		case queries.SearchTurns:
			var dev string
			if err := db.QueryRowContext(ctx, `SELECT developer FROM sessions WHERE id = ?`, h.SessionID).Scan(&dev); err != nil {
				t.Fatal(err)
			}
			point, turn := "", -1
			err := db.QueryRowContext(ctx, `SELECT id, turn_idx FROM points WHERE session_id = ? AND turn_idx >= ? ORDER BY turn_idx, id LIMIT 1`,
				h.SessionID, h.Turn).Scan(&point, &turn)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				t.Fatal(err)
			}
			if h.Developer != dev || h.PointID != point || h.PointTurn != turn {
				t.Errorf("turn %d of %s: developer %q, moment %q at %d; want %q, %q at %d", h.Turn, h.SessionID, h.Developer, h.PointID, h.PointTurn, dev, point, turn)
			}
		case queries.SearchMessages:
			var sim, domain, task string
			if err := db.QueryRowContext(ctx, `SELECT r.user_sim, e.domain, e.task_id FROM ep_episodes e JOIN ep_runs r USING (run_id) WHERE e.simulation_id = ?`,
				h.SimulationID).Scan(&sim, &domain, &task); err != nil {
				t.Fatal(err)
			}
			if h.UserSim != sim || h.Domain != domain || h.TaskID != task {
				t.Errorf("message %d of %s: %q %q %q, want %q %q %q", h.Idx, h.SimulationID, h.UserSim, h.Domain, h.TaskID, sim, domain, task)
			}
		case queries.SearchGenerations:
			var dev string
			if err := db.QueryRowContext(ctx, `SELECT developer FROM points WHERE id = ?`, h.PointID).Scan(&dev); err != nil {
				t.Fatal(err)
			}
			if h.Developer != dev {
				t.Errorf("generation %s: developer %q, want %q", h.GenID, h.Developer, dev)
			}
		}
	}
	many, withPoint, without := 0, 0, 0
	for _, n := range sessions {
		if n > 1 {
			many++
		}
	}
	for _, h := range hits {
		if h.Source == queries.SearchTurns {
			if h.PointID != "" {
				withPoint++
			} else {
				without++
			}
		}
	}
	if bySource[queries.SearchTurns] < 100 || bySource[queries.SearchMessages] < 100 || bySource[queries.SearchGenerations] < 20 || many < 10 || withPoint < 20 || without < 5 {
		t.Errorf("hits by source %v, %d sessions with several hits, %d turns leading to a moment, %d to none: too few to test", bySource, many, withPoint, without)
	}
}
