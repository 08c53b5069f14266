package view

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/reports/visible"
	"github.com/ub-bench/ub/sim"
)

//go:embed assets/*.html assets/*.css
var assetFS embed.FS

// PageSize is the number of rows on a page of a list when Options.PageSize
// is 0.
const PageSize = 50

// Examples is the number of rows a list of the static site shows when
// Options.Examples is 0: the site stays the same size at any scale, and
// each list says how many rows it leaves out.
const Examples = 10

// Options configures NewSite. The zero value of each field but Report
// works.
type Options struct {
	// Judge scores UserBench (the report's judge; "": no labels).
	Judge string
	// Grader's verdicts give f (the report's grader; "": none).
	Grader string
	// ReportDir holds the rendered report: report.md and its figures
	// (reports.Report.WriteAll). "": the front page has no report.
	ReportDir string
	// PageSize is the rows on a page of a list; 0 means PageSize.
	PageSize int
	// Examples is the rows of a list on the static site; 0 means Examples.
	Examples int
}

// Site renders the pages over one workspace.
type Site struct {
	db       queries.Querier
	opts     Options
	tmpl     *template.Template
	n, k     int                        // the report's anchor setting
	settings []queries.StudySetting     // every stored setting (simulator, condition, N, K)
	ubSims   map[string]map[string]bool // simulator -> conditions at the anchor
	userSims map[string][]string        // user simulator -> domains
	report   []byte                     // report.md ("" when none)
	// inputs reads what a moment's prompt was built from; it keeps each
	// developer's persona once computed (about 1 kB a developer shown).
	inputs  *sim.Inputs
	figures []string // the report's figure files, sorted
	// searchExtent bounds the search (read at the first search).
	searchExtent *queries.SearchExtent
}

// NewSite reads what the pages name (the UserBench simulators and their
// conditions, the user simulators and their domains, the anchor setting)
// and the report's Markdown.
func NewSite(ctx context.Context, db queries.Querier, opts Options) (*Site, error) {
	if opts.PageSize <= 0 {
		opts.PageSize = PageSize
	}
	if opts.Examples <= 0 {
		opts.Examples = Examples
	}
	tmpl, err := template.New("").Funcs(template.FuncMap{
		"v":     visible.Text,
		"num":   fmtNum,
		"nullf": fmtNullFloat,
		"pct":   fmtShare,
		"count": counted,
	}).ParseFS(assetFS, "assets/*.html")
	if err != nil {
		return nil, err
	}
	s := &Site{db: db, opts: opts, tmpl: tmpl, ubSims: map[string]map[string]bool{}, inputs: sim.NewInputs(db, sim.InputsOptions{})}
	settings, err := queries.ViewSettings(ctx, db)
	if err != nil {
		return nil, fmt.Errorf("view: settings: %w", err)
	}
	s.n, s.k = queries.Anchor(settings)
	s.settings = settings
	for _, st := range settings {
		if st.N == s.n && st.K == s.k {
			if s.ubSims[st.Simulator] == nil {
				s.ubSims[st.Simulator] = map[string]bool{}
			}
			s.ubSims[st.Simulator][st.Condition] = true
		}
	}
	if s.userSims, err = queries.ViewUserSims(ctx, db); err != nil {
		return nil, fmt.Errorf("view: user simulators: %w", err)
	}
	if err := queries.ViewWarm(ctx, db, opts.Judge, opts.Grader, s.n, s.k); err != nil {
		return nil, fmt.Errorf("view: %w", err)
	}
	if opts.ReportDir != "" {
		if s.report, err = os.ReadFile(filepath.Join(opts.ReportDir, "report.md")); err != nil {
			return nil, fmt.Errorf("view: %w", err)
		}
		ents, err := os.ReadDir(opts.ReportDir)
		if err != nil {
			return nil, fmt.Errorf("view: %w", err)
		}
		for _, e := range ents {
			if figureFile(e.Name()) {
				s.figures = append(s.figures, e.Name())
			}
		}
		sort.Strings(s.figures)
	}
	return s, nil
}

