package ingest

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ub-bench/ub/queries"
)

// Options configures Run. The zero value detects formats, keeps going past
// bad input and reports nothing while it works.
type Options struct {
	Format   string   // "" or "auto": detect per file; else one of Formats()
	Identity Identity // --developer / --repo overrides; empty fields are resolved per session
	Manifest string   // a manifest.jsonl of repositories and their authors; "" for none
	// FailFast stops at the first file with bad input. What was committed
	// before it (whole sessions, including that file's good sessions read
	// before the bad line) stays.
	FailFast bool
	// Stdin is read for the path "-". nil means os.Stdin.
	Stdin io.Reader
	// Progress is called with bytes read so far and the total size of the
	// inputs (stdin counts 0 to the total). nil means silent.
	Progress func(done, total int64)
	// BatchTurns is how many turns are buffered before a commit. 0 means 50000.
	BatchTurns int
}

// Stats summarises one ingest run.
type Stats struct {
	Files        int            `json:"files"`         // files parsed
	FilesSkipped int            `json:"files_skipped"` // files in a walk that are no session log
	Sessions     int            `json:"sessions"`      // sessions added
	Replaced     int            `json:"replaced"`      // sessions whose stored copy was replaced by a grown one
	Unchanged    int            `json:"unchanged"`     // sessions already present with the same content
	Superseded   int            `json:"superseded"`    // sessions whose stored copy is more complete
	Turns        int64          `json:"turns"`         // turns added
	Skipped      map[string]int `json:"skipped"`       // sessions not kept, by reason
	Errors       []string       `json:"errors"`        // "path:line: reason", the first 100
	ErrorCount   int            `json:"error_count"`
	Developers   int64          `json:"developers"` // in the workspace after the run
	Repos        int64          `json:"repos"`      // in the workspace after the run
	TotalSess    int64          `json:"total_sessions"`
	TotalTurns   int64          `json:"total_turns"`
}

const maxStatErrors = 100

// ErrBadInput is wrapped by the error Run returns when some input was bad but
// the rest was ingested.
var ErrBadInput = errors.New("some input could not be ingested")

// Run ingests every path (a file, a directory walked recursively, or "-" for
// canonical JSONL on stdin) into the workspace. Sessions are written whole,
// in transactions, with the DuckDB appender. Each bad line or file is
// recorded in ingest_errors and in Stats; when there was any, the returned
// error wraps ErrBadInput (and Stats is still complete).
func Run(ctx context.Context, ws *queries.Workspace, paths []string, opts Options) (Stats, error) {
	st := Stats{Skipped: map[string]int{}}
	if opts.Format == "auto" {
		opts.Format = ""
	}
	if opts.Format != "" {
		if _, ok := parsers[opts.Format]; !ok {
			return st, fmt.Errorf("unknown format %q (want auto or one of %s)", opts.Format, strings.Join(Formats(), ", "))
		}
	}
	w, err := newWriter(ctx, ws, opts, &st)
	if err != nil {
		return st, err
	}
	files, err := listFiles(paths, opts.Format, &st)
	if err != nil {
		return st, err
	}
	var total int64
	for _, f := range files {
		total += f.size
	}
	w.total = total
	if opts.Manifest != "" {
		if err := w.manifest(opts.Manifest); err != nil {
			return st, err
		}
	}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		before := st.ErrorCount
		if err := w.file(f); err != nil {
			return st, err
		}
		if opts.FailFast && st.ErrorCount > before {
			break
		}
	}
	c, err := queries.WorkspaceCounts(ctx, ws.Conn())
	if err != nil {
		return st, err
	}
	st.Developers, st.Repos, st.TotalSess, st.TotalTurns = c.Developers, c.Repos, c.Sessions, c.Turns
	if st.ErrorCount > 0 {
		return st, fmt.Errorf("%d error(s): %w", st.ErrorCount, ErrBadInput)
	}
	return st, nil
}

type inputFile struct {
	path     string
	size     int64
	explicit bool // named on the command line, not found by a walk
}

