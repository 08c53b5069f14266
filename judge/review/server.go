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

// ErrorRows is the number of error rows on the decision form.
const ErrorRows = 4

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
}

// Server is the review workbench's HTTP handler over one workspace.
type Server struct {
	ws     *queries.Workspace
	opts   Options
	tmpl   *template.Template
	static http.Handler

	mu       sync.Mutex // guards the maps and serialises the workspace connection
	tokens   map[string]string
	sessions map[string]session
}

type session struct {
	reviewer, csrf string
	adjudicator    bool
}

// queue is the session's queue: its assignments, or for the adjudicator
// the episodes in dispute.
func (s *Server) queue(ctx context.Context, sess session) ([]queries.QueueItem, error) {
	if sess.adjudicator {
		return queries.AdjudicationQueue(ctx, s.ws.Conn(), s.opts.Batch, sess.reviewer)
	}
	return queries.ReviewQueue(ctx, s.ws.Conn(), s.opts.Batch, sess.reviewer)
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
	if len(opts.Reviewers) == 0 {
		return nil, errors.New("review server: batch has no reviewer")
	}
	tmpl, err := template.New("").Funcs(template.FuncMap{
		"visible": visible.Text,
		"add":     func(a, b int) int { return a + b },
		"reward":  fmtReward,
	}).ParseFS(assetFS, "assets/*.html")
	if err != nil {
		return nil, err
	}
	sub, err := fs.Sub(assetFS, "assets")
	if err != nil {
		return nil, err
	}
	s := &Server{ws: ws, opts: opts, tmpl: tmpl, static: http.StripPrefix("/static/", http.FileServer(http.FS(sub))),
		tokens: map[string]string{}, sessions: map[string]session{}}
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
	// Drop the token from the address bar and history.
	http.Redirect(w, r, "/", http.StatusSeeOther)
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
	Reviewer, Batch string
	Adjudicator     bool
	Items           []queries.QueueItem
	Done, Total     int
	Next            string
}

