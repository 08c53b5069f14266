package view

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/reports/visible"
)

// KindSearch is the search page of ub view (the live server only: the
// published site is static and has none).
const KindSearch = "search"

// SearchHits is the hits a search page shows at most.
const SearchHits = 20

// SearchWindow is the rows (storage positions) a search page reads at
// most, over every source: a page's cost is bounded by it whatever the
// workspace holds, and a text found in none of them is looked for further
// on the next page. Reading 50,000 episode messages of 200 bytes takes
// 10-70 ms on the loaded 2-core machine docs/performance.md measures on.
const SearchWindow = 50_000

// searchWindow is SearchWindow; tests set it smaller.
var searchWindow int64 = SearchWindow

// MaxQuery is the longest search text, in characters.
const MaxQuery = 200

// snippetBefore and snippetAfter are the characters a hit shows before and
// after the match.
const snippetBefore, snippetAfter = 80, 160

// searchRoles are the roles a search narrows to: a session turn's, an
// episode message's, and a generation.
var searchRoles = []string{"developer", "agent", "user", "assistant", "tool", "system", "generation"}

// sourceLabels name the sources on the page, by source.
var sourceLabels = [3]string{"session turns", "episode messages", "generations"}

// snippet is the part of a message around the match: Before, the Match
// and After, with Lead and Tail set when the message goes on beyond them.
type snippet struct {
	Lead, Tail           bool
	Before, Match, After string
}

type searchHit struct {
	Source, Role string
	Where        []crumb // what the message belongs to (a Href "" is plain text)
	Snippet      snippet
	Href, Target string // the page at the message, and what the link says
	Note         string
}

type searchData struct {
	frame
	Query                  string
	Sim, Domain, Dev, Role string
	Sims, Domains, Roles   []option
	Hits                   []searchHit
	Read                   []string // what it read of each source
	Skipped                []string // sources the filters leave out
	Resumed                bool     // the page starts where an earlier one stopped
	Next, Further, First   string
	Done                   bool
	PageHits, Max          int
	Window, ReadRows       string
}

// searchCursor reads a page's start: "source:position" ("" the start).
func searchCursor(v string) (queries.SearchCursor, error) {
	if v == "" {
		return queries.SearchCursor{}, nil
	}
	name, pos, ok := strings.Cut(v, ":")
	src := slices.Index(queries.SearchSourceNames[:], name)
	n, err := strconv.ParseInt(pos, 10, 64)
	if !ok || src < 0 || err != nil || n < 0 || n > 1<<50 {
		return queries.SearchCursor{}, fmt.Errorf("%w: search position %s: want turns, messages or generations, a colon and a row", ErrBadRequest, visible.Quote(v))
	}
	return queries.SearchCursor{Source: src, Pos: n}, nil
}

// checkQuery refuses a search text that is empty, longer than MaxQuery
// characters, not UTF-8 or holding a control or invisible character.
func checkQuery(q string) error {
	switch {
	case strings.TrimSpace(q) == "":
		return fmt.Errorf("%w: search: type the text to find", ErrBadRequest)
	case !utf8.ValidString(q):
		return fmt.Errorf("%w: search: the text is not UTF-8", ErrBadRequest)
	case utf8.RuneCountInString(q) > MaxQuery:
		return fmt.Errorf("%w: search: the text has %d characters, at most %d are searched", ErrBadRequest, utf8.RuneCountInString(q), MaxQuery)
	}
	for _, r := range q {
		if visible.Hidden(r) || unicode.IsControl(r) {
			return fmt.Errorf("%w: search: the text holds the control or invisible character U+%04X", ErrBadRequest, r)
		}
	}
	return nil
}

// checkFilterValue refuses a filter value that no name could be: not
// UTF-8, too long, or holding a control or invisible character.
func checkFilterValue(name, v string) error {
	if !utf8.ValidString(v) || len(v) > 1000 || strings.ContainsFunc(v, func(r rune) bool { return visible.Hidden(r) || unicode.IsControl(r) }) {
		return fmt.Errorf("%w: search: %s %s is not a name", ErrBadRequest, name, visible.Quote(v))
	}
	return nil
}