// listFiles expands directories (recursively, in lexical order, skipping
// hidden folders) and keeps "-" for stdin.
func listFiles(paths []string, format string, st *Stats) ([]inputFile, error) {
	var out []inputFile
	for _, p := range paths {
		if p == "-" {
			out = append(out, inputFile{path: "-", explicit: true})
			continue
		}
		fi, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("ingest: %w", err)
		}
		if !fi.IsDir() {
			out = append(out, inputFile{path: p, size: fi.Size(), explicit: true})
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if path != p && strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() {
				return nil
			}
			if format != "" && !hasExt(path, format) || format == "" && !logExtension(path) {
				st.FilesSkipped++
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			out = append(out, inputFile{path: path, size: info.Size()})
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("ingest: walk %s: %w", p, err)
		}
	}
	return out, nil
}

type indexEntry struct {
	hash   string
	nTurns int
}

// writer buffers sessions and writes them in batches, each batch one
// transaction: replaced sessions deleted, new names recorded, sessions and
// turns appended.
type writer struct {
	ctx    context.Context
	ws     *queries.Workspace
	opts   Options
	st     *Stats
	byID   map[string]indexEntry
	hashes map[string]bool
	devs   map[string]bool
	repos  map[string]bool
	edges  map[[2]string]bool

	batch      []*Session
	batchTurns int
	replace    []string
	errs       []*ParseError
	format     string // of the file being read
	path       string

	done, total int64
}

func newWriter(ctx context.Context, ws *queries.Workspace, opts Options, st *Stats) (*writer, error) {
	w := &writer{ctx: ctx, ws: ws, opts: opts, st: st,
		byID: map[string]indexEntry{}, hashes: map[string]bool{},
		devs: map[string]bool{}, repos: map[string]bool{}, edges: map[[2]string]bool{}}
	if w.opts.BatchTurns <= 0 {
		w.opts.BatchTurns = 50000
	}
	err := queries.SessionIndex(ctx, ws.Conn(), func(r queries.SessionIndexRow) {
		w.byID[r.ID] = indexEntry{r.ContentHash, r.NTurns}
		w.hashes[r.ContentHash] = true
	})
	if err != nil {
		return nil, fmt.Errorf("ingest: read session index: %w", err)
	}
	return w, nil
}

// countingReader reports progress as bytes are read.
type countingReader struct {
	r io.Reader
	w *writer
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.w.done += int64(n)
	if c.w.opts.Progress != nil && n > 0 {
		c.w.opts.Progress(c.w.done, c.w.total)
	}
	return n, err
}

const headSize = 64 << 10

func (w *writer) file(f inputFile) error {
	var r io.Reader
	if f.path == "-" {
		r = w.opts.Stdin
		if r == nil {
			r = os.Stdin
		}
	} else {
		fh, err := os.Open(f.path)
		if err != nil {
			w.Error(&ParseError{Path: f.path, Reason: err.Error()})
			return w.flush()
		}
		defer fh.Close()
		r = fh
	}
	if err := queries.ClearIngestErrors(w.ctx, w.ws.Conn(), f.path); err != nil {
		return fmt.Errorf("ingest: %w", err)
	}
	br := bufio.NewReaderSize(&countingReader{r, w}, 1<<20)
	head, _ := br.Peek(headSize)
	w.path = f.path
	format := w.opts.Format
	if f.path == "-" && format == "" {
		format = "jsonl"
	}
	if i := bytes.IndexByte(head, 0); i >= 0 && (format == "" || f.explicit || hasExt(f.path, format)) {
		// Git's heuristic: a NUL byte near the top means a binary file.
		w.Error(&ParseError{Path: f.path, Line: 1 + bytes.Count(head[:i], []byte("\n")),
			Reason: fmt.Sprintf("binary file (NUL byte at offset %d)", i)})
		w.st.Files++
		return w.flush()
	}
	if format == "" {
		format = Detect(f.path, head)
		if format == "" {
			if !f.explicit {
				w.st.FilesSkipped++
				return nil
			}
			w.Error(&ParseError{Path: f.path, Reason: "not a session log of a known format (" +
				strings.Join(Formats(), ", ") + "); name one with --format"})
			w.st.Files++
			return w.flush()
		}
	}
	parse, ok := parsers[format]
	if !ok {
		return fmt.Errorf("ingest: format %s has no parser in this build", format)
	}
	w.format = format
	w.st.Files++
	if err := parse(Source{Path: f.path, R: br}, w); err != nil {
		var pe *ParseError
		if !errors.As(err, &pe) {
			w.Error(&ParseError{Path: f.path, Reason: err.Error()})
		}
	}
	return w.flush()
}