// figureFile is whether a report file is served as a figure: its
// pictures and tables.
func figureFile(name string) bool {
	switch filepath.Ext(name) {
	case ".svg", ".png", ".csv":
		return !strings.ContainsAny(name, "/\\")
	}
	return false
}

// Page kinds: the path of a page on the server.
const (
	KindIndex   = "index"
	KindUBSim   = "ub/sim"
	KindUBDev   = "ub/dev"
	KindMoment  = "ub/moment"
	KindFidSim  = "fid/sim"
	KindEpisode = "fid/episode"
	KindReview  = "review/episodes"
	KindCompare = "compare"
	KindCell    = "ub/cell"
)

// Page is one page: its kind and parameters.
type Page struct {
	Kind string
	Q    url.Values
}

func page(kind string, kv ...string) Page {
	q := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			q.Set(kv[i], kv[i+1])
		}
	}
	return Page{Kind: kind, Q: q}
}

// linker makes the links of a page: to the server's paths (live) or to the
// static site's files (static, which records every page it links to).
type linker interface {
	link(p Page) string
	asset(name string) string // the style sheet
	figure(name string) string
	static() bool
}

type liveLinker struct{}

func (liveLinker) link(p Page) string {
	path := "/" + p.Kind
	if p.Kind == KindIndex {
		path = "/"
	}
	if len(p.Q) == 0 {
		return path
	}
	return path + "?" + p.Q.Encode()
}
func (liveLinker) asset(name string) string  { return "/static/" + name }
func (liveLinker) figure(name string) string { return "/fig/" + url.PathEscape(name) }
func (liveLinker) static() bool              { return false }

// staticLinker links to the site's files, all in one folder: index.html
// and kind-hash.html, the hash of the page's parameters. It also holds
// what WriteSite read ahead for the pages still to write: the evidence of
// episodes (EpisodeEvidenceOf, dropped once the page is written) and the
// episodes of each task (ViewSameTask, shared by the pages of a task).
type staticLinker struct {
	seen     map[string]Page
	evidence map[string]*queries.EpisodeEvidence
	sameTask map[[2]string][]queries.ViewTaskEpisode
	// moments holds what the moment pages read ahead show, by page.
	moments map[queries.PointSetting]*momentAhead
}

// momentAhead is what a moment page shows, read ahead by WriteSite with
// the pages after it: its point's context and label, and its generations
// (at the anchor, those ViewWarm scored; elsewhere, or at the anchor for a
// point it did not score, ViewPointGenerations').
type momentAhead struct {
	data  *queries.PointData
	label queries.PointLabel
	gens  []queries.ViewGeneration
}

// FileName is the static site's file of a page.
func FileName(p Page) string {
	if p.Kind == KindIndex {
		return "index.html"
	}
	h := sha256.Sum256([]byte(p.Q.Encode()))
	return strings.ReplaceAll(p.Kind, "/", "-") + "-" + hex.EncodeToString(h[:6]) + ".html"
}

func (l *staticLinker) link(p Page) string {
	f := FileName(p)
	if _, ok := l.seen[f]; !ok {
		l.seen[f] = p
	}
	return f
}
func (*staticLinker) asset(name string) string  { return name }
func (*staticLinker) figure(name string) string { return "fig/" + name }
func (*staticLinker) static() bool              { return true }

// ErrNotFound is a page that names nothing the workspace holds.
var ErrNotFound = errors.New("not found")

// ErrBadRequest is a page whose parameters do not parse.
var ErrBadRequest = errors.New("bad request")

