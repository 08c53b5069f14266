package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/ingest"
	"github.com/ub-bench/ub/judge/review"
	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/reports"
)

func newReviewCommand(sio *streams) *cli.Command {
	return &cli.Command{
		Name:  "review",
		Usage: "measure a simulator's error rate with human reviewers in a browser",
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
					&cli.Float64Flag{Name: "oversample-probes", Usage: "draw episodes where judge-free probes fired with weight `W` (>= 1); estimates are weighted back"},
					&cli.StringFlag{Name: "prefill", Usage: "pre-fill each undecided form with the decision of LLM reviewer `NAME` (decisions made so are marked)"},
				},
				Action: func(c *cli.Context) error {
					if err := noArgs(c); err != nil {
						return err
					}
					return runReviewSample(c, sio)
				},
			},
			newReviewServeCommand(sio),
			{
				Name:  "plan",
				Usage: "how many episodes to review for a target interval width, or to detect a difference between two simulators",
				Flags: []cli.Flag{
					&cli.Float64Flag{Name: "width", Usage: "target full `WIDTH` of the error share's interval (e.g. 0.05)"},
					&cli.Float64Flag{Name: "detect", Usage: "difference `D` between two simulators' error shares to detect"},
					&cli.Float64Flag{Name: "expected", Value: -1, Usage: "anticipated error share `P` (default: the people's share in the workspace, else an LLM reviewer's, else 0.5)"},
					&cli.Float64Flag{Name: "level", Value: 0.95, Usage: "confidence level (the test's is 1 - level)"},
					&cli.Float64Flag{Name: "power", Value: 0.8, Usage: "power for --detect"},
					&cli.Float64Flag{Name: "oversample-probes", Usage: "plan for a probe-guided batch of weight `W` (its design effect)"},
					&cli.BoolFlag{Name: "json", Usage: "print the plan as JSON"},
				},
				Action: func(c *cli.Context) error {
					if err := noArgs(c); err != nil {
						return err
					}
					return runReviewPlan(c, sio)
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
					&cli.Uint64Flag{Name: "seed", Usage: "seed of the corrected share's Monte Carlo draws (default: analysis's fixed seed)"},
					&cli.BoolFlag{Name: "json", Usage: "print the statistics as JSON"},
					&cli.StringFlag{Name: "out", Usage: "write review-error-share, review-codes (SVG, PNG, CSV) and report.md into `DIR`"},
				},
				Action: func(c *cli.Context) error {
					if err := noArgs(c); err != nil {
						return err
					}
					return runReviewStats(c, sio)
				},
			},
			{
				Name:  "export",
				Usage: "every decision as JSONL, Label Studio tasks or Argilla records; with --rerun, the tasks with a critical simulator error (domain TAB task id)",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "format", Value: "jsonl", Usage: "jsonl, label-studio (tasks with annotations and predictions) or argilla (records, JSONL)"},
					&cli.StringFlag{Name: "batch", Usage: "label-studio, argilla: the episodes of batch `NAME` only"},
					&cli.BoolFlag{Name: "rerun", Usage: "write the task ids to re-run instead"},
					&cli.StringFlag{Name: "reviewer", Usage: "with --rerun: one reviewer's decisions (default: final human decisions)"},
					&cli.StringFlag{Name: "out", Usage: "output `FILE` (default: stdout)"},
				},
				Action: func(c *cli.Context) error {
					if err := noArgs(c); err != nil {
						return err
					}
					return runReviewExport(c, sio)
				},
			},
			newReviewImportCommand(sio),
		},
	}
}