// Error records bad input (Sink).
func (w *writer) Error(e *ParseError) {
	w.st.ErrorCount++
	if len(w.st.Errors) < maxStatErrors {
		w.st.Errors = append(w.st.Errors, e.Error())
	}
	w.errs = append(w.errs, e)
}

// Skip counts a session not kept (Sink).
func (w *writer) Skip(reason string) { w.st.Skipped[reason]++ }

// Session decides whether s is new, unchanged, a grown copy of a stored
// session or superseded by one, and buffers it for writing (Sink).
func (w *writer) Session(s *Session) error {
	Resolve(s, w.opts.Identity)
	hash := s.ContentHash()
	if s.ID == "" {
		s.ID = hash[:16]
	}
	if w.hashes[hash] {
		w.st.Unchanged++
		return nil
	}
	if old, ok := w.byID[s.ID]; ok {
		// The same session, other content: keep the more complete copy (more
		// turns; on a tie, the larger hash, so the outcome does not depend on
		// the order files are read in).
		if len(s.Turns) < old.nTurns || len(s.Turns) == old.nTurns && hash < old.hash {
			w.st.Superseded++
			return nil
		}
		w.replace = append(w.replace, s.ID)
		w.st.Replaced++
		w.st.Turns -= int64(old.nTurns)
		delete(w.hashes, old.hash)
	} else {
		w.st.Sessions++
	}
	w.byID[s.ID] = indexEntry{hash, len(s.Turns)}
	w.hashes[hash] = true
	if s.Meta == nil {
		s.Meta = map[string]any{}
	}
	s.Meta["content_hash"] = hash
	w.batch = append(w.batch, s)
	w.batchTurns += len(s.Turns)
	w.st.Turns += int64(len(s.Turns))
	if w.batchTurns >= w.opts.BatchTurns {
		return w.flush()
	}
	return nil
}

// flush writes the buffered sessions and errors in one transaction.
func (w *writer) flush() error {
	if len(w.batch) == 0 && len(w.errs) == 0 && len(w.replace) == 0 {
		return nil
	}
	err := w.ws.InTx(w.ctx, func(c *sql.Conn) error {
		for _, id := range w.replace {
			if err := queries.DeleteSession(w.ctx, c, id); err != nil {
				return err
			}
		}
		for _, e := range w.errs {
			if err := queries.AddIngestError(w.ctx, c, e.Path, e.Line, e.Reason, w.format); err != nil {
				return err
			}
		}
		for _, s := range w.batch {
			if err := w.names(c, s.Developer, s.Repo, "session"); err != nil {
				return err
			}
		}
		return w.appendBatch()
	})
	if err != nil {
		return fmt.Errorf("ingest: write %s: %w", w.path, err)
	}
	w.batch, w.batchTurns, w.replace, w.errs = w.batch[:0], 0, w.replace[:0], w.errs[:0]
	return nil
}

func (w *writer) names(c *sql.Conn, dev, repo, source string) error {
	if !w.devs[dev] {
		if err := queries.AddDeveloper(w.ctx, c, dev); err != nil {
			return err
		}
		w.devs[dev] = true
	}
	if !w.repos[repo] {
		if err := queries.AddRepo(w.ctx, c, repo); err != nil {
			return err
		}
		w.repos[repo] = true
	}
	k := [2]string{dev, repo + "\x00" + source}
	if !w.edges[k] {
		if err := queries.AddEdge(w.ctx, c, dev, repo, source); err != nil {
			return err
		}
		w.edges[k] = true
	}
	return nil
}

