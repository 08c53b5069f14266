package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/sim/runner"
)

// streams are where a command reads and writes; tests swap them.
type streams struct {
	in       io.Reader
	out, err io.Writer
	tty      bool // stderr is a terminal: progress bars allowed
	// clock is the model runner's clock (backoff, Retry-After and
	// rate-limit waits); nil means the wall clock. Tests inject one that
	// does not wait.
	clock runner.Clock
}

func defaultStreams() *streams {
	return &streams{in: os.Stdin, out: os.Stdout, err: os.Stderr,
		tty: isatty.IsTerminal(os.Stderr.Fd()) && os.Getenv("TERM") != "dumb"}
}

// Main runs ub with os.Args and returns the exit code.
func Main() int { return run(os.Args, defaultStreams()) }

func run(args []string, sio *streams) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	app := newApp(sio)
	err := app.RunContext(ctx, args)
	if errors.Is(err, errStopped) { // a server whose normal end is a signal (ub review serve)
		return 0
	}
	if ctx.Err() != nil { // SIGINT: what was committed stays; say so and exit 130
		if err == nil {
			err = ctx.Err()
		}
		fmt.Fprintln(sio.err, "ub: interrupted:", err)
		return exitInterrupt
	}
	return exitCode(err, sio)
}

// goMemoryLimit is the soft limit of ub's Go heap (GOMEMLIMIT, when set,
// takes its place). DuckDB holds what --memory-limit gives it; what ub holds
// in Go comes on top, and the bound ub keeps to is the limit plus 256 MiB
// (docs/performance.md, Scale). Under this limit Go collects garbage sooner
// as its heap nears it, rather than at twice the live heap: a command whose
// live heap is small (the report's, the probes', at any scale) stays well
// under it; one whose live heap is larger runs on, collecting more often.
const goMemoryLimit = 192 << 20

func newApp(sio *streams) *cli.App {
	app := &cli.App{
		Name:      "ub",
		Usage:     "benchmark LLM user simulators on recorded developer <-> agent conversations",
		Reader:    sio.in,
		Writer:    sio.out,
		ErrWriter: sio.err,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "db", Value: "ub.duckdb", EnvVars: []string{"UB_DB"}, Usage: "workspace `FILE`"},
			&cli.StringFlag{Name: "memory-limit", EnvVars: []string{"UB_MEMORY_LIMIT"}, Value: queries.DefaultMemoryLimit,
				Usage: "what DuckDB may hold in memory (`SIZE`, e.g. 2GiB); past it, it spills to a temporary folder beside the workspace"},
			&cli.BoolFlag{Name: "version", Usage: "print the version and commit of ub and exit"},
			// ub's own help command stops urfave/cli from adding its
			// --help flag to the app: without it, ub --help was refused.
			cli.HelpFlag,
		},
		Before: func(c *cli.Context) error {
			if err := queries.CheckMemoryLimit(c.String("memory-limit")); err != nil {
				if v, ok := os.LookupEnv("UB_MEMORY_LIMIT"); ok && v == c.String("memory-limit") {
					return usagef("UB_MEMORY_LIMIT %v", err)
				}
				return usagef("--memory-limit %v", err)
			}
			if _, ok := os.LookupEnv("GOMEMLIMIT"); !ok {
				debug.SetMemoryLimit(goMemoryLimit)
			}
			return nil
		},
		Commands: []*cli.Command{
			newIngestCommand(sio),
			newSQLCommand(sio),
			newExportCommand(sio),
			newSplitCommand(sio),
			newPointsCommand(sio),
			newAuditCommand(sio),
			newGenerateCommand(sio),
			newCacheCommand(sio),
			newBatchCommand(sio),
			newJudgeCommand(sio),
			newAgreeCommand(sio),
			newLabelsCommand(sio),
			newDemoCommand(sio),
			newPromptCommand(sio),
			newProfileCommand(sio),
			newReportCommand(sio),
			newSynthCommand(sio),
			newProbesCommand(sio),
			newRubricsCommand(sio), newVerdictsCommand(sio), newGradeCommand(sio),
			newReviewCommand(sio),
			newCompletionCommand(sio), newManCommand(sio), newHelpCommand(),
			newPublishCommand(sio),
			newCompareCommand(sio),
			newViewCommand(sio),
		},
		EnableBashCompletion: true,
		OnUsageError: func(c *cli.Context, err error, _ bool) error {
			return usageError{suggestFlag(err, c.App.Flags)}
		},
		ExitErrHandler:  func(*cli.Context, error) {},
		HideHelpCommand: true, // ub help CMD is newHelpCommand: the same as ub CMD --help
		Action:          rootAction,
	}
	usageErrorsEverywhere(app.Commands, "")
	addExamples(app.Commands, "")
	app.CustomAppHelpTemplate = groupedHelpTemplate(app.Commands)
	return app
}

