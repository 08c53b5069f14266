package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/ingest"
	"github.com/ub-bench/ub/judge/review"
	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/reports/visible"
)

// newReviewImportCommand is ub review import.
func newReviewImportCommand(sio *streams) *cli.Command {
	return &cli.Command{
		Name:      "import",
		Usage:     "import tau2 user_only_review results as an LLM reviewer, or human labels in CSV or Label Studio JSON",
		ArgsUsage: "FILE",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Usage: "tau2 (a results JSON with user_only_review), csv, or label-studio (a Label Studio JSON export of tasks ub wrote) (default: by the file name)"},
			&cli.StringFlag{Name: "reviewer", Usage: "reviewer `NAME` (default: llm:FILE, csv:FILE or label-studio:FILE)"},
			&cli.IntFlag{Name: "annotator", Usage: "label-studio: the annotations of completed_by `N` (default: each task's only one)"},
			&cli.StringFlag{Name: "reviewer-model", Usage: "the `MODEL` that made a tau2 review (tau2's default is claude-opus-4-5); recorded with each decision"},
		},
		Action: func(c *cli.Context) error {
			a, err := args(c)
			if err != nil {
				return err
			}
			if len(a) != 1 {
				return usagef("review import: name one FILE")
			}
			return runReviewImport(c, sio, a[0])
		},
	}
}

func runReviewImport(c *cli.Context, sio *streams, path string) error {
	if err := requireFiles("review import", path); err != nil {
		return err
	}
	// A dir-format run is named by its folder; anything else must be a
	// file: a device (/dev/zero) would be read without end.
	if st, err := os.Stat(path); err == nil && st.Mode()&fs.ModeDevice != 0 {
		return usagef("review import: %s: a device, not a file", path)
	}
	f, err := review.ParseFile(path, review.FileOptions{Format: c.String("format"), Reviewer: c.String("reviewer"), At: time.Now().UTC(), Run: tau2DirRun,
		Annotator: c.Int("annotator"), Model: c.String("reviewer-model")})
	if err != nil {
		return reviewError(err)
	}
	if len(f.BadRows) > 0 {
		for _, e := range f.BadRows { // no control character of the data reaches the terminal
			fmt.Fprintln(sio.err, visible.Line(e.Error()))
		}
		return fmt.Errorf("review import: %d bad row(s), nothing imported: %w", len(f.BadRows), ingest.ErrBadInput)
	}
	ws, err := createWorkspace(c)
	if err != nil {
		return err
	}
	defer ws.Close()
	placed, err := review.PlaceTicks(c.Context, ws.Conn(), f.Decisions)
	if err != nil {
		return fmt.Errorf("review import: %w", err)
	}
	bad, err := review.CheckTurns(c.Context, ws, f.Decisions)
	if err != nil {
		return fmt.Errorf("review import: %w", err)
	}
	if len(bad) > 0 {
		for _, e := range bad {
			fmt.Fprintln(sio.err, visible.Line(e.Error()))
		}
		return fmt.Errorf("review import: %d error(s) at turns their episodes do not have, nothing imported: %w", len(bad), ingest.ErrBadInput)
	}
	if err := queries.ReplaceReviewer(c.Context, ws, f.Reviewer, f.Decisions); err != nil {
		return fmt.Errorf("review import: %w", err)
	}
	fmt.Fprintf(sio.out, "imported %d decisions of %s (%d simulator errors, %d failed reviews; %d records without a decision skipped)\n",
		len(f.Decisions), f.Reviewer, f.Stats.Errors, f.Stats.Failed, f.Stats.Skipped)
	if f.Stats.Salvaged > 0 {
		fmt.Fprintf(sio.out, "salvaged  %d of them from the raw response of a review tau2 failed to parse (marked in rv_llm_reviews)\n", f.Stats.Salvaged)
	}
	if placed > 0 {
		fmt.Fprintf(sio.out, "placed    %d errors given by tick span on the turn of their first user message\n", placed)
	}
	return nil
}

// tau2DirRun reads a dir-format tau2 run, whose results.json is meta, as
// ub ingest reads it, for the review import: its simulation files checked
// against its index, a reader of one file (regular files within ingest's
// bound) and the reviews tau2 review wrote beside it.
func tau2DirRun(meta string) (review.DirRun, error) {
	files, err := ingest.Tau2DirFiles(meta)
	if err != nil {
		return review.DirRun{}, err
	}
	reviewed, pe := ingest.ReadTau2Reviewed(filepath.Dir(meta))
	if pe != nil {
		return review.DirRun{}, pe
	}
	run := review.DirRun{Files: files, Reviews: map[string]json.RawMessage{},
		Read: func(p string) ([]byte, error) {
			data, pe := ingest.ReadTau2Simulation(p)
			if pe != nil {
				return nil, errors.New(pe.Reason)
			}
			return data, nil
		}}
	for id, rv := range reviewed {
		if rv.UserOnlyReview != nil {
			run.Reviews[id] = rv.UserOnlyReview
		}
	}
	return run, nil
}