func (w *writer) appendBatch() error {
	sa, err := w.ws.Appender(w.ctx, "sessions")
	if err != nil {
		return err
	}
	for _, s := range w.batch {
		hash := s.Meta["content_hash"].(string)
		delete(s.Meta, "content_hash")
		err = sa.AppendRow(s.ID, s.Developer, s.Repo, nullTime(s.StartedAt), s.Format, s.SourceFile,
			int32(s.Line), hash, int32(len(s.Turns)), jsonOrNil(s.Meta))
		if err != nil {
			sa.Close()
			return fmt.Errorf("%s:%d: session %s: %w", s.SourceFile, s.Line, s.ID, err)
		}
	}
	if err := sa.Close(); err != nil {
		return err
	}
	ta, err := w.ws.Appender(w.ctx, "turns")
	if err != nil {
		return err
	}
	for _, s := range w.batch {
		for i, t := range s.Turns {
			err = ta.AppendRow(s.ID, int32(i), string(t.Role), t.Text, nullTime(t.TS), t.IsCommand, jsonOrNil(t.Meta))
			if err != nil {
				ta.Close()
				return fmt.Errorf("%s:%d: session %s turn %d: %w", s.SourceFile, s.Line, s.ID, i, err)
			}
		}
	}
	return ta.Close()
}

func nullTime(t interface{ IsZero() bool }) any {
	if t.IsZero() {
		return nil
	}
	return t
}

func jsonOrNil(m map[string]any) any {
	if len(m) == 0 {
		return nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"unmarshalable_meta": err.Error()})
	}
	return string(b)
}

// manifestLine is one line of a manifest.jsonl (corpus/aider/manifest.jsonl).
type manifestLine struct {
	Repo    string   `json:"repo"`
	Authors []string `json:"authors"`
}

// manifest records, for each repository of a manifest, every listed author as
// a developer who touched it (a "manifest" edge of the developer <->
// repository graph).
func (w *writer) manifest(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("ingest: manifest: %w", err)
	}
	defer f.Close()
	type edge struct{ dev, repo string }
	var edges []edge
	br := bufio.NewReader(f)
	w.path, w.format = path, "manifest"
	if err := queries.ClearIngestErrors(w.ctx, w.ws.Conn(), path); err != nil {
		return err
	}
	for lineNo := 1; ; lineNo++ {
		line, rerr := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var m manifestLine
			if err := json.Unmarshal(line, &m); err != nil {
				w.Error(&ParseError{Path: path, Line: lineNo, Reason: "invalid JSON: " + err.Error()})
			} else if m.Repo == "" {
				w.Error(&ParseError{Path: path, Line: lineNo, Reason: `missing "repo"`})
			} else {
				authors := append([]string(nil), m.Authors...)
				sort.Strings(authors)
				for _, a := range authors {
					if strings.TrimSpace(a) != "" {
						edges = append(edges, edge{strings.TrimSpace(a), m.Repo})
					}
				}
				if len(authors) == 0 {
					edges = append(edges, edge{"", m.Repo})
				}
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return fmt.Errorf("ingest: manifest %s:%d: %w", path, lineNo, rerr)
		}
	}
	err = w.ws.InTx(w.ctx, func(c *sql.Conn) error {
		for _, e := range edges {
			if e.dev == "" {
				if !w.repos[e.repo] {
					if err := queries.AddRepo(w.ctx, c, e.repo); err != nil {
						return err
					}
					w.repos[e.repo] = true
				}
				continue
			}
			if err := w.names(c, e.dev, e.repo, "manifest"); err != nil {
				return err
			}
		}
		for _, e := range w.errs {
			if err := queries.AddIngestError(w.ctx, c, e.Path, e.Line, e.Reason, "manifest"); err != nil {
				return err
			}
		}
		return nil
	})
	w.errs = w.errs[:0]
	if err != nil {
		return fmt.Errorf("ingest: manifest %s: %w", path, err)
	}
	return nil
}