func noArgs(c *cli.Context) error {
	a, err := args(c)
	if err != nil {
		return err
	}
	if len(a) > 0 {
		return usagef("%s: takes no arguments (got %s)", strings.TrimPrefix(c.Command.HelpName, "ub "), strings.Join(a, " "))
	}
	return nil
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

// reviewError maps the review library's kinds of error to ub's: missing
// data exits 6, an impossible request is a usage error; the message is
// unchanged.
func reviewError(err error) error {
	switch {
	case errors.Is(err, review.ErrNoData):
		return prerequisiteError{err}
	case errors.Is(err, review.ErrInvalid):
		return usageError{err}
	case errors.Is(err, review.ErrBadInput):
		return fmt.Errorf("%w: %w", err, ingest.ErrBadInput)
	}
	return err
}

func runReviewSample(c *cli.Context, sio *streams) error {
	ws, err := openWorkspace(c, false)
	if err != nil {
		return err
	}
	defer ws.Close()
	b, as, err := review.CreateBatch(c.Context, ws, review.BatchOptions{Name: c.String("name"), N: c.Int("n"), Seed: c.Uint64("seed"),
		Stratify: splitList(c.String("stratify")), Reviewers: splitList(c.String("reviewers")), OversampleProbes: c.Float64("oversample-probes"),
		Prefill: c.String("prefill"), OnLeftOut: func(lo review.LeftOut) {
			fmt.Fprintf(sio.err, "left out: %s, which no review can judge\n", lo)
		}})
	if err != nil {
		return reviewError(err)
	}
	strata := "not stratified"
	if b.Stratify != "" {
		strata = "stratified by " + b.Stratify
	}
	if b.OversampleProbes != 0 {
		strata += fmt.Sprintf("; episodes where probes fired drawn with weight %s, inclusion probabilities recorded",
			strconv.FormatFloat(b.OversampleProbes, 'g', -1, 64))
	}
	fmt.Fprintf(sio.out, "batch %s: %d episodes (seed %d, %s) for %s: %d assignments\n",
		b.Batch, b.N, b.Seed, strata, b.Reviewers, len(as))
	if b.Prefill != "" {
		fmt.Fprintf(sio.out, "forms are pre-filled with the decisions of %s; decisions made on them are marked\n", b.Prefill)
	}
	fmt.Fprintf(sio.out, "next: ub review serve --batch %s\n", b.Batch)
	return nil
}

// checkLevel refuses a --level that is not a confidence level (strictly
// between 0 and 1) before anything is read.
func checkLevel(c *cli.Context) error {
	if l := c.Float64("level"); !(l > 0 && l < 1) {
		return usagef("%s: --level %v: want a confidence level between 0 and 1 (0.95)", strings.TrimPrefix(c.Command.HelpName, "ub "), l)
	}
	return nil
}

// reviewStatsOptions reads the statistics flags of ub review stats and
// export.
func reviewStatsOptions(c *cli.Context) review.StatsOptions {
	o := review.StatsOptions{Interval: c.String("interval"), Level: c.Float64("level"), Threshold: c.Float64("threshold"), Reviewer: c.String("reviewer")}
	if c.IsSet("seed") {
		o.Seed = c.Uint64("seed")
	}
	return o
}

func runReviewPlan(c *cli.Context, sio *streams) error {
	if err := checkLevel(c); err != nil {
		return err
	}
	var db queries.Querier
	if st, err := os.Stat(c.String("db")); err == nil && st.Size() > 0 {
		ws, err := openWorkspace(c, true)
		if err != nil {
			return err
		}
		defer ws.Close()
		db = ws.Conn()
	}
	if pw := c.Float64("power"); !(pw > 0 && pw < 1) {
		return usagef("review plan: --power %v: want a power between 0 and 1 (0.8)", pw)
	}
	p, err := review.MakePlan(c.Context, db, review.PlanOptions{Width: c.Float64("width"), Detect: c.Float64("detect"),
		Expected: c.Float64("expected"), Level: c.Float64("level"), Power: c.Float64("power"), OversampleProbes: c.Float64("oversample-probes")})
	if err != nil {
		return reviewError(err)
	}
	if c.Bool("json") {
		enc := json.NewEncoder(sio.out)
		enc.SetIndent("", "  ")
		return enc.Encode(p)
	}
	_, err = io.WriteString(sio.out, p.Text())
	return err
}

func runReviewStats(c *cli.Context, sio *streams) error {
	if err := checkLevel(c); err != nil {
		return err
	}
	if err := requireOutDir("review stats", c.String("out")); err != nil {
		return err
	}
	ws, err := openWorkspace(c, true)
	if err != nil {
		return err
	}
	defer ws.Close()
	st, err := review.Stats(c.Context, ws.Conn(), reviewStatsOptions(c))
	if err != nil {
		return reviewError(err)
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

func runReviewExport(c *cli.Context, sio *streams) error {
	ws, err := openWorkspace(c, true)
	if err != nil {
		return err
	}
	defer ws.Close()
	var buf strings.Builder
	format := c.String("format")
	if c.Bool("rerun") && format != "jsonl" {
		return usagef("review export: --rerun writes task ids, not --format %s", format)
	}
	if c.String("batch") != "" && format == "jsonl" {
		return usagef("review export: --batch is for --format label-studio or argilla")
	}
	if b := c.String("batch"); b != "" {
		if _, err := review.PickBatch(c.Context, ws.Conn(), b); err != nil {
			return reviewError(fmt.Errorf("review export: %w", err))
		}
	}
	switch {
	case format == "label-studio":
		st, err := review.WriteLabelStudio(c.Context, ws.Conn(), &buf, c.String("batch"))
		if err != nil {
			return err
		}
		for i, a := range st.Annotators {
			fmt.Fprintf(sio.err, "completed_by %d: %s\n", i+1, a)
		}
	case format == "argilla":
		if _, err := review.WriteArgilla(c.Context, ws.Conn(), &buf, c.String("batch")); err != nil {
			return err
		}
	case format != "jsonl":
		return usagef("review export: --format %q: want jsonl, label-studio or argilla", format)
	case c.Bool("rerun"):
		st, err := review.Stats(c.Context, ws.Conn(), reviewStatsOptions(c))
		if err != nil {
			return reviewError(err)
		}
		if err := review.WriteRerun(&buf, st); err != nil {
			return err
		}
	default:
		if err := review.WriteDecisions(c.Context, ws.Conn(), &buf); err != nil {
			return err
		}
	}
	if out := c.String("out"); out != "" {
		// Replaced whole (a temporary and a rename), never half-written.
		err := writeOut(out, sio.out, func(path string) error { return writeFileAtomic(path, []byte(buf.String())) })
		if err != nil {
			return fmt.Errorf("review export: %w", err)
		}
		return nil
	}
	_, err = io.WriteString(sio.out, buf.String())
	return err
}