// render writes one page.
func (s *Site) render(ctx context.Context, w io.Writer, p Page, l linker) error {
	var name string
	var data any
	var err error
	switch p.Kind {
	case KindIndex:
		name = "index"
		data, err = s.indexData(l)
	case KindUBSim:
		name = "ubsim"
		data, err = s.ubSimData(ctx, p, l)
	case KindUBDev:
		name = "ubdev"
		data, err = s.ubDevData(ctx, p, l)
	case KindMoment:
		name = "moment"
		data, err = s.momentData(ctx, p, l)
	case KindFidSim:
		name = "fidsim"
		data, err = s.fidSimData(ctx, p, l)
	case KindEpisode:
		name = "episode"
		data, err = s.episodeData(ctx, p, l)
	case KindReview:
		name = "review"
		data, err = s.reviewData(ctx, p, l)
	case KindCompare:
		name = "compare"
		data, err = s.compareData(ctx, p, l)
	case KindSearch:
		name = "search"
		data, err = s.searchData(ctx, p, l)
	case KindCell:
		name = "ubcell"
		data, err = s.cellData(ctx, p, l)
	default:
		return ErrNotFound
	}
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := s.tmpl.ExecuteTemplate(&buf, name, data); err != nil {
		return err
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// frame is what every page shows around its content.
type frame struct {
	Title  string
	CSS    string
	Crumbs []crumb
	Static bool
	Note   string // what a static list leaves out, said once per page
}

type crumb struct{ Text, Href string }

func (s *Site) frame(l linker, title string, crumbs ...crumb) frame {
	return frame{Title: title, CSS: l.asset("view.css"), Static: l.static(),
		Crumbs: append([]crumb{{"report", l.link(Page{Kind: KindIndex})}}, crumbs...)}
}

// pageOf reads the page number (from 1) of a list; the static site shows
// the first Examples rows.
func (s *Site) pageOf(p Page, l linker) (queries.ViewPage, int, error) {
	if l.static() {
		return queries.ViewPage{Limit: s.opts.Examples}, 1, nil
	}
	n := 1
	if v := p.Q.Get("page"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 || n > 1<<20 {
			return queries.ViewPage{}, 0, fmt.Errorf("%w: page %q", ErrBadRequest, v)
		}
	}
	return queries.ViewPage{Limit: s.opts.PageSize, Offset: (n - 1) * s.opts.PageSize}, n, nil
}

// pager is the links to the pages of a list around page n of total rows.
type pager struct {
	Shown, Total, From, To int
	Prev, Next             string
	Static                 bool
	Examples               int
}

func (s *Site) pager(p Page, l linker, n, shown, total int) pager {
	pg := pager{Shown: shown, Total: total, Static: l.static(), Examples: s.opts.Examples}
	if shown == 0 {
		return pg
	}
	pg.From = (n-1)*s.opts.PageSize + 1
	if l.static() {
		pg.From = 1
	}
	pg.To = pg.From + shown - 1
	if l.static() {
		return pg
	}
	at := func(m int) string {
		q := url.Values{}
		for k, v := range p.Q {
			q[k] = v
		}
		q.Set("page", strconv.Itoa(m))
		return l.link(Page{Kind: p.Kind, Q: q})
	}
	if n > 1 {
		pg.Prev = at(n - 1)
	}
	if pg.To < total {
		pg.Next = at(n + 1)
	}
	return pg
}

func fmtNum(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }

func fmtShare(a, b int) string {
	if b == 0 {
		return "–"
	}
	return strconv.FormatFloat(float64(a)/float64(b), 'f', 3, 64)
}

// fmtNullFloat shows a nullable number or flag; "–" for NULL.
func fmtNullFloat(v any) string {
	switch x := v.(type) {
	case sql.NullFloat64:
		if x.Valid {
			return strconv.FormatFloat(x.Float64, 'f', 3, 64)
		}
	case sql.NullInt64:
		if x.Valid {
			return strconv.FormatInt(x.Int64, 10)
		}
	case sql.NullBool:
		if x.Valid {
			return strconv.FormatBool(x.Bool)
		}
	}
	return "–"
}

// conditions are the UserBench conditions a simulator has at the anchor,
// sorted.
func (s *Site) conditions(sim string) []string {
	var out []string
	for c := range s.ubSims[sim] {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}

// counted is n and noun, the noun plural unless n is 1 ("1 turn", "3
// turns").
func counted(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
