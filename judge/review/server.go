package review

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"database/sql"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/reports/visible"
)

//go:embed assets/*.html assets/*.js assets/*.css
var assetFS embed.FS

// ErrorRows is the number of error rows on the decision form (more when
// the decision shown has more errors, up to MaxErrorRows).
const ErrorRows = 4

// MaxErrorRows bounds the error rows a posted form may carry.
const MaxErrorRows = 64

// PageSize is the number of episodes on a page of the queue when
// Options.PageSize is 0.
const PageSize = 100

// Options configures NewServer.
type Options struct {
	Batch     string
	Reviewers []string // who may review (the batch's reviewers)
	// Adjudicator, when set, gets a token too: its queue is the episodes
	// whose reviewers disagree, it sees their decisions, and its decisions
	// are of kind adjudicator (the final word).
	Adjudicator string
	Clock       func() time.Time // nil means time.Now
	// Hosts are the Host header values the server answers (host:port);
	// requests naming another host are refused (DNS rebinding). Set by
	// Listen from the bound address.
	Hosts []string
	// Logf reports what the server does (nil: silent). It never receives a
	// token.
	Logf func(format string, args ...any)
	// Prefill is the LLM reviewer whose decision pre-fills the form of an
	// episode the reviewer has not decided ("": none; the batch's
	// ReviewBatch.Prefill). The decision saved from such a form is marked
	// with it.
	Prefill string
	// PageSize is the number of episodes on a page of the queue; 0 means
	// PageSize.
	PageSize int
}

// Server is the review workbench's HTTP handler over one workspace.
type Server struct {
	ws     *queries.Workspace
	db     queries.Querier // the workspace's connection, for reads (a test records them)
	opts   Options
	tmpl   *template.Template
	static http.Handler

	mu       sync.Mutex // guards the maps and serialises the workspace connection
	tokens   map[string]string
	sessions map[string]session
	served   map[[2]string]time.Time // reviewer, episode -> when its page was last served
	queues   map[string]*queueIndex  // reviewer -> queue (not the adjudicator's)
	// spans: where each episode of the batch lies in the conversation
	// tables, found by Warm (nil: read the tables whole). The server never
	// writes those tables, so they hold while it runs.
	spans map[string]queries.EpisodeSpans
}

// episode reads an episode of the batch, within its spans when Warm found
// them; s.mu is held.
func (s *Server) episode(ctx context.Context, id string) (queries.EpisodeView, error) {
	if s.spans == nil {
		return queries.ReviewEpisode(ctx, s.db, id)
	}
	sp := s.spans[id]
	return queries.ReviewEpisodeAt(ctx, s.db, id, &sp)
}

type session struct {
	reviewer, csrf string
	adjudicator    bool
}

// queueIndex is a reviewer's queue held by the server: the episodes in
// order with their decision state, read once from the workspace and kept
// current by the server's own writes (while it serves, the server is the
// workspace's one writer). Pages and neighbours come from it at a cost
// that does not grow with the batch; it holds about 100 bytes an episode.
type queueIndex struct {
	items            []queries.QueueItem
	at               map[string]int // simulation id -> index in items
	decided, skipped int
}

func newQueueIndex(items []queries.QueueItem) *queueIndex {
	q := &queueIndex{items: items, at: make(map[string]int, len(items))}
	for i, it := range items {
		q.at[it.SimulationID] = i
		q.count(it.Outcome, 1)
	}
	return q
}

func (q *queueIndex) count(outcome string, d int) {
	switch outcome {
	case "":
	case queries.OutcomeSkipped:
		q.skipped += d
	default:
		q.decided += d
	}
}

// set records an episode's new state ("" open, skipped, or an outcome).
func (q *queueIndex) set(id, outcome, kind string) {
	i, ok := q.at[id]
	if !ok {
		return
	}
	q.count(q.items[i].Outcome, -1)
	q.items[i].Outcome, q.items[i].Kind = outcome, kind
	q.count(outcome, 1)
}

func (q *queueIndex) summary() queries.QueueSummary {
	s := queries.QueueSummary{Total: len(q.items), Decided: q.decided, Skipped: q.skipped}
	for _, it := range q.items {
		if it.Outcome == "" {
			s.Next = it.SimulationID
			break
		}
	}
	return s
}

func (q *queueIndex) place(id string) queries.QueuePlace {
	p := queries.QueuePlace{Total: len(q.items)}
	i, ok := q.at[id]
	if !ok {
		return p
	}
	p.Position = i + 1
	if i > 0 {
		p.Prev = q.items[i-1].SimulationID
	}
	if i+1 < len(q.items) {
		p.Next = q.items[i+1].SimulationID
	}
	return p
}

