package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/analysis"
	"github.com/ub-bench/ub/ingest"
	"github.com/ub-bench/ub/judge/review"
	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/reports"
)

func newReviewCommand(io *streams) *cli.Command {
	return &cli.Command{
		Name:  "review",
		Usage: "measure a simulator's error rate with human reviewers in a browser (SPEC 7)",
		Subcommands: []*cli.Command{
			{
				Name:  "sample",
				Usage: "draw a named review batch of episodes, reproducible from the seed",
				Flags: []cli.Flag{
					&cli.IntFlag{Name: "n", Value: 50, Usage: "episodes in the batch"},
					&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of the draw"},
					&cli.StringFlag{Name: "stratify", Usage: "strata: any of domain,success"},
					&cli.StringFlag{Name: "reviewers", Value: "reviewer", Usage: "comma-separated reviewer names; each reviews every episode (two names: double-assigned)"},
					&cli.StringFlag{Name: "name", Usage: "batch `NAME` (default: s<seed>-n<n>)"},
				},
				Action: func(c *cli.Context) error {
					if err := noArgs(c); err != nil {
						return err
					}
					return runReviewSample(c, io)
				},
			},
			{
				Name:  "serve",
				Usage: "serve the review page (prints one URL with a token per reviewer); the server is the workspace's one writer",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "batch", Usage: "batch `NAME` (default: the only one)"},
					&cli.StringFlag{Name: "addr", Value: "127.0.0.1:0", Usage: "listen `ADDR` (loopback; port 0 picks a free one)"},
					&cli.BoolFlag{Name: "allow-remote", Usage: "allow a non-loopback --addr (risky: plain HTTP, reachable from the network)"},
					&cli.StringFlag{Name: "adjudicator", Usage: "also print a URL for adjudicator `NAME`: the episodes whose reviewers disagree, decided as the final word"},
					&cli.StringSliceFlag{Name: "allow-host", Usage: "also answer requests whose Host header is `HOST:PORT` (with --allow-remote)"},
				},
				Action: func(c *cli.Context) error {
					if err := noArgs(c); err != nil {
						return err
					}
					return runReviewServe(c, io)
				},
			},
			{
				Name:  "stats",
				Usage: "error share and critical share with flipped intervals, codes, cross tab, policies, agreement; --out writes the figures and report.md",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "interval", Value: "wilson", Usage: "wilson, cp (Clopper-Pearson) or jeffreys"},
					&cli.Float64Flag{Name: "level", Value: 0.95, Usage: "confidence level"},
					&cli.StringFlag{Name: "reviewer", Usage: "one reviewer's decisions (default: the final human decisions, adjudicated)"},
					&cli.Float64Flag{Name: "threshold", Value: 1, Usage: "success is reward >= `R`"},
					&cli.BoolFlag{Name: "json", Usage: "print the statistics as JSON"},
					&cli.StringFlag{Name: "out", Usage: "write review-error-share, review-codes (SVG, PNG, CSV) and report.md into `DIR`"},
				},
				Action: func(c *cli.Context) error {
					if err := noArgs(c); err != nil {
						return err
					}
					return runReviewStats(c, io)
				},
			},
			{
				Name:  "export",
				Usage: "every decision as JSONL; with --rerun, the tasks with a critical simulator error (domain TAB task id)",
				Flags: []cli.Flag{
					&cli.BoolFlag{Name: "rerun", Usage: "write the task ids to re-run instead"},
					&cli.StringFlag{Name: "reviewer", Usage: "with --rerun: one reviewer's decisions (default: final human decisions)"},
					&cli.StringFlag{Name: "out", Usage: "output `FILE` (default: stdout)"},
				},
				Action: func(c *cli.Context) error {
					if err := noArgs(c); err != nil {
						return err
					}
					return runReviewExport(c, io)
				},
			},
			{
				Name:      "import",
				Usage:     "import tau2 user_only_review results as an LLM reviewer, or human labels in CSV",
				ArgsUsage: "FILE",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "format", Usage: "tau2 (a results JSON with user_only_review) or csv (default: by the file name)"},
					&cli.StringFlag{Name: "reviewer", Usage: "reviewer `NAME` (default: llm:FILE or csv:FILE)"},
				},
				Action: func(c *cli.Context) error {
					a, err := args(c)
					if err != nil {
						return err
					}
					if len(a) != 1 {
						return usagef("review import: name one FILE")
					}
					return runReviewImport(c, io, a[0])
				},
			},
		},
	}
}