func (s *Server) queuePage(w http.ResponseWriter, r *http.Request, sess session) {
	var items []queries.QueueItem
	err := s.withDB(func() (err error) {
		items, err = s.queue(r.Context(), sess)
		return err
	})
	if err != nil {
		s.internal(w, err)
		return
	}
	d := queueData{Reviewer: sess.reviewer, Batch: s.opts.Batch, Items: items, Total: len(items), Adjudicator: sess.adjudicator}
	for _, it := range items {
		if it.Outcome != "" {
			d.Done++
		} else if d.Next == "" {
			d.Next = it.SimulationID
		}
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
	Saved                 bool
	Problem               string
	Adjudicator           bool
	Others                []otherDecision // the reviewers' decisions, for the adjudicator
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

// renderEpisode draws the episode page; problem and rows re-show a form
// that was refused.
func (s *Server) renderEpisode(w http.ResponseWriter, r *http.Request, sess session, id, problem string, rows []formRow) {
	d := episodeData{Reviewer: sess.reviewer, Batch: s.opts.Batch, CSRF: sess.csrf, Codebook: Codebook, Severities: Severities,
		Saved: r.URL.Query().Get("saved") != "", Problem: problem}
	var dec queries.Decision
	var decided bool
	status := http.StatusOK
	d.Adjudicator = sess.adjudicator
	err := s.withDB(func() error {
		items, err := s.queue(r.Context(), sess)
		if err != nil {
			return err
		}
		pos := -1
		for i, it := range items {
			if it.SimulationID == id {
				pos = i
			}
		}
		if pos < 0 {
			status = http.StatusNotFound
			return nil
		}
		if sess.adjudicator {
			for _, rv := range s.opts.Reviewers {
				od, ok, err := queries.GetDecision(r.Context(), s.ws.Conn(), id, rv)
				if err != nil {
					return err
				}
				if !ok {
					continue
				}
				o := otherDecision{Reviewer: rv, Outcome: od.Outcome}
				for _, e := range od.Errors {
					turn := "episode"
					if e.TurnIdx.Valid {
						turn = "turn " + strconv.FormatInt(e.TurnIdx.Int64, 10)
					}
					o.Errors = append(o.Errors, fmt.Sprintf("%s: %s (%s): %s", turn, e.Code, e.Severity, e.Note))
				}
				d.Others = append(d.Others, o)
			}
		}
		d.Position, d.Total = pos+1, len(items)
		if pos > 0 {
			d.Prev = items[pos-1].SimulationID
		}
		if pos+1 < len(items) {
			d.Next = items[pos+1].SimulationID
		}
		if d.Ep, err = queries.ReviewEpisode(r.Context(), s.ws.Conn(), id); err != nil {
			return err
		}
		dec, decided, err = queries.GetDecision(r.Context(), s.ws.Conn(), id, sess.reviewer)
		return err
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
		d.Decided = fmt.Sprintf("%s at %s (revision %d)", dec.Reviewer, dec.DecidedAt.UTC().Format(time.RFC3339), dec.Revision)
		for _, e := range dec.Errors {
			fr := formRow{Code: e.Code, Severity: e.Severity, Note: e.Note}
			if e.TurnIdx.Valid {
				fr.Turn = strconv.FormatInt(e.TurnIdx.Int64, 10)
			}
			d.Rows = append(d.Rows, fr)
		}
	}
	if rows != nil {
		d.Rows = rows
	}
	for len(d.Rows) < ErrorRows {
		d.Rows = append(d.Rows, formRow{Severity: "minor"})
	}
	if problem != "" {
		w.WriteHeader(http.StatusUnprocessableEntity)
	}
	s.render(w, "episode.html", d)
}

// saveDecision stores the posted decision and answers only after it is
// committed: the redirect is the acknowledgement.
func (s *Server) saveDecision(w http.ResponseWriter, r *http.Request, sess session) {
	if !sameOrigin(r) {
		http.Error(w, "cross-site write refused", http.StatusForbidden)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form: "+err.Error(), http.StatusBadRequest)
		return
	}
	if subtle.ConstantTimeCompare([]byte(r.PostForm.Get("csrf")), []byte(sess.csrf)) != 1 {
		http.Error(w, "bad or missing CSRF token: reload the page", http.StatusForbidden)
		return
	}
	id := r.PostForm.Get("id")
	outcome := r.PostForm.Get("outcome")
	var rows []formRow
	for i := range ErrorRows {
		k := strconv.Itoa(i)
		fr := formRow{Turn: strings.TrimSpace(r.PostForm.Get("turn" + k)), Code: r.PostForm.Get("code" + k),
			Severity: r.PostForm.Get("severity" + k), Note: strings.TrimSpace(r.PostForm.Get("note" + k))}
		rows = append(rows, fr)
	}
	var next string
	var problem string
	var rev int
	err := s.withDB(func() error {
		items, err := s.queue(r.Context(), sess)
		if err != nil {
			return err
		}
		pos := -1
		for i, it := range items {
			if it.SimulationID == id {
				pos = i
			}
		}
		if pos < 0 {
			problem = "episode not in your queue"
			return nil
		}
		if pos+1 < len(items) {
			next = items[pos+1].SimulationID
		}
		ep, err := queries.ReviewEpisode(r.Context(), s.ws.Conn(), id)
		if err != nil {
			return err
		}
		turns := map[int64]bool{}
		for _, m := range ep.Messages {
			turns[int64(m.TurnIdx)] = true
		}
		dec, msg := buildDecision(id, sess.reviewer, s.opts.Batch, outcome, rows, turns)
		if msg != "" {
			problem = msg
			return nil
		}
		if sess.adjudicator {
			dec.Kind = queries.KindAdjudicator
		}
		dec.DecidedAt = s.opts.Clock().UTC()
		rev, err = queries.SaveDecision(r.Context(), s.ws, dec)
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
	s.opts.Logf("%s: %s on %s (revision %d)", sess.reviewer, outcome, id, rev)
	target := "/"
	if next != "" && r.PostForm.Get("stay") == "" {
		target = "/episode?id=" + url.QueryEscape(next) + "&saved=" + url.QueryEscape(id)
	} else if r.PostForm.Get("stay") != "" {
		target = "/episode?id=" + url.QueryEscape(id) + "&saved=" + url.QueryEscape(id)
	}
	http.Redirect(w, r, target, http.StatusSeeOther)
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