// index returns the session's queue index; s.mu is held. The
// adjudicator's queue (the episodes in dispute, which the reviewers'
// decisions change) is read anew each time.
func (s *Server) index(ctx context.Context, sess session) (*queueIndex, error) {
	if sess.adjudicator {
		all, err := queries.AdjudicationQueue(ctx, s.db, s.opts.Batch, sess.reviewer)
		if err != nil {
			return nil, err
		}
		return newQueueIndex(all), nil
	}
	if q := s.queues[sess.reviewer]; q != nil {
		return q, nil
	}
	items, err := queries.ReviewQueue(ctx, s.db, s.opts.Batch, sess.reviewer)
	if err != nil {
		return nil, err
	}
	q := newQueueIndex(items)
	s.queues[sess.reviewer] = q
	return q, nil
}

// Warm reads every reviewer's queue, so that the first page a reviewer
// opens does not wait for it, and where each episode of the batch lies in
// the conversation tables, so that an episode page reads its rows alone.
func (s *Server) Warm(ctx context.Context) error {
	return s.withDB(func() error {
		spans, err := queries.BatchSpans(ctx, s.db, s.opts.Batch)
		if err != nil {
			return err
		}
		s.spans = spans
		for _, r := range s.opts.Reviewers {
			if _, err := s.index(ctx, session{reviewer: r}); err != nil {
				return err
			}
		}
		return nil
	})
}

// queuePart is one page of the session's queue and the queue's numbers.
func (s *Server) queuePart(ctx context.Context, sess session, offset, limit int) ([]queries.QueueItem, queries.QueueSummary, error) {
	q, err := s.index(ctx, sess)
	if err != nil {
		return nil, queries.QueueSummary{}, err
	}
	page := q.items[min(offset, len(q.items)):min(offset+limit, len(q.items))]
	return append([]queries.QueueItem(nil), page...), q.summary(), nil
}

// place finds an episode in the session's queue.
func (s *Server) place(ctx context.Context, sess session, id string) (queries.QueuePlace, error) {
	q, err := s.index(ctx, sess)
	if err != nil {
		return queries.QueuePlace{}, err
	}
	return q.place(id), nil
}

// recordState keeps the session's queue index current after a write; s.mu
// is held.
func (s *Server) recordState(sess session, id, outcome, kind string) {
	if q := s.queues[sess.reviewer]; q != nil && !sess.adjudicator {
		q.set(id, outcome, kind)
	}
}

// NewServer returns a workbench over ws for one batch, with a fresh random
// token per reviewer.
func NewServer(ws *queries.Workspace, opts Options) (*Server, error) {
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	if opts.PageSize <= 0 {
		opts.PageSize = PageSize
	}
	if len(opts.Reviewers) == 0 {
		return nil, errors.New("review server: batch has no reviewer")
	}
	tmpl, err := template.New("").Funcs(template.FuncMap{
		"visible": visible.Text,
		"add":     func(a, b int) int { return a + b },
		"reward":  fmtReward,
		"seconds": fmtSeconds,
	}).ParseFS(assetFS, "assets/*.html")
	if err != nil {
		return nil, err
	}
	sub, err := fs.Sub(assetFS, "assets")
	if err != nil {
		return nil, err
	}
	s := &Server{ws: ws, db: ws.Conn(), opts: opts, tmpl: tmpl, static: http.StripPrefix("/static/", http.FileServer(http.FS(sub))),
		tokens: map[string]string{}, sessions: map[string]session{}, served: map[[2]string]time.Time{}, queues: map[string]*queueIndex{}}
	for _, r := range opts.Reviewers {
		if r == opts.Adjudicator {
			return nil, fmt.Errorf("review server: %s cannot both review and adjudicate", r)
		}
	}
	for _, r := range append(append([]string(nil), opts.Reviewers...), opts.Adjudicator) {
		if r == "" {
			continue
		}
		t, err := randomHex(24)
		if err != nil {
			return nil, err
		}
		s.tokens[t] = r
	}
	return s, nil
}

// ReviewerURL is where one reviewer starts.
type ReviewerURL struct {
	Reviewer, URL string
}

