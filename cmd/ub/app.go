package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/mattn/go-isatty"
	"github.com/schollz/progressbar/v3"
	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/ingest"
	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/reports"
	"github.com/ub-bench/ub/sim"
)

// Exit codes, documented in the README.
const (
	exitOK       = 0 // success
	exitInternal = 1 // a fault of ub or of the machine (I/O, database)
	exitUsage    = 2 // a misused command or flag
	exitBadInput = 3 // some input was bad: reported, the rest was processed
	exitLocked   = 4 // the workspace is held by another ub process
	exitAudit    = 5 // ub audit found a leak
	exitNoData   = 6 // a step needs data an earlier step makes (a split, points)
)

// usageError marks an error in how ub was called.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// streams are where a command reads and writes; tests swap them.
type streams struct {
	in       io.Reader
	out, err io.Writer
	tty      bool // stderr is a terminal: progress bars allowed
}

func defaultStreams() *streams {
	return &streams{in: os.Stdin, out: os.Stdout, err: os.Stderr,
		tty: isatty.IsTerminal(os.Stderr.Fd()) && os.Getenv("TERM") != "dumb"}
}

// Main runs ub with os.Args and returns the exit code.
func Main() int { return run(os.Args, defaultStreams()) }

func run(args []string, io *streams) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	app := newApp(io)
	err := app.RunContext(ctx, args)
	if ctx.Err() != nil { // SIGINT: what was committed stays; say so and exit 130
		if err == nil {
			err = ctx.Err()
		}
		fmt.Fprintln(io.err, "ub: interrupted:", err)
		return exitInterrupt
	}
	return exitCode(err, io)
}

func newApp(io *streams) *cli.App {
	app := &cli.App{
		Name:      "ub",
		Usage:     "benchmark LLM user simulators on recorded developer <-> agent conversations",
		Reader:    io.in,
		Writer:    io.out,
		ErrWriter: io.err,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "db", Value: "ub.duckdb", EnvVars: []string{"UB_DB"}, Usage: "workspace `FILE`"},
			&cli.BoolFlag{Name: "version", Usage: "print the version and commit of ub and exit"},
		},
		Commands: []*cli.Command{
			newIngestCommand(io),
			newSQLCommand(io),
			newExportCommand(io),
			newSplitCommand(io),
			newPointsCommand(io),
			newAuditCommand(io),
			newGenerateCommand(io),
			newCacheCommand(io),
			newBatchCommand(io),
			newJudgeCommand(io),
			newAgreeCommand(io),
			newLabelsCommand(io),
			newDemoCommand(io),
			newPromptCommand(io),
			newProfileCommand(io),
			newReportCommand(io),
			newSynthCommand(io),
			newProbesCommand(io),
			newRubricsCommand(io), newVerdictsCommand(io), newGradeCommand(io),
			newReviewCommand(io),
			newPublishCommand(io),
		},
		OnUsageError: func(c *cli.Context, err error, _ bool) error {
			return usageError{err}
		},
		ExitErrHandler:  func(*cli.Context, error) {},
		HideHelpCommand: true,
		Action:          rootAction,
	}
	usageErrorsEverywhere(app.Commands, "")
	return app
}

// exitCode prints err (if any) to stderr and maps it to an exit code, in one
// place.
func exitCode(err error, io *streams) int {
	if err == nil {
		return exitOK
	}
	var ue usageError
	fmt.Fprintln(io.err, "ub:", err)
	switch {
	case errors.As(err, &ue), errors.Is(err, queries.ErrNotWorkspace):
		return exitUsage
	case errors.Is(err, ingest.ErrBadInput):
		return exitBadInput
	case errors.Is(err, queries.ErrLocked):
		return exitLocked
	case errors.Is(err, errAuditFailed):
		return exitAudit
	case errors.Is(err, queries.ErrNoSplit), errors.Is(err, errPrerequisite):
		return exitNoData
	case errors.Is(err, errModelCalls), errors.Is(err, sim.ErrEndpoint):
		return exitModel
	}
	var missing *reports.MissingError
	if errors.As(err, &missing) {
		return exitNoData
	}
	return exitInternal
}

// args returns a command's positional arguments, refusing a flag written
// after them (urfave/cli stops reading flags at the first argument, and a
// silently ignored --out would be worse than an error).
func args(c *cli.Context) ([]string, error) {
	for _, a := range c.Args().Slice() {
		if len(a) > 1 && strings.HasPrefix(a, "-") {
			return nil, usagef("%s: flags go before arguments: %s", c.Command.Name, a)
		}
	}
	return c.Args().Slice(), nil
}

// openWorkspace opens the workspace named by --db.
func openWorkspace(c *cli.Context, readOnly bool) (*queries.Workspace, error) {
	path := c.String("db")
	if readOnly {
		if _, err := os.Stat(path); err != nil {
			return nil, prerequisitef("no workspace at %s (run ub ingest or ub demo first, or pass --db)", path)
		}
	}
	return queries.Open(c.Context, path, queries.Options{ReadOnly: readOnly})
}

// progress returns a progress callback drawing a bar on stderr when it is a
// terminal, and nil (silent) otherwise.
func progress(io *streams, what string) (func(done, total int64), func()) {
	if !io.tty {
		return nil, func() {}
	}
	var bar *progressbar.ProgressBar
	return func(done, total int64) {
			if bar == nil {
				bar = progressbar.NewOptions64(total, progressbar.OptionSetWriter(io.err),
					progressbar.OptionSetDescription(what), progressbar.OptionShowBytes(true),
					progressbar.OptionThrottle(100_000_000), progressbar.OptionClearOnFinish())
			}
			bar.Set64(done)
		}, func() {
			if bar != nil {
				bar.Finish()
			}
		}
}