// printJSON writes v as indented JSON on stdout.
func printJSON(sio *streams, v any) error {
	enc := json.NewEncoder(sio.out)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
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

// openWorkspace opens the workspace named by --db, which must exist: only
// the commands that bring data in create one (createWorkspace), so a
// mistyped --db is an error, not a new empty workspace.
func openWorkspace(c *cli.Context, readOnly bool) (*queries.Workspace, error) {
	path := c.String("db")
	if st, err := os.Stat(path); err != nil || st.Size() == 0 {
		return nil, prerequisitef("no workspace at %s (run ub ingest or ub demo first, or pass --db)", path)
	}
	return openExplained(c, path, queries.Options{ReadOnly: readOnly})
}

// createWorkspace opens the workspace named by --db read-write, creating
// it if it does not exist: for the commands that bring data in (ingest,
// the imports).
func createWorkspace(c *cli.Context) (*queries.Workspace, error) {
	path := c.String("db")
	// A workspace is created in a folder that exists: a mistyped folder is
	// the flag's fault (exit 2), not a fault of the machine.
	if dir := filepath.Dir(path); path != "" && path != ":memory:" {
		if st, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
			return nil, usagef("--db %s: no folder %s to create the workspace in", path, dir)
		} else if err == nil && !st.IsDir() {
			return nil, usagef("--db %s: %s is not a folder", path, dir)
		}
	}
	return openExplained(c, path, queries.Options{})
}

// openExplained opens the workspace at path; a lock held by ub review serve
// is named as such, with its pid.
func openExplained(c *cli.Context, path string, opts queries.Options) (*queries.Workspace, error) {
	opts.MemoryLimit = c.String("memory-limit")
	ws, err := queries.Open(c.Context, path, opts)
	if errors.Is(err, queries.ErrLocked) {
		if holder := serveHolder(path, err); holder != "" {
			return nil, fmt.Errorf("%s holds the workspace %s: it is the one writer while reviewers work; stop it (Ctrl-C) and run this again: %w",
				holder, path, queries.ErrLocked)
		}
	}
	return ws, err
}

// progress returns a progress callback drawing a bar of bytes read on
// stderr when it is a terminal, and nil (silent) otherwise.
func progress(sio *streams, what string) (func(done, total int64), func()) {
	return progressAt(sio, what, time.Now)
}

// progressAt is progress with a clock. The rate is the bytes done over the
// wall time since progressAt was called (the start of the work), shown
// once a second has passed: before that it would say little, and a first
// update after a fast start would claim an absurd rate.
func progressAt(sio *streams, what string, now func() time.Time) (func(done, total int64), func()) {
	if !sio.tty {
		return nil, func() {}
	}
	start := now()
	var last time.Time
	drawn := false
	return func(done, total int64) {
			t := now()
			if drawn && t.Sub(last) < 100*time.Millisecond && done < total {
				return
			}
			last, drawn = t, true
			pct := 0
			if total > 0 {
				pct = int(100 * done / total)
			}
			line := fmt.Sprintf("%s %3d%% %s / %s", what, pct, humanBytes(float64(done)), humanBytes(float64(total)))
			if el := t.Sub(start); el >= time.Second {
				line += fmt.Sprintf(" (%s/s)", humanBytes(float64(done)/el.Seconds()))
			}
			fmt.Fprintf(sio.err, "\r%s\x1b[K", line)
		}, func() {
			if drawn {
				fmt.Fprint(sio.err, "\r\x1b[K")
			}
		}
}

// humanBytes writes n bytes in decimal units: 999 B, 1.5 kB, 66 MB, 2.1 GB.
func humanBytes(n float64) string {
	units := []string{"B", "kB", "MB", "GB", "TB"}
	u := 0
	for n >= 1000 && u < len(units)-1 {
		n /= 1000
		u++
	}
	if u == 0 || n >= 100 {
		return fmt.Sprintf("%.0f %s", n, units[u])
	}
	return fmt.Sprintf("%.1f %s", n, units[u])
}
