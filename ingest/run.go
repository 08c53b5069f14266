package ingest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ub-bench/ub/ingest/lines"
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
	// Tasks reads every file as a tau2 task file (a JSON array of tasks).
	Tasks bool
	// Tau1 is what the user states of tau-bench v1 files (their domain,
	// agent and user simulator), above what their names say; empty
	// fields state nothing.
	Tau1 Tau1Names
	// Stdin is read for the path "-". nil means os.Stdin.
	Stdin io.Reader
	// Progress is called with bytes read so far and the total size of the
	// inputs (stdin counts 0 to the total). nil means silent.
	Progress func(done, total int64)
	// BatchTurns and BatchBytes (of turn text) bound one transaction; 0
	// means DefaultBatchTurns and DefaultBatchBytes. Memory is bounded
	// apart from them: the writer is handed batches of a few MiB, which
	// share the transaction until it holds either.
	BatchTurns int
	BatchBytes int
	// NewProber makes the Prober that runs the judge-free probes on each
	// episode added (probes.NewProber); the findings are stored with the
	// episode. nil stores no probe results (ub probes can add them later).
	NewProber func() Prober
}

// DefaultBatchTurns and DefaultBatchBytes bound the transactions of an
// ingest run: 32 DuckDB row groups of turns, or 1 GiB of their text. Within
// a transaction, DuckDB writes each full row group (122,880 rows) of a
// table straight to the database file, compressed; the rest, less than one
// row group a table, goes through the write-ahead log at the commit and is
// compressed at the next checkpoint. At 32 MiB a transaction (about one row
// group of turns) most rows took that second path: 100 MB of sessions took
// 2.3-2.4 s of CPU instead of 2.0, 400 MB 9.6-10.7 s instead of 7.4-7.9,
// 100 copies of the tau2 results 58 s instead of 41-42 (wall 42 s instead
// of 26). A run interrupted loses what its open transaction held, no more
// than this.
const (
	DefaultBatchTurns = 32 * 122880
	DefaultBatchBytes = 1 << 30
)

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
	Warnings     []string       `json:"warnings,omitempty"` // "path:line: reason" of what was reported, not refused (a live file's final line)
	Developers   int64          `json:"developers"`         // in the workspace after the run
	Repos        int64          `json:"repos"`              // in the workspace after the run
	TotalSess    int64          `json:"total_sessions"`
	TotalTurns   int64          `json:"total_turns"`
	// Episodes (tau2 result files, tau-bench v1 arrays) and tasks.
	Episodes          int               `json:"episodes"`           // added
	EpisodesReplaced  int               `json:"episodes_replaced"`  // stored with other content, replaced
	EpisodesUnchanged int               `json:"episodes_unchanged"` // already present with the same content
	Tasks             int               `json:"tasks"`              // task contents added
	EpisodeFiles      []EpisodeFileStat `json:"episode_files,omitempty"`
	TotalEpisodes     int64             `json:"total_episodes"`
	TotalNotRun       int64             `json:"total_not_run"` // of TotalEpisodes, placeholders of simulations that never ran
	TaskMismatch      int               `json:"task_mismatch"` // episodes in the workspace flagged by P0
}

const maxStatErrors = 100

// ErrBadInput is wrapped by the error Run returns when some input was bad but
// the rest was ingested.
var ErrBadInput = lines.ErrBadInput

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
		if _, ok := parsers[opts.Format]; !ok && episodeParsers[opts.Format] == nil {
			return st, fmt.Errorf("unknown format %q (want auto or one of %s)", opts.Format, strings.Join(Formats(), ", "))
		}
	}
	files, err := listFiles(paths, opts.Format, &st)
	if err != nil {
		return st, err
	}
	w, err := newWriter(ctx, ws, opts, &st)
	if err != nil {
		return st, err
	}
	for _, f := range files {
		w.total += f.size
	}
	err = w.all(files)
	// Whatever stopped the run, what was read whole is written.
	if cerr := w.close(); err == nil {
		err = cerr
	}
	if err != nil {
		// The totals say what the workspace holds after the failure.
		if c, cerr := queries.WorkspaceCounts(context.WithoutCancel(ctx), ws.Conn()); cerr == nil {
			st.Developers, st.Repos, st.TotalSess, st.TotalTurns = c.Developers, c.Repos, c.Sessions, c.Turns
		}
		return st, err
	}
	c, err := queries.WorkspaceCounts(ctx, ws.Conn())
	if err != nil {
		return st, err
	}
	st.Developers, st.Repos, st.TotalSess, st.TotalTurns = c.Developers, c.Repos, c.Sessions, c.Turns
	if st.TotalEpisodes, err = queries.EpCount(ctx, ws.Conn()); err != nil {
		return st, err
	}
	if st.TotalNotRun, err = queries.EpCountNotRun(ctx, ws.Conn()); err != nil {
		return st, err
	}
	if err := episodeChecks(ctx, ws, &st); err != nil {
		return st, err
	}
	if st.ErrorCount > 0 {
		return st, fmt.Errorf("%d error(s): %w", st.ErrorCount, ErrBadInput)
	}
	return st, nil
}