// searchData is one page of a search (q, narrowed by sim, domain, dev and
// role, from at): at most SearchHits hits from at most SearchWindow rows,
// each linked to the page that shows the message, and what the page read.
func (s *Site) searchData(ctx context.Context, p Page, l linker) (searchData, error) {
	if l.static() {
		return searchData{}, fmt.Errorf("%w: the published site has no search", ErrNotFound)
	}
	for k := range p.Q {
		if !slices.Contains([]string{"q", "sim", "domain", "dev", "role", "at"}, k) {
			return searchData{}, fmt.Errorf("%w: search: unknown parameter %s", ErrBadRequest, visible.Quote(k))
		}
	}
	f := queries.ViewSearchFilter{Text: p.Q.Get("q"), Simulator: p.Q.Get("sim"), Domain: p.Q.Get("domain"), Developer: p.Q.Get("dev"), Role: p.Q.Get("role")}
	if err := checkQuery(f.Text); err != nil {
		return searchData{}, err
	}
	for _, kv := range [][2]string{{"simulator", f.Simulator}, {"domain", f.Domain}, {"developer", f.Developer}, {"role", f.Role}} {
		if err := checkFilterValue(kv[0], kv[1]); err != nil {
			return searchData{}, err
		}
	}
	sims := s.searchSims()
	if f.Simulator != "" && !slices.Contains(sims, f.Simulator) {
		return searchData{}, fmt.Errorf("%w: search: no simulator %s in the workspace", ErrBadRequest, visible.Quote(f.Simulator))
	}
	doms := s.searchDomains()
	if f.Domain != "" && !slices.Contains(doms, f.Domain) {
		return searchData{}, fmt.Errorf("%w: search: no episode in domain %s", ErrBadRequest, visible.Quote(f.Domain))
	}
	if f.Role != "" && !slices.Contains(searchRoles, f.Role) {
		return searchData{}, fmt.Errorf("%w: search: role %s: want one of %s", ErrBadRequest, visible.Quote(f.Role), strings.Join(searchRoles, ", "))
	}
	if f.Developer != "" {
		ok, err := queries.ViewSearchDeveloper(ctx, s.db, f.Developer)
		if err != nil {
			return searchData{}, err
		}
		if !ok {
			return searchData{}, fmt.Errorf("%w: search: no developer %s in the workspace", ErrBadRequest, visible.Quote(f.Developer))
		}
	}
	on := f.Sources()
	if !on[0] && !on[1] && !on[2] {
		return searchData{}, fmt.Errorf("%w: search: no message is of these filters together (a domain or a user simulator narrows to episodes, a developer to sessions and generations, a role to the messages that have it)", ErrBadRequest)
	}
	at, err := searchCursor(p.Q.Get("at"))
	if err != nil {
		return searchData{}, err
	}
	if s.searchExtent == nil { // the workspace is read-only while the site serves it: read once
		ext, err := queries.ViewSearchExtent(ctx, s.db)
		if err != nil {
			return searchData{}, err
		}
		s.searchExtent = &ext
	}
	res, err := queries.ViewSearch(ctx, s.db, f, at, SearchHits, searchWindow, *s.searchExtent)
	if err != nil {
		return searchData{}, err
	}
	d := searchData{frame: s.frame(l, "Search: "+f.Text), Query: f.Text, Sim: f.Simulator, Domain: f.Domain, Dev: f.Developer, Role: f.Role,
		Sims: options(sims, f.Simulator), Domains: options(doms, f.Domain), Roles: options(searchRoles, f.Role),
		Resumed: at != (queries.SearchCursor{}), Done: res.Done, Window: thousands(searchWindow), PageHits: SearchHits, Max: MaxQuery}
	for i, ok := range on {
		if !ok {
			d.Skipped = append(d.Skipped, sourceLabels[i])
		}
	}
	var read int64
	for _, sp := range res.Read {
		// Positions and rows agree but where rows were deleted: the span
		// says the rows it read.
		d.Read = append(d.Read, fmt.Sprintf("%s from row %s, %s rows, of %s", sourceLabels[sp.Source],
			thousands(sp.From+1), thousands(sp.Rows), thousands(res.Extent.Rows[sp.Source])))
		read += sp.Rows
	}
	d.ReadRows = thousands(read)
	for _, h := range res.Hits {
		d.Hits = append(d.Hits, s.searchHit(h, f.Text, l))
	}
	at2 := func(c queries.SearchCursor) string {
		q := url.Values{}
		for k, v := range p.Q {
			q[k] = v
		}
		q.Set("at", queries.SearchSourceNames[c.Source]+":"+strconv.FormatInt(c.Pos, 10))
		return l.link(Page{Kind: KindSearch, Q: q})
	}
	if !res.Done {
		if len(res.Hits) == SearchHits {
			d.Next = at2(res.Next)
		} else {
			d.Further = at2(res.Next)
		}
	}
	if d.Resumed {
		q := url.Values{}
		for k, v := range p.Q {
			q[k] = v
		}
		q.Del("at")
		d.First = l.link(Page{Kind: KindSearch, Q: q})
	}
	return d, nil
}

// searchSims are the simulators a search narrows to: the UserBench
// simulators and the user simulators, sorted.
func (s *Site) searchSims() []string {
	out := sortedKeys(s.ubSims)
	for _, u := range sortedKeys(s.userSims) {
		if !slices.Contains(out, u) {
			out = append(out, u)
		}
	}
	slices.Sort(out)
	return out
}