func noArgs(c *cli.Context) error {
	a, err := args(c)
	if err != nil {
		return err
	}
	if len(a) > 0 {
		return usagef("%s: takes no arguments (got %s)", c.Command.Name, strings.Join(a, " "))
	}
	return nil
}

// serveMarker is the file beside the workspace that says a review server
// holds it, so other commands can say so.
func serveMarker(db string) string { return db + ".review-serve" }

// openReviewWorkspace opens the workspace, explaining a lock held by ub
// review serve.
func openReviewWorkspace(c *cli.Context, readOnly bool) (*queries.Workspace, error) {
	ws, err := openWorkspace(c, readOnly)
	if errors.Is(err, queries.ErrLocked) {
		if b, rerr := os.ReadFile(serveMarker(c.String("db"))); rerr == nil {
			return nil, fmt.Errorf("ub review serve (%s) holds the workspace: it is the one writer while reviewers work; stop it (Ctrl-C) and run this again: %w",
				strings.TrimSpace(string(b)), err)
		}
	}
	return ws, err
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func runReviewSample(c *cli.Context, sio *streams) error {
	n, seed := c.Int("n"), c.Uint64("seed")
	reviewers := splitList(c.String("reviewers"))
	strat := splitList(c.String("stratify"))
	name := c.String("name")
	if name == "" {
		name = fmt.Sprintf("s%d-n%d", seed, n)
	}
	ws, err := openReviewWorkspace(c, false)
	if err != nil {
		return err
	}
	defer ws.Close()
	b, as, err := sampleBatch(c.Context, ws, name, n, seed, strat, reviewers)
	if err != nil {
		return err
	}
	fmt.Fprintf(sio.out, "batch %s: %d episodes (seed %d, stratified by %q) for %s: %d assignments\n",
		b.Batch, b.N, b.Seed, b.Stratify, b.Reviewers, len(as))
	fmt.Fprintf(sio.out, "next: ub review serve --batch %s\n", b.Batch)
	return nil
}

func sampleBatch(ctx context.Context, ws *queries.Workspace, name string, n int, seed uint64, strat, reviewers []string) (queries.ReviewBatch, []queries.ReviewAssignment, error) {
	cands, err := queries.ReviewCandidates(ctx, ws.Conn())
	if err != nil {
		return queries.ReviewBatch{}, nil, err
	}
	if len(cands) == 0 {
		return queries.ReviewBatch{}, nil, &reports.MissingError{Figure: "review sample", Reason: "the workspace has no episodes: ingest tau2 result files first"}
	}
	as, err := review.Sample(cands, review.SampleOptions{N: n, Seed: seed, Stratify: strat, Reviewers: reviewers})
	if err != nil {
		return queries.ReviewBatch{}, nil, usageError{err}
	}
	if len(reviewers) == 0 {
		reviewers = []string{"reviewer"}
	}
	b := queries.ReviewBatch{Batch: name, Seed: int64(seed), N: n, Stratify: strings.Join(strat, ","), Reviewers: strings.Join(reviewers, ",")}
	if err := queries.CreateReviewBatch(ctx, ws, b, as); err != nil {
		if errors.Is(err, queries.ErrBatchExists) {
			return b, nil, usageError{err}
		}
		return b, nil, err
	}
	return b, as, nil
}

func pickBatch(ctx context.Context, ws *queries.Workspace, name string) (queries.ReviewBatch, error) {
	bs, err := queries.ReviewBatches(ctx, ws.Conn())
	if err != nil {
		return queries.ReviewBatch{}, err
	}
	var names []string
	for _, b := range bs {
		if b.Batch == name || (name == "" && len(bs) == 1) {
			return b, nil
		}
		names = append(names, b.Batch)
	}
	if len(bs) == 0 {
		return queries.ReviewBatch{}, &reports.MissingError{Figure: "review serve", Reason: "no review batch: run ub review sample first"}
	}
	if name == "" {
		return queries.ReviewBatch{}, usagef("review serve: --batch is needed: the workspace has %s", strings.Join(names, ", "))
	}
	return queries.ReviewBatch{}, usagef("review serve: no batch %q (have %s)", name, strings.Join(names, ", "))
}

func runReviewServe(c *cli.Context, sio *streams) error {
	// The address first: a refused address is a usage error whatever the
	// workspace holds.
	ln, hosts, err := review.Listen(c.Context, c.String("addr"), c.Bool("allow-remote"))
	if err != nil {
		return usageError{err}
	}
	defer ln.Close()
	ws, err := openReviewWorkspace(c, false)
	if err != nil {
		return err
	}
	defer ws.Close()
	b, err := pickBatch(c.Context, ws, c.String("batch"))
	if err != nil {
		return err
	}
	if c.Bool("allow-remote") {
		fmt.Fprintf(sio.err, "ub review serve: WARNING: listening on %s: anyone who can reach it and learns a URL below can read the conversations and record decisions; the traffic is plain HTTP\n", ln.Addr())
	}
	hosts = append(hosts, c.StringSlice("allow-host")...)
	logf := func(format string, a ...any) { fmt.Fprintf(sio.err, "ub review serve: "+format+"\n", a...) }
	srv, err := review.NewServer(ws, review.Options{Batch: b.Batch, Reviewers: splitList(b.Reviewers), Adjudicator: c.String("adjudicator"), Hosts: hosts, Logf: logf})
	if err != nil {
		return usageError{err}
	}
	marker := serveMarker(c.String("db"))
	if err := os.WriteFile(marker, []byte("pid "+strconv.Itoa(os.Getpid())+", "+ln.Addr().String()+"\n"), 0o644); err == nil {
		defer os.Remove(marker)
	}
	fmt.Fprintf(sio.out, "review batch %s on http://%s (Ctrl-C stops; every saved decision is already in %s)\n", b.Batch, ln.Addr(), c.String("db"))
	for _, u := range srv.URLs("http://" + ln.Addr().String()) {
		fmt.Fprintf(sio.out, "  %-12s %s\n", u.Reviewer, u.URL)
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-c.Context.Done():
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(ctx)
		fmt.Fprintln(sio.err, "ub review serve: stopped")
		return nil
	}
}

func reviewStats(c *cli.Context, ws *queries.Workspace, reviewer string) (analysis.ReviewStats, error) {
	method := c.String("interval")
	if method == "" {
		method = "wilson"
	}
	iv, err := analysis.IntervalByName(method)
	if err != nil {
		return analysis.ReviewStats{}, usageError{err}
	}
	ds, err := queries.ReviewDecisions(c.Context, ws.Conn())
	if err != nil {
		return analysis.ReviewStats{}, err
	}
	if len(ds) == 0 {
		return analysis.ReviewStats{}, &reports.MissingError{Figure: "review", Reason: "no review decision yet: ub review serve (or ub review import) first"}
	}
	level := c.Float64("level")
	if level == 0 {
		level = 0.95
	}
	return analysis.ReviewStatistics(review.Items(ds), analysis.ReviewOptions{Level: level, Interval: iv, Method: method,
		Threshold: c.Float64("threshold"), Reviewer: reviewer})
}

func runReviewStats(c *cli.Context, sio *streams) error {
	ws, err := openReviewWorkspace(c, true)
	if err != nil {
		return err
	}
	defer ws.Close()
	st, err := reviewStats(c, ws, c.String("reviewer"))
	if err != nil {
		return err
	}
	if out := c.String("out"); out != "" {
		files, err := reports.WriteReview(out, st)
		if err != nil {
			return err
		}
		defer fmt.Fprintf(sio.err, "wrote %d files into %s\n", len(files), out)
	}
	if c.Bool("json") {
		enc := json.NewEncoder(sio.out)
		enc.SetIndent("", "  ")
		return enc.Encode(st)
	}
	_, err = io.WriteString(sio.out, reports.ReviewMarkdown(st))
	return err
}

// exportedDecision is one line of ub review export.
type exportedDecision struct {
	SimulationID string          `json:"simulation_id"`
	Reviewer     string          `json:"reviewer"`
	Kind         string          `json:"kind"`
	Outcome      string          `json:"outcome"`
	Batch        string          `json:"batch,omitempty"`
	Source       string          `json:"source"`
	DecidedAt    string          `json:"decided_at"`
	Revision     int             `json:"revision"`
	Domain       string          `json:"domain,omitempty"`
	TaskID       string          `json:"task_id,omitempty"`
	Reward       *float64        `json:"reward"`
	Errors       []exportedError `json:"errors"`
}

type exportedError struct {
	TurnIdx  *int64 `json:"turn_idx"`
	Code     string `json:"code"`
	Severity string `json:"severity"`
	Note     string `json:"note"`
}

func runReviewExport(c *cli.Context, sio *streams) error {
	ws, err := openReviewWorkspace(c, true)
	if err != nil {
		return err
	}
	defer ws.Close()
	var buf strings.Builder
	if c.Bool("rerun") {
		st, err := reviewStats(c, ws, c.String("reviewer"))
		if err != nil {
			return err
		}
		for _, k := range st.Rerun {
			dom, task, _ := strings.Cut(k, "/")
			fmt.Fprintf(&buf, "%s\t%s\n", dom, task)
		}
	} else {
		ds, err := queries.ReviewDecisions(c.Context, ws.Conn())
		if err != nil {
			return err
		}
		enc := json.NewEncoder(&buf)
		for _, d := range ds {
			e := exportedDecision{SimulationID: d.SimulationID, Reviewer: d.Reviewer, Kind: d.Kind, Outcome: d.Outcome, Batch: d.Batch,
				Source: d.Source, DecidedAt: d.DecidedAt.UTC().Format(time.RFC3339), Revision: d.Revision, Domain: d.Domain, TaskID: d.TaskID,
				Errors: []exportedError{}}
			if d.Reward.Valid {
				e.Reward = &d.Reward.Float64
			}
			for _, x := range d.Errors {
				ee := exportedError{Code: x.Code, Severity: x.Severity, Note: x.Note}
				if x.TurnIdx.Valid {
					ee.TurnIdx = &x.TurnIdx.Int64
				}
				e.Errors = append(e.Errors, ee)
			}
			if err := enc.Encode(e); err != nil {
				return err
			}
		}
	}
	if out := c.String("out"); out != "" {
		return os.WriteFile(out, []byte(buf.String()), 0o644)
	}
	_, err = io.WriteString(sio.out, buf.String())
	return err
}

func runReviewImport(c *cli.Context, sio *streams, path string) error {
	format := c.String("format")
	if format == "" {
		switch strings.ToLower(filepath.Ext(path)) {
		case ".csv":
			format = "csv"
		case ".json":
			format = "tau2"
		default:
			return usagef("review import: say --format tau2 or --format csv for %s", path)
		}
	}
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	reviewer := c.String("reviewer")
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	now := time.Now().UTC()
	var ds []queries.Decision
	var st review.ImportStats
	switch format {
	case "tau2":
		if reviewer == "" {
			reviewer = "llm:" + base
		}
		ds, st, err = review.ParseUserOnlyReviews(path, f, reviewer, now)
		if err != nil {
			return fmt.Errorf("review import: %w: %w", err, ingest.ErrBadInput)
		}
	case "csv":
		if reviewer == "" {
			reviewer = "csv:" + base
		}
		var errs []error
		ds, st, errs = review.ParseLabelsCSV(path, f, reviewer, now)
		if len(errs) > 0 {
			for _, e := range errs {
				fmt.Fprintln(sio.err, e)
			}
			return fmt.Errorf("review import: %d bad row(s), nothing imported: %w", len(errs), ingest.ErrBadInput)
		}
	default:
		return usagef("review import: --format %q: want tau2 or csv", format)
	}
	ws, err := openReviewWorkspace(c, false)
	if err != nil {
		return err
	}
	defer ws.Close()
	if err := queries.ReplaceReviewer(c.Context, ws, reviewer, ds); err != nil {
		return fmt.Errorf("review import: %w", err)
	}
	fmt.Fprintf(sio.out, "imported %d decisions of %s (%d simulator errors, %d failed reviews; %d records without a decision skipped)\n",
		len(ds), reviewer, st.Errors, st.Failed, st.Skipped)
	return nil
}

// reportReview is the review statistics for ub report (final human
// decisions, Wilson 95%), or nil when no human decision counts.
func reportReview(c *cli.Context, ws *queries.Workspace) (*analysis.ReviewStats, error) {
	ds, err := queries.ReviewDecisions(c.Context, ws.Conn())
	if err != nil || len(ds) == 0 {
		return nil, err
	}
	st, err := analysis.ReviewStatistics(review.Items(ds), analysis.ReviewOptions{})
	if err != nil {
		return nil, nil // e.g. only LLM reviews: nothing final to report
	}
	return &st, nil
}
