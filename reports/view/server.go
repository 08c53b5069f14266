package view

import (
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// ServerOptions configures NewServer.
type ServerOptions struct {
	// Hosts are the Host header values the server answers (host:port);
	// a request naming another host is refused (DNS rebinding).
	Hosts []string
	// Logf reports what the server does (nil: silent). It never receives
	// the token.
	Logf func(format string, args ...any)
}

// Server serves a Site read-only: every page needs the session the token
// URL opens; only GET and HEAD are answered.
type Server struct {
	site  *Site
	opts  ServerOptions
	token string
	// mu serialises the workspace connection: one query at a time.
	mu sync.Mutex
	// sessions holds the session ids the token URL opened.
	sessions sync.Map
}

// NewServer returns a server of site with a fresh random token.
func NewServer(site *Site, opts ServerOptions) (*Server, error) {
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	t, err := randomHex(24)
	if err != nil {
		return nil, err
	}
	return &Server{site: site, opts: opts, token: t}, nil
}

// URL is where a reader starts: base (http://host:port) with the token.
func (s *Server) URL(base string) string { return base + "/?token=" + s.token }

func randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

const cookieName = "ub_view"

// csp allows styles, images and forms from the server only, and no script
// at all: the pages need none.
const csp = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// ServeHTTP checks the method, the host and the session (or the token
// that opens one), then renders the page.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cache-Control", "no-store")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed: ub view is read-only", http.StatusMethodNotAllowed)
		return
	}
	if !s.hostAllowed(r.Host) {
		http.Error(w, "unknown host "+strconv.Quote(r.Host)+": open the URL ub view printed", http.StatusMisdirectedRequest)
		return
	}
	if t := r.URL.Query().Get("token"); t != "" {
		s.login(w, r, t)
		return
	}
	if !s.hasSession(r) {
		http.Error(w, "no session: open the URL with the token that ub view printed", http.StatusUnauthorized)
		return
	}
	switch {
	case r.URL.Path == "/static/view.css":
		b, err := assetFS.ReadFile("assets/view.css")
		if err != nil {
			s.fail(w, err)
			return
		}
		h.Set("Content-Type", "text/css; charset=utf-8")
		w.Write(b)
	case strings.HasPrefix(r.URL.Path, "/fig/"):
		s.figure(w, r, strings.TrimPrefix(r.URL.Path, "/fig/"))
	default:
		kind := strings.TrimPrefix(r.URL.Path, "/")
		if kind == "" {
			kind = KindIndex
		}
		s.page(w, r, Page{Kind: kind, Q: r.URL.Query()})
	}
}

func (s *Server) hostAllowed(host string) bool {
	for _, h := range s.opts.Hosts {
		if strings.EqualFold(h, host) {
			return true
		}
	}
	return false
}

// login opens a session for the token and sends the browser to the same
// address without it, so the token leaves the address bar and history.
func (s *Server) login(w http.ResponseWriter, r *http.Request, token string) {
	if subtle.ConstantTimeCompare([]byte(token), []byte(s.token)) != 1 {
		http.Error(w, "unknown token: open the URL ub view printed", http.StatusUnauthorized)
		return
	}
	id, err := randomHex(24)
	if err != nil {
		s.fail(w, err)
		return
	}
	s.sessions.Store(id, true)
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: id, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
	q := r.URL.Query()
	q.Del("token")
	to := r.URL.Path
	if len(q) > 0 {
		to += "?" + q.Encode()
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}

func (s *Server) hasSession(r *http.Request) bool {
	c, err := r.Cookie(cookieName)
	if err != nil {
		return false
	}
	_, ok := s.sessions.Load(c.Value)
	return ok
}

// figure serves one of the report's figure files, by base name only.
func (s *Server) figure(w http.ResponseWriter, r *http.Request, name string) {
	if s.site.opts.ReportDir == "" || !figureFile(name) || !s.site.hasFigure(name) {
		http.NotFound(w, r)
		return
	}
	b, err := os.ReadFile(filepath.Join(s.site.opts.ReportDir, name))
	if errors.Is(err, fs.ErrNotExist) {
		http.NotFound(w, r)
		return
	}
	if err != nil {
		s.fail(w, err)
		return
	}
	switch filepath.Ext(name) {
	case ".svg":
		w.Header().Set("Content-Type", "image/svg+xml")
	case ".png":
		w.Header().Set("Content-Type", "image/png")
	case ".csv":
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	}
	w.Write(b)
}

func (s *Server) page(w http.ResponseWriter, r *http.Request, p Page) {
	var buf bytes.Buffer
	s.mu.Lock()
	err := s.site.render(r.Context(), &buf, p, liveLinker{})
	s.mu.Unlock()
	switch {
	case errors.Is(err, ErrNotFound):
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	case errors.Is(err, ErrBadRequest):
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	case err != nil:
		s.fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(buf.Bytes())
}

func (s *Server) fail(w http.ResponseWriter, err error) {
	s.opts.Logf("%v", err)
	http.Error(w, "internal error: "+err.Error(), http.StatusInternalServerError)
}