// all reads the manifest and every file, stopping early only on a write
// error, a cancelled context, or (FailFast) the first file with bad input.
func (w *writer) all(files []inputFile) error {
	if w.opts.Manifest != "" {
		if err := w.manifest(w.opts.Manifest); err != nil {
			return err
		}
	}
	for _, f := range files {
		if err := w.ctx.Err(); err != nil {
			return err
		}
		before := w.st.ErrorCount
		if err := w.file(f); err != nil {
			return err
		}
		if w.opts.FailFast && w.st.ErrorCount > before {
			break
		}
	}
	return nil
}

type inputFile struct {
	path     string
	size     int64
	explicit bool   // named on the command line, not found by a walk
	walkErr  string // a folder or file the walk could not read: one bad-input line, not the end of the run
	tau2Dir  bool   // path is the results.json of a dir-format tau2 run (ParseTau2Dir)
}

// walkDir is filepath.WalkDir; tests swap it to make a folder unreadable
// even for root.
var walkDir = filepath.WalkDir

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
		if meta, ok := Tau2DirMeta(p); ok && (format == "" || format == FormatTau2) {
			out = append(out, tau2DirInput(meta, true))
			continue
		}
		if !fi.IsDir() {
			out = append(out, inputFile{path: p, size: fi.Size(), explicit: true})
			continue
		}
		err = walkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				// An unreadable folder or file is reported like any bad
				// file, and the walk goes on with its siblings.
				reason := err.Error()
				var pe *fs.PathError
				if errors.As(err, &pe) {
					reason = pe.Err.Error()
				}
				out = append(out, inputFile{path: path, walkErr: reason})
				if d != nil && d.IsDir() && path != p {
					return filepath.SkipDir
				}
				return nil
			}
			if d.IsDir() {
				if path != p && strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				if meta, ok := Tau2DirMeta(path); ok && path != p && (format == "" || format == FormatTau2) {
					// A dir-format run is one input: its simulation
					// files are not result files of their own.
					out = append(out, tau2DirInput(meta, false))
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
	return onceEach(out), nil
}

// onceEach keeps each file of in once, at its first place: a file named
// twice, or named and found in a folder also named, is read once (its bad
// lines were stored twice). Named anywhere, it counts as named. Files are
// the same when their paths are, symbolic links resolved.
func onceEach(in []inputFile) []inputFile {
	at := map[string]int{}
	out := in[:0]
	for _, f := range in {
		if f.path == "-" || f.walkErr != "" {
			out = append(out, f)
			continue
		}
		k := f.path
		if r, err := filepath.EvalSymlinks(k); err == nil {
			k = r
		}
		if a, err := filepath.Abs(k); err == nil {
			k = a
		}
		if i, ok := at[k]; ok {
			out[i].explicit = out[i].explicit || f.explicit
			continue
		}
		at[k] = len(out)
		out = append(out, f)
	}
	return out
}

// tau2DirInput is the input of a dir-format run read from meta.
func tau2DirInput(meta string, explicit bool) inputFile {
	f := inputFile{path: meta, explicit: explicit, tau2Dir: true}
	if fi, err := os.Stat(meta); err == nil {
		f.size = fi.Size()
	}
	return f
}

// countingReader reports progress as bytes are read.
type countingReader struct {
	r io.Reader
	w *writer
	n int64 // bytes read through it
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	c.w.done += int64(n)
	if c.w.opts.Progress != nil && n > 0 {
		c.w.opts.Progress(c.w.done, c.w.total)
	}
	return n, err
}

const headSize = 64 << 10

// rereadable is an episode file that its parser may read twice
// (readEpisodeFile): Rewind reads it again from its start, and counts what
// was read for progress once.
type rereadable struct {
	*bufio.Reader
	f  *os.File
	cr *countingReader
}

func (r *rereadable) Rewind() error {
	if _, err := r.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	r.cr.w.done -= r.cr.n
	r.cr.n = 0
	r.Reset(r.cr)
	return nil
}

// file reads one input into the workspace. In turn: a tau2 dir-format run
// is read whole through ParseTau2Dir; otherwise it opens the file (stdin
// for "-"; an error of the walk or of the open is recorded as an error of
// the file); peeks at its head to refuse a binary file; with --tasks,
// reads it as tau2 task files; detects its format unless --format named
// one, refusing a tau2 run's file of discarded attempts named alone; and
// hands an episode format to its episode parser, a session format to its
// session parser, which streams sessions to the writer. Bad input becomes
// errors of the file (those stored for it before are cleared first).
func (w *writer) file(f inputFile) error {
	var r io.Reader
	if f.path == "-" {
		r = w.opts.Stdin
		if r == nil {
			r = os.Stdin
		}
	} else if f.tau2Dir {
		// The run's errors are those of its results.json, of its
		// simulation files (also of files removed since) and of its
		// discarded attempts.
		sims := filepath.Join(filepath.Dir(f.path), tau2SimsDir)
		w.cur.clear = append(w.cur.clear, f.path, sims, filepath.Join(filepath.Dir(f.path), tau2DiscardedFile),
			filepath.Join(filepath.Dir(f.path), Tau2ReviewedFile))
		w.cur.clearUnder = append(w.cur.clearUnder, sims)
		w.path, w.format = f.path, FormatTau2
		w.st.Files++
		if err := ParseTau2Dir(f.path, w); err != nil {
			select {
			case <-w.failed:
				return w.werr
			default:
			}
			w.Error(&ParseError{Path: f.path, Reason: err.Error()})
		}
		w.done += f.size
		if w.opts.Progress != nil {
			w.opts.Progress(w.done, w.total)
		}
		return nil
	} else if f.walkErr != "" {
		w.cur.clear = append(w.cur.clear, f.path)
		w.Error(&ParseError{Path: f.path, Reason: f.walkErr})
		return nil
	} else {
		fh, err := os.Open(f.path)
		if err != nil {
			w.cur.clear = append(w.cur.clear, f.path)
			w.Error(&ParseError{Path: f.path, Reason: err.Error()})
			return nil
		}
		defer fh.Close()
		r = fh
	}
	w.cur.clear = append(w.cur.clear, f.path)
	br := w.spare
	w.spare = nil
	cr := &countingReader{r: r, w: w}
	if br == nil {
		br = bufio.NewReaderSize(cr, 1<<20)
	} else {
		br.Reset(cr)
	}
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
		return nil
	}
	if w.opts.Tasks {
		format = taskFolderKind(f.path, head)
		if format == "" && !f.explicit {
			w.st.FilesSkipped++ // a task folder's db.json, manuals, ...
			return nil
		}
		if format == "" {
			format = "tasks" // named: read as one, to say why it is none
		}
	}
	if format == "" {
		format = DetectEpisodes(head)
	}
	if format == FormatTau2 && isDiscardedFile(f.path) {
		w.st.Files++
		w.Error(&ParseError{Path: f.path, Reason: "the attempts tau2 discarded (hallucination retries), not episodes of a run: ingest the run's folder, which reads them into the attempt ledger"})
		return nil
	}
	if parse, ok := episodeParsers[format]; ok {
		w.format = format
		w.st.Files++
		var in io.Reader = br
		if fh, ok := r.(*os.File); ok && f.path != "-" {
			in = &rereadable{br, fh, cr}
		}
		err := parse(f.path, in, w)
		// The episode parsers read in this goroutine and are done with br:
		// the next file reuses its MiB (26 files, 26 MiB allocated less).
		w.spare = br
		if err != nil {
			select {
			case <-w.failed:
				return w.werr
			default:
			}
			w.Error(&ParseError{Path: f.path, Reason: err.Error()})
		}
		return nil
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
			return nil
		}
	}
	parse, ok := parsers[format]
	if !ok {
		return fmt.Errorf("ingest: format %s has no parser in this build", format)
	}
	w.format = format
	w.st.Files++
	if err := parse(Source{Path: f.path, R: br}, w); err != nil {
		select {
		case <-w.failed:
			return w.werr // the sink failed: a write error, not bad input
		default:
		}
		var pe *ParseError
		if !errors.As(err, &pe) {
			w.Error(&ParseError{Path: f.path, Reason: err.Error()})
		}
	}
	return nil
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
	w.cur.clear = append(w.cur.clear, path)
	for _, e := range edges {
		w.cur.edgesIn = append(w.cur.edgesIn, [3]string{e.dev, e.repo, "manifest"})
	}
	return w.send()
}