// URLs returns each reviewer's start URL (with its token) under base
// (http://host:port), in the order of Options.Reviewers.
func (s *Server) URLs(base string) []ReviewerURL {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []ReviewerURL
	for _, r := range append(append([]string(nil), s.opts.Reviewers...), s.opts.Adjudicator) {
		for t, rv := range s.tokens {
			if rv == r {
				out = append(out, ReviewerURL{r, base + "/?token=" + t})
			}
		}
	}
	return out
}

func randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

const cookieName = "ub_review"

// csp allows scripts, styles and images from the server only: no inline
// script or style, no frames, forms post only back to it.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// ServeHTTP checks the host, the session (or the token that opens one) and,
// for writes, the CSRF token, then routes.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Content-Type-Options", "nosniff")
	// same-origin, not no-referrer: with no-referrer a browser sends
	// "Origin: null" on form posts, and the origin check needs the origin.
	h.Set("Referrer-Policy", "same-origin")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cache-Control", "no-store")
	if !s.hostAllowed(r.Host) {
		http.Error(w, "unknown host "+strconv.Quote(r.Host)+": open the URL ub review serve printed", http.StatusMisdirectedRequest)
		return
	}
	if t := r.URL.Query().Get("token"); t != "" {
		s.login(w, r, t)
		return
	}
	sess, ok := s.session(r)
	if !ok {
		http.Error(w, "no review session: open the URL with the token that ub review serve printed", http.StatusUnauthorized)
		return
	}
	switch {
	case strings.HasPrefix(r.URL.Path, "/static/"):
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			methodNotAllowed(w, "GET")
			return
		}
		s.static.ServeHTTP(w, r)
	case r.URL.Path == "/":
		if r.Method != http.MethodGet {
			methodNotAllowed(w, "GET")
			return
		}
		s.queuePage(w, r, sess)
	case r.URL.Path == "/episode":
		if r.Method != http.MethodGet {
			methodNotAllowed(w, "GET")
			return
		}
		s.episodePage(w, r, sess)
	case r.URL.Path == "/decision":
		if r.Method != http.MethodPost {
			methodNotAllowed(w, "POST")
			return
		}
		s.saveDecision(w, r, sess)
	case r.URL.Path == "/undo":
		if r.Method != http.MethodPost {
			methodNotAllowed(w, "POST")
			return
		}
		s.undo(w, r, sess)
	default:
		http.NotFound(w, r)
	}
}

func methodNotAllowed(w http.ResponseWriter, allow string) {
	w.Header().Set("Allow", allow)
	http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
}

func (s *Server) hostAllowed(host string) bool {
	for _, h := range s.opts.Hosts {
		if strings.EqualFold(h, host) {
			return true
		}
	}
	return false
}

func (s *Server) login(w http.ResponseWriter, r *http.Request, token string) {
	if r.Method != http.MethodGet {
		methodNotAllowed(w, "GET")
		return
	}
	s.mu.Lock()
	var reviewer string
	for t, rv := range s.tokens {
		if subtle.ConstantTimeCompare([]byte(t), []byte(token)) == 1 {
			reviewer = rv
		}
	}
	s.mu.Unlock()
	if reviewer == "" {
		http.Error(w, "unknown token", http.StatusUnauthorized)
		return
	}
	id, err1 := randomHex(24)
	csrf, err2 := randomHex(24)
	if err := errors.Join(err1, err2); err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	s.mu.Lock()
	s.sessions[id] = session{reviewer: reviewer, csrf: csrf, adjudicator: reviewer == s.opts.Adjudicator}
	s.mu.Unlock()
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: id, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
	s.opts.Logf("reviewer %s opened a session", reviewer)
	// Drop the token from the address bar and history; a deep link (an
	// episode, a page of the queue) lands where it points.
	http.Redirect(w, r, landing(r.URL), http.StatusSeeOther)
}

// landing is where a token URL leads once the session is open: the same
// page of the workbench without the token; "/" for anything else. Only
// the workbench's own paths and parameters pass, so the redirect cannot
// lead off the server.
func landing(u *url.URL) string {
	q := url.Values{}
	if u.Host != "" || u.Scheme != "" {
		return "/"
	}
	switch u.Path {
	case "/episode":
		id := u.Query().Get("id")
		if id == "" {
			return "/"
		}
		q.Set("id", id)
	case "/":
		if p := u.Query().Get("page"); p != "" {
			if n, err := strconv.Atoi(p); err == nil && n > 0 {
				q.Set("page", strconv.Itoa(n))
			}
		}
	default:
		return "/"
	}
	if len(q) == 0 {
		return u.Path
	}
	return u.Path + "?" + q.Encode()
}