// searchDomains are the domains of the episodes, sorted.
func (s *Site) searchDomains() []string {
	var out []string
	for _, ds := range s.userSims {
		for _, d := range ds {
			if !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	slices.Sort(out)
	return out
}

// searchHit is a hit as the page shows it: where it lives, the snippet and
// the link to the page that shows it at its turn.
func (s *Site) searchHit(h queries.SearchHit, text string, l linker) searchHit {
	out := searchHit{Source: sourceLabels[h.Source], Role: h.Role, Snippet: snip(h.Text, text)}
	plain := func(label, v string) crumb { return crumb{Text: label + " " + v} }
	switch h.Source {
	case queries.SearchTurns:
		out.Where = []crumb{plain("developer", h.Developer), plain("session", h.SessionID), plain("turn", strconv.Itoa(h.Turn))}
		if h.PointID == "" {
			out.Note = "No moment of the study comes at or after this turn of its session."
			break
		}
		// The live window that shows the turn: the anchor's, or one long
		// enough to reach back to it (sim.Build keeps the last n-1 turns
		// whatever it pins).
		n := max(s.n, h.PointTurn-h.Turn+1)
		out.Href = l.link(page(KindMoment, "point", h.PointID, "n", strconv.Itoa(n), "k", strconv.Itoa(s.k))) + "#" + turnAnchor(int64(h.Turn))
		out.Target = "moment " + h.PointID
		if h.PointTurn == h.Turn {
			out.Target += ", its real next message"
		} else {
			out.Target += fmt.Sprintf(", turn %d of what the simulator saw (N = %d)", h.Turn, n)
		}
	case queries.SearchMessages:
		out.Where = []crumb{plain("user simulator", h.UserSim), plain("domain", h.Domain), plain("task", h.TaskID), plain("turn", strconv.Itoa(h.Turn))}
		if _, ok := s.userSims[h.UserSim]; ok {
			out.Where[0].Href = l.link(page(KindFidSim, "sim", h.UserSim, "domain", h.Domain))
		}
		out.Href = l.link(page(KindEpisode, "id", h.SimulationID)) + "#" + turnAnchor(int64(h.Turn))
		out.Target = "episode " + h.SimulationID + ", turn " + strconv.Itoa(h.Turn)
	case queries.SearchGenerations:
		out.Where = []crumb{plain("simulator", h.Simulator), plain("condition", h.Condition), plain("developer", h.Developer),
			{Text: fmt.Sprintf("N = %d, K = %d, trial %d", h.N, h.K, h.Trial)}}
		if h.N == s.n && h.K == s.k && s.ubSims[h.Simulator][h.Condition] && h.Developer != "" {
			out.Where[0].Href = l.link(page(KindUBSim, "sim", h.Simulator, "cond", h.Condition))
			out.Where[2].Href = l.link(page(KindUBDev, "sim", h.Simulator, "cond", h.Condition, "dev", h.Developer))
		}
		if h.Developer == "" {
			out.Note = "Its point is not in the workspace."
			break
		}
		out.Href = l.link(page(KindMoment, "point", h.PointID, "n", strconv.Itoa(h.N), "k", strconv.Itoa(h.K))) + "#generations"
		out.Target = "moment " + h.PointID + ", every simulator's generation"
	}
	return out
}

// snip cuts text around the first place it holds q, ignoring case as
// DuckDB's lower() does (one character at a time); a text where the fold
// does not find it (a character whose lower case differs between the
// two) is shown from its start, unmarked.
func snip(text, q string) snippet {
	lower, at := foldIndex(text)
	i := strings.Index(lower, foldString(q))
	if i < 0 {
		r := []rune(text)
		if len(r) > snippetBefore+snippetAfter {
			return snippet{Before: string(r[:snippetBefore+snippetAfter]), Tail: true}
		}
		return snippet{Before: text}
	}
	j := i + len(foldString(q))
	lo, hi := at[i], len(text)
	if j < len(at) {
		hi = at[j]
	}
	sn := snippet{Match: text[lo:hi]}
	before := []rune(text[:lo])
	if len(before) > snippetBefore {
		before, sn.Lead = before[len(before)-snippetBefore:], true
	}
	after := []rune(text[hi:])
	if len(after) > snippetAfter {
		after, sn.Tail = after[:snippetAfter], true
	}
	sn.Before, sn.After = string(before), string(after)
	return sn
}

// foldString lowers s one character at a time.
func foldString(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// foldIndex lowers s one character at a time, and says for each byte
// offset of the result that starts a character the offset in s of the
// character it came from (at[len(lower)] is len(s)).
func foldIndex(s string) (lower string, at []int) {
	var b strings.Builder
	for i, r := range s {
		n, _ := b.WriteRune(unicode.ToLower(r))
		for range n {
			at = append(at, i)
		}
	}
	at = append(at, len(s))
	return b.String(), at
}

// thousands writes n with a comma between each group of three digits.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