func (s *Server) session(r *http.Request) (session, bool) {
	c, err := r.Cookie(cookieName)
	if err != nil {
		return session{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, ok := s.sessions[c.Value]
	return sess, ok
}

// withDB runs fn with the workspace, one request at a time: the workspace
// has one connection and DuckDB one writer.
func (s *Server) withDB(fn func() error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return fn()
}

type queueData struct {
	Reviewer, Batch      string
	Adjudicator          bool
	Items                []queries.QueueItem
	Done, Skipped, Total int
	Next                 string
	Page, Pages          int
	PrevPage, NextPage   int // 0: none
	First, Last          int // positions shown
}

func (s *Server) queuePage(w http.ResponseWriter, r *http.Request, sess session) {
	page := 1
	if p := r.URL.Query().Get("page"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 {
			http.Error(w, "bad page "+strconv.Quote(p), http.StatusBadRequest)
			return
		}
		page = n
	}
	size := s.opts.PageSize
	var items []queries.QueueItem
	var sum queries.QueueSummary
	err := s.withDB(func() (err error) {
		items, sum, err = s.queuePart(r.Context(), sess, (page-1)*size, size)
		return err
	})
	if err != nil {
		s.internal(w, err)
		return
	}
	d := queueData{Reviewer: sess.reviewer, Batch: s.opts.Batch, Items: items, Total: sum.Total, Done: sum.Decided, Skipped: sum.Skipped,
		Next: sum.Next, Adjudicator: sess.adjudicator, Page: page, Pages: max(1, (sum.Total+size-1)/size)}
	if page > d.Pages {
		http.Error(w, fmt.Sprintf("no page %d: the queue has %d", page, d.Pages), http.StatusNotFound)
		return
	}
	if page > 1 {
		d.PrevPage = page - 1
	}
	if page < d.Pages {
		d.NextPage = page + 1
	}
	if len(items) > 0 {
		d.First, d.Last = (page-1)*size+1, (page-1)*size+len(items)
	}
	s.render(w, "queue.html", d)
}

type turnRow struct {
	queries.EpisodeMessage
	Probes []queries.ProbeHit
	Folded bool // a tool message, or a message with tool calls only
}

type formRow struct {
	Turn     string
	Code     string
	Severity string
	Note     string
}

type episodeData struct {
	Reviewer, Batch, CSRF string
	Position, Total       int
	Prev, Next            string
	Ep                    queries.EpisodeView
	Turns                 []turnRow
	TurnNumbers           []int
	EpisodeProbes         []queries.ProbeHit
	Codebook              []Code
	Severities            []string
	Outcome               string // "" not reviewed, no_error, error
	Rows                  []formRow
	Decided               string // "alice at 2026-...Z (revision 2)"
	Saved                 string // the episode whose decision was just saved ("": none)
	SavedRevision         int    // the revision that save made (what its undo withdraws)
	StandingRevision      int    // the reviewer's latest standing revision here (0: none)
	SavedWhat             string // "decision" or "skip"
	Undone                bool   // an undo just happened on this episode
	Standing              bool   // the reviewer has a standing revision here (undo can withdraw it)
	Skipped               bool   // the reviewer's latest standing revision is a skip
	History               []historyRow
	Prefill               string // the LLM reviewer whose decision fills the form ("": none)
	Problem               string
	Adjudicator           bool
	Others                []otherDecision // the reviewers' decisions, for the adjudicator
}

// historyRow is one earlier revision of the reviewer's decision.
type historyRow struct {
	Revision        int
	Outcome, Errors string
	At, Took        string
	Undone          bool
	Prefilled       string
}

// otherDecision is a reviewer's decision as the adjudicator sees it.
type otherDecision struct {
	Reviewer, Outcome string
	Errors            []string // "turn 3: hallucination (critical_hindered): note"
}

func (s *Server) episodePage(w http.ResponseWriter, r *http.Request, sess session) {
	id := r.URL.Query().Get("id")
	s.renderEpisode(w, r, sess, id, "", nil)
}

// describeErrors says a decision's errors in one line each: "turn 3:
// hallucination (critical_hindered): note".
func describeErrors(es []queries.ReviewError) []string {
	var out []string
	for _, e := range es {
		turn := "episode"
		if e.TurnIdx.Valid {
			turn = "turn " + strconv.FormatInt(e.TurnIdx.Int64, 10)
		}
		out = append(out, fmt.Sprintf("%s: %s (%s): %s", turn, e.Code, e.Severity, e.Note))
	}
	return out
}

func rowsOf(es []queries.ReviewError) []formRow {
	var rows []formRow
	for _, e := range es {
		fr := formRow{Code: e.Code, Severity: e.Severity, Note: e.Note}
		if e.TurnIdx.Valid {
			fr.Turn = strconv.FormatInt(e.TurnIdx.Int64, 10)
		}
		rows = append(rows, fr)
	}
	return rows
}

// renderEpisode draws the episode page; problem and rows re-show a form
// that was refused.
func (s *Server) renderEpisode(w http.ResponseWriter, r *http.Request, sess session, id, problem string, rows []formRow) {
	q := r.URL.Query()
	d := episodeData{Reviewer: sess.reviewer, Batch: s.opts.Batch, CSRF: sess.csrf, Codebook: Codebook, Severities: Severities,
		Saved: q.Get("saved"), SavedWhat: q.Get("what"), Undone: q.Get("undone") != "", Problem: problem}
	if d.SavedWhat != "skip" {
		d.SavedWhat = "decision"
	}
	if n, err := strconv.Atoi(q.Get("rev")); err == nil && n > 0 {
		d.SavedRevision = n
	} else {
		d.Saved = "" // no revision to name: no undo to offer
	}
	var dec queries.Decision
	var decided bool
	var prefill queries.Decision
	status := http.StatusOK
	d.Adjudicator = sess.adjudicator
	err := s.withDB(func() error {
		p, err := s.place(r.Context(), sess, id)
		if err != nil {
			return err
		}
		if p.Position == 0 {
			status = http.StatusNotFound
			return nil
		}
		if sess.adjudicator {
			for _, rv := range s.opts.Reviewers {
				od, ok, err := queries.GetDecision(r.Context(), s.db, id, rv)
				if err != nil {
					return err
				}
				if ok {
					d.Others = append(d.Others, otherDecision{Reviewer: rv, Outcome: od.Outcome, Errors: describeErrors(od.Errors)})
				}
			}
		}
		d.Position, d.Total, d.Prev, d.Next = p.Position, p.Total, p.Prev, p.Next
		if d.Ep, err = s.episode(r.Context(), id); err != nil {
			return err
		}
		if dec, decided, err = queries.GetDecision(r.Context(), s.db, id, sess.reviewer); err != nil {
			return err
		}
		revs, err := queries.DecisionRevisions(r.Context(), s.db, id, sess.reviewer)
		if err != nil {
			return err
		}
		for _, rv := range revs {
			if !rv.UndoneAt.Valid && !d.Standing {
				d.Standing, d.StandingRevision = true, rv.Revision
				d.Skipped = rv.Outcome == queries.OutcomeSkipped
			}
			if decided && !rv.UndoneAt.Valid && rv.Revision == dec.Revision {
				continue // the current decision is said above the form
			}
			d.History = append(d.History, historyRow{Revision: rv.Revision, Outcome: rv.Outcome, Errors: strings.Join(describeErrors(rv.Errors), "; "),
				At: rv.DecidedAt.Format(time.RFC3339), Took: fmtSeconds(rv.LeadTime), Undone: rv.UndoneAt.Valid, Prefilled: rv.Prefilled})
		}
		if s.opts.Prefill != "" && !decided && rows == nil && !sess.adjudicator {
			pd, ok, err := queries.GetDecision(r.Context(), s.db, id, s.opts.Prefill)
			if err != nil {
				return err
			}
			if ok && pd.Kind == queries.KindLLM && (pd.Outcome == queries.OutcomeNoError || pd.Outcome == queries.OutcomeError) {
				prefill, d.Prefill = pd, s.opts.Prefill
			}
		}
		return nil
	})
	if err != nil {
		s.internal(w, err)
		return
	}
	if status == http.StatusNotFound {
		http.Error(w, "episode not in your queue of batch "+s.opts.Batch, http.StatusNotFound)
		return
	}
	probesAt := map[int64][]queries.ProbeHit{}
	for _, p := range d.Ep.Probes {
		if p.TurnIdx.Valid {
			probesAt[p.TurnIdx.Int64] = append(probesAt[p.TurnIdx.Int64], p)
		} else {
			d.EpisodeProbes = append(d.EpisodeProbes, p)
		}
	}
	seenTurn := map[int]bool{}
	for _, m := range d.Ep.Messages {
		tr := turnRow{EpisodeMessage: m, Folded: m.Role == "tool"}
		if !seenTurn[m.TurnIdx] {
			seenTurn[m.TurnIdx] = true
			d.TurnNumbers = append(d.TurnNumbers, m.TurnIdx)
			tr.Probes = probesAt[int64(m.TurnIdx)]
			delete(probesAt, int64(m.TurnIdx))
		}
		d.Turns = append(d.Turns, tr)
	}
	for _, ps := range probesAt { // probes at a turn with no message: show at the top
		d.EpisodeProbes = append(d.EpisodeProbes, ps...)
	}
	if decided {
		d.Outcome = dec.Outcome
		d.Decided = fmt.Sprintf("%s at %s (revision %d", dec.Reviewer, dec.DecidedAt.UTC().Format(time.RFC3339), dec.Revision)
		if dec.LeadTime.Valid {
			d.Decided += ", " + fmtSeconds(dec.LeadTime)
		}
		if dec.Prefilled != "" {
			d.Decided += ", made on a form pre-filled by " + dec.Prefilled
		}
		d.Decided += ")"
		d.Rows = rowsOf(dec.Errors)
	} else if d.Prefill != "" {
		d.Outcome = prefill.Outcome
		d.Rows = rowsOf(prefill.Errors)
	}
	if rows != nil {
		d.Rows = rows
	}
	for len(d.Rows) < ErrorRows {
		d.Rows = append(d.Rows, formRow{Severity: "minor"})
	}
	if problem == "" {
		s.mu.Lock()
		s.served[[2]string{sess.reviewer, id}] = s.opts.Clock()
		s.mu.Unlock()
	}
	if problem != "" {
		w.WriteHeader(http.StatusUnprocessableEntity)
	}
	s.render(w, "episode.html", d)
}

// acceptWrite checks a posted form before any write: same origin, a body
// of at most limit bytes that parses, and the session's CSRF token. It
// answers the refusal itself and returns false when one check fails.
func acceptWrite(w http.ResponseWriter, r *http.Request, sess session, limit int64) bool {
	if !sameOrigin(r) {
		http.Error(w, "cross-site write refused", http.StatusForbidden)
		return false
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form: "+err.Error(), http.StatusBadRequest)
		return false
	}
	if subtle.ConstantTimeCompare([]byte(r.PostForm.Get("csrf")), []byte(sess.csrf)) != 1 {
		http.Error(w, "bad or missing CSRF token: reload the page", http.StatusForbidden)
		return false
	}
	return true
}

// saveDecision stores the posted decision and answers only after it is
// committed: the redirect is the acknowledgement.
func (s *Server) saveDecision(w http.ResponseWriter, r *http.Request, sess session) {
	if !acceptWrite(w, r, sess, 1<<20) {
		return
	}
	id := r.PostForm.Get("id")
	outcome := r.PostForm.Get("outcome")
	skip := r.PostForm.Get("action") == "skip"
	var rows []formRow
	for i := range MaxErrorRows {
		k := strconv.Itoa(i)
		if i >= ErrorRows && !r.PostForm.Has("code"+k) {
			break
		}
		fr := formRow{Turn: strings.TrimSpace(r.PostForm.Get("turn" + k)), Code: r.PostForm.Get("code" + k),
			Severity: r.PostForm.Get("severity" + k), Note: strings.TrimSpace(r.PostForm.Get("note" + k))}
		rows = append(rows, fr)
	}
	now := s.opts.Clock().UTC()
	var next string
	var problem string
	var rev int
	err := s.withDB(func() error {
		p, err := s.place(r.Context(), sess, id)
		if err != nil {
			return err
		}
		if p.Position == 0 {
			problem = "episode not in your queue"
			return nil
		}
		next = p.Next
		var dec queries.Decision
		if skip {
			dec = queries.Decision{SimulationID: id, Reviewer: sess.reviewer, Kind: queries.KindHuman, Batch: s.opts.Batch, Source: "web"}
		} else {
			ep, err := s.episode(r.Context(), id)
			if err != nil {
				return err
			}
			turns := map[int64]bool{}
			for _, m := range ep.Messages {
				turns[int64(m.TurnIdx)] = true
			}
			var msg string
			dec, msg = buildDecision(id, sess.reviewer, s.opts.Batch, outcome, rows, turns)
			if msg != "" {
				problem = msg
				return nil
			}
		}
		if sess.adjudicator {
			dec.Kind = queries.KindAdjudicator
		}
		dec.DecidedAt = now
		key := [2]string{sess.reviewer, id} // s.mu is held (withDB)
		if at, ok := s.served[key]; ok && !now.Before(at) {
			dec.LeadTime = sql.NullFloat64{Float64: now.Sub(at).Seconds(), Valid: true}
		}
		delete(s.served, key)
		dec.ClientTime = clientSeconds(r.PostForm.Get("client_ms"))
		if pf := r.PostForm.Get("prefilled"); !skip && pf != "" && pf == s.opts.Prefill {
			dec.Prefilled = pf
		}
		if skip {
			if rev, err = queries.SkipEpisode(r.Context(), s.ws, dec); err == nil {
				s.recordState(sess, id, queries.OutcomeSkipped, "")
			}
		} else if rev, err = queries.SaveDecision(r.Context(), s.ws, dec); err == nil {
			s.recordState(sess, id, dec.Outcome, dec.Kind)
		}
		return err
	})
	if err != nil {
		s.internal(w, err)
		return
	}
	if problem == "episode not in your queue" {
		http.Error(w, problem, http.StatusNotFound)
		return
	}
	if problem != "" {
		s.renderEpisode(w, r, sess, id, problem, rows)
		return
	}
	what := "decision"
	if skip {
		what, outcome = "skip", queries.OutcomeSkipped
	}
	s.opts.Logf("%s: %s on %s (revision %d)", sess.reviewer, outcome, id, rev)
	stay := r.PostForm.Get("stay") != ""
	target := "/"
	if next != "" && !stay {
		target = "/episode?id=" + url.QueryEscape(next) + "&saved=" + url.QueryEscape(id) + "&rev=" + strconv.Itoa(rev) + "&what=" + what
	} else if stay {
		target = "/episode?id=" + url.QueryEscape(id) + "&saved=" + url.QueryEscape(id) + "&rev=" + strconv.Itoa(rev) + "&what=" + what
	}
	http.Redirect(w, r, target, http.StatusSeeOther)
}

// clientSeconds reads the browser's measure of the time spent on a page
// (milliseconds); anything but a number between 0 and a week is unknown.
func clientSeconds(ms string) sql.NullFloat64 {
	v, err := strconv.ParseFloat(strings.TrimSpace(ms), 64)
	if err != nil || !(v >= 0 && v <= 7*24*3600*1000) {
		return sql.NullFloat64{}
	}
	return sql.NullFloat64{Float64: v / 1000, Valid: true}
}

// undo withdraws the revision the form names (queries.UndoDecision), the
// reviewer's latest standing one on an episode, and shows the episode
// again. The same undo sent twice changes nothing the second time.
func (s *Server) undo(w http.ResponseWriter, r *http.Request, sess session) {
	if !acceptWrite(w, r, sess, 1<<16) {
		return
	}
	id := r.PostForm.Get("id")
	rev, err := strconv.Atoi(r.PostForm.Get("revision"))
	if err != nil || rev < 1 {
		http.Error(w, "an undo names the revision it withdraws (a whole number from 1)", http.StatusBadRequest)
		return
	}
	var u queries.Undo
	notInQueue := false
	err = s.withDB(func() error {
		p, err := s.place(r.Context(), sess, id)
		if err != nil {
			return err
		}
		if p.Position == 0 {
			notInQueue = true
			return nil
		}
		if u, err = queries.UndoDecision(r.Context(), s.ws, id, sess.reviewer, rev, s.opts.Clock()); err != nil {
			return err
		}
		switch {
		case u.Already:
		case u.OK:
			s.recordState(sess, id, u.Current.Outcome, u.Current.Kind)
		case u.Skipped:
			s.recordState(sess, id, queries.OutcomeSkipped, "")
		default:
			s.recordState(sess, id, "", "")
		}
		return nil
	})
	switch {
	case notInQueue:
		http.Error(w, "episode not in your queue", http.StatusNotFound)
		return
	case errors.Is(err, queries.ErrNothingToUndo):
		http.Error(w, "nothing to undo on this episode: no revision "+strconv.Itoa(rev)+" of yours", http.StatusConflict)
		return
	case errors.Is(err, queries.ErrNotLatest):
		http.Error(w, "revision "+strconv.Itoa(rev)+" is not your latest standing revision on this episode: reload the page", http.StatusConflict)
		return
	case err != nil:
		s.internal(w, err)
		return
	}
	if u.Already {
		s.opts.Logf("%s: revision %d on %s was undone already; nothing changed", sess.reviewer, rev, id)
	} else {
		s.opts.Logf("%s: undid revision %d on %s", sess.reviewer, u.Withdrawn.Revision, id)
	}
	http.Redirect(w, r, "/episode?id="+url.QueryEscape(id)+"&undone="+strconv.Itoa(u.Withdrawn.Revision), http.StatusSeeOther)
}

// buildDecision validates a posted form; a non-empty message says what is
// wrong with it.
func buildDecision(id, reviewer, batch, outcome string, rows []formRow, turns map[int64]bool) (queries.Decision, string) {
	d := queries.Decision{SimulationID: id, Reviewer: reviewer, Kind: queries.KindHuman, Batch: batch, Source: "web"}
	var filled []formRow
	for _, fr := range rows {
		if fr.Code != "" || fr.Note != "" || fr.Turn != "" {
			filled = append(filled, fr)
		}
	}
	switch outcome {
	case queries.OutcomeNoError:
		if len(filled) > 0 {
			return d, "\"no simulator error\" with error rows filled in: clear them or choose \"simulator error\""
		}
	case queries.OutcomeError:
		if len(filled) == 0 {
			return d, "\"simulator error\" needs at least one error (turn, code, severity)"
		}
	default:
		return d, "choose \"no simulator error\" (x) or record an error (a code key)"
	}
	d.Outcome = outcome
	for i, fr := range filled {
		if !ValidCode(fr.Code) {
			return d, fmt.Sprintf("error %d: choose a code from the codebook", i+1)
		}
		if !ValidSeverity(fr.Severity) {
			return d, fmt.Sprintf("error %d: unknown severity %q", i+1, fr.Severity)
		}
		e := queries.ReviewError{Code: fr.Code, Severity: fr.Severity, Note: fr.Note}
		if fr.Turn != "" {
			t, err := strconv.ParseInt(fr.Turn, 10, 64)
			if err != nil || !turns[t] {
				return d, fmt.Sprintf("error %d: turn %q is not a turn of this episode", i+1, fr.Turn)
			}
			e.TurnIdx = sql.NullInt64{Int64: t, Valid: true}
		}
		d.Errors = append(d.Errors, e)
	}
	return d, ""
}

// sameOrigin refuses a write whose browser says it comes from another
// site (Sec-Fetch-Site) or another origin (Origin).
func sameOrigin(r *http.Request) bool {
	if sfs := r.Header.Get("Sec-Fetch-Site"); sfs != "" && sfs != "same-origin" && sfs != "none" {
		return false
	}
	if o := r.Header.Get("Origin"); o != "" {
		u, err := url.Parse(o)
		if err != nil || !strings.EqualFold(u.Host, r.Host) {
			return false
		}
	}
	return true
}

func (s *Server) render(w http.ResponseWriter, name string, data any) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := s.tmpl.ExecuteTemplate(w, name, data); err != nil {
		s.opts.Logf("render %s: %v", name, err)
	}
}

func (s *Server) internal(w http.ResponseWriter, err error) {
	s.opts.Logf("internal error: %v", err)
	http.Error(w, "internal error (see the server's log)", http.StatusInternalServerError)
}

// fmtSeconds says a time spent: "42 s", "3 min 5 s"; "" when unknown.
func fmtSeconds(v sql.NullFloat64) string {
	if !v.Valid {
		return ""
	}
	sec := int(v.Float64 + 0.5)
	if sec < 60 {
		return strconv.Itoa(sec) + " s"
	}
	return fmt.Sprintf("%d min %d s", sec/60, sec%60)
}

func fmtReward(r sql.NullFloat64) string {
	if !r.Valid {
		return "?"
	}
	return strconv.FormatFloat(r.Float64, 'g', 4, 64)
}

// Listen binds addr. An address that is not loopback is refused unless
// allowRemote is set (the caller warns: the page then reaches the
// network, protected only by the token, over plain HTTP). The returned
// hosts are what the Host header may say.
func Listen(ctx context.Context, addr string, allowRemote bool) (net.Listener, []string, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, nil, fmt.Errorf("--addr %q: %w", addr, err)
	}
	if !allowRemote && !isLoopback(host) {
		return nil, nil, fmt.Errorf("--addr %s is not a loopback address: reviewers' decisions and the conversations would be reachable from the network over plain HTTP; pass --allow-remote to do it anyway", addr)
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, nil, err
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	hosts := []string{net.JoinHostPort(host, port)}
	if isLoopback(host) || host == "" {
		hosts = append(hosts, net.JoinHostPort("127.0.0.1", port), net.JoinHostPort("localhost", port), net.JoinHostPort("::1", port))
	}
	return ln, hosts, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
