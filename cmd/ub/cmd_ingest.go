package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/analysis/probes"
	"github.com/ub-bench/ub/ingest"
	"github.com/ub-bench/ub/reports/visible"
)

type ingestOptions struct {
	paths     []string
	format    string
	developer string
	repo      string
	manifest  string
	keepGoing bool
	json      bool
	tasks     bool
	tau1      ingest.Tau1Names // --domain, --agent, --user-simulator
	prices    string
}

func newIngestCommand(sio *streams) *cli.Command {
	return &cli.Command{
		Name:      "ingest",
		Usage:     "read session logs into the workspace",
		ArgsUsage: "PATH... (files, directories, or - for canonical JSONL on stdin)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: "auto", Usage: "auto|" + strings.Join(ingest.Formats(), "|")},
			&cli.StringFlag{Name: "developer", Usage: "developer of every session read"},
			&cli.StringFlag{Name: "repo", Usage: "repository of every session read"},
			&cli.StringFlag{Name: "manifest", Usage: "manifest.jsonl: each repo's authors become developers who touched it"},
			&cli.BoolFlag{Name: "keep-going", Value: true, Usage: "go on past bad input (false: stop after the first file with an error)"},
			&cli.BoolFlag{Name: "json", Usage: "print the summary as JSON"},
			&cli.BoolFlag{Name: "tasks", Usage: "read the files as tau2 task files (tasks/<domain>/tasks.json)"},
			&cli.StringFlag{Name: "prices", Usage: "FILE.toml: dated price table ($ per million tokens in/out per model) for estimated episode costs"},
			&cli.StringFlag{Name: "domain", Usage: "tau-bench v1 files: their `DOMAIN` (default: from the file name, else from the tools the tasks use)"},
			&cli.StringFlag{Name: "agent", Usage: "tau-bench v1 files: the agent's `MODEL` (default: from the file name)"},
			&cli.StringFlag{Name: "user-simulator", Usage: "tau-bench v1 files: the user simulator's `MODEL` (default: from the file name)"},
		},
		Action: func(c *cli.Context) error {
			paths, err := args(c)
			if err != nil {
				return err
			}
			opts := ingestOptions{paths: paths, format: c.String("format"),
				developer: c.String("developer"), repo: c.String("repo"), manifest: c.String("manifest"),
				keepGoing: c.Bool("keep-going"), json: c.Bool("json"), tasks: c.Bool("tasks"), prices: c.String("prices"),
				tau1: ingest.Tau1Names{Domain: c.String("domain"), Agent: c.String("agent"), User: c.String("user-simulator")}}
			return runIngest(c, sio, opts)
		},
	}
}

func runIngest(c *cli.Context, sio *streams, opts ingestOptions) error {
	if len(opts.paths) == 0 && opts.prices == "" {
		return usagef("ingest: name at least one PATH (or - for stdin)")
	}
	if opts.format != "auto" && !slices.Contains(ingest.Formats(), opts.format) {
		return usagef("ingest: unknown format %q (want auto or one of %s)", opts.format, strings.Join(ingest.Formats(), ", "))
	}
	if err := requireFiles("ingest", opts.paths...); err != nil {
		return err
	}
	if err := requireInputFiles("ingest", opts.prices); err != nil {
		return err
	}
	for _, f := range []struct{ flag, value string }{{"--domain", opts.tau1.Domain}, {"--agent", opts.tau1.Agent}, {"--user-simulator", opts.tau1.User}} {
		if !utf8.ValidString(f.value) || strings.ContainsFunc(f.value, unicode.IsControl) {
			return usagef("ingest: %s %s: a name of valid UTF-8 without control characters", f.flag, visible.Quote(f.value))
		}
	}
	for _, p := range opts.paths {
		if run, ok := ingest.Tau2RunOfSimulations(p); ok {
			return usagef("ingest: %s is the simulations folder of a dir-format tau2 run, whose files are read with its results.json: ingest the run, %s", p, run)
		}
		if run, ok := ingest.Tau2RunOfSimulations(filepath.Dir(p)); ok && strings.HasSuffix(p, ".json") {
			return usagef("ingest: %s is a simulation file of a dir-format tau2 run, read with its results.json: ingest the run, %s", p, run)
		}
	}
	ws, err := createWorkspace(c)
	if err != nil {
		return err
	}
	defer ws.Close()
	if opts.prices != "" {
		ps, err := ingest.StorePrices(c.Context, ws, opts.prices)
		if err != nil {
			return fmt.Errorf("ingest --prices: %w (%w)", err, ingest.ErrBadInput)
		}
		fmt.Fprintf(sio.err, "prices     %d models from %s\n", len(ps), opts.prices)
		if len(opts.paths) == 0 {
			return nil
		}
	}
	prog, done := progress(sio, "ingest")
	st, err := ingest.Run(c.Context, ws, opts.paths, ingest.Options{
		Format: opts.format, Identity: ingest.Identity{Developer: opts.developer, Repo: opts.repo},
		Manifest: opts.manifest, FailFast: !opts.keepGoing, Stdin: sio.in, Progress: prog, Tasks: opts.tasks, Tau1: opts.tau1,
		NewProber: newProber,
	})
	done()
	if st.Files == 0 && err == nil && st.FilesSkipped == 0 {
		return usagef("ingest: no files found in %s", strings.Join(opts.paths, " "))
	}
	for _, e := range st.Errors { // no control character of the data reaches the terminal
		fmt.Fprintln(sio.err, visible.Line(e))
	}
	for _, w := range st.Warnings {
		fmt.Fprintln(sio.err, "warning:", visible.Line(w))
	}
	if flags := unusedTau1Flags(opts.tau1, st); len(flags) > 0 {
		fmt.Fprintf(sio.err, "warning: %s ignored: %s only tau-bench v1 files, and none was read\n",
			strings.Join(flags, ", "), map[bool]string{true: "it names", false: "they name"}[len(flags) == 1])
	}
	if st.ErrorCount > len(st.Errors) {
		fmt.Fprintf(sio.err, "... and %d more (see: ub sql \"select * from ingest_errors\")\n", st.ErrorCount-len(st.Errors))
	}
	if opts.json {
		enc := json.NewEncoder(sio.out)
		enc.SetIndent("", "  ")
		if jerr := enc.Encode(st); jerr != nil {
			return jerr
		}
	} else {
		printIngestSummary(sio, st)
	}
	if err == nil && opts.format != "auto" && st.Files > 0 && foundNothing(st) {
		// A forced format that finds nothing is most likely the wrong one.
		what := "session with a developer message"
		if opts.format == ingest.FormatTau2 || opts.format == ingest.FormatTau1 {
			what = "episode"
		}
		return badInputf("ingest: --format %s found no %s in %d file(s); is it the right format? (--format auto detects it)", opts.format, what, st.Files)
	}
	return err
}

// unusedTau1Flags are the flags of names given (--domain, --agent,
// --user-simulator) when the run read no tau-bench v1 file, the only files
// they name: a tau2 file states its own.
func unusedTau1Flags(n ingest.Tau1Names, st ingest.Stats) []string {
	for _, f := range st.EpisodeFiles {
		if f.Format == ingest.FormatTau1 {
			return nil
		}
	}
	var flags []string
	for _, f := range []struct{ name, value string }{{"--domain", n.Domain}, {"--agent", n.Agent}, {"--user-simulator", n.User}} {
		if f.value != "" {
			flags = append(flags, f.name)
		}
	}
	return flags
}

// foundNothing reports whether a run read no session and no episode or
// task, new or already held: tau2 and tau1 files hold episodes, not
// sessions.
func foundNothing(st ingest.Stats) bool {
	return st.Sessions+st.Replaced+st.Unchanged+st.Superseded == 0 &&
		st.Episodes+st.EpisodesReplaced+st.EpisodesUnchanged+st.Tasks == 0 && len(st.EpisodeFiles) == 0
}

// printIngestSummary prints what was read and what the workspace holds:
// the sessions block only when sessions were read or are held, the
// episodes block only when episodes were, and one workspace line.
func printIngestSummary(sio *streams, st ingest.Stats) {
	episodes := len(st.EpisodeFiles) > 0 || st.TotalEpisodes > 0
	sessions := st.Sessions+st.Replaced+st.Unchanged+st.Superseded > 0 || len(st.Skipped) > 0 || st.TotalSess > 0 || !episodes
	fmt.Fprintf(sio.out, "files      %d read, %d passed by (not a session log)\n", st.Files, st.FilesSkipped)
	if sessions {
		fmt.Fprintf(sio.out, "sessions   %d added, %d replaced by a grown copy, %d already present, %d superseded\n",
			st.Sessions, st.Replaced, st.Unchanged, st.Superseded)
		fmt.Fprintf(sio.out, "turns      %d added\n", st.Turns)
	}
	reasons := make([]string, 0, len(st.Skipped))
	for r := range st.Skipped {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	for _, r := range reasons {
		fmt.Fprintf(sio.out, "skipped    %d sessions: %s\n", st.Skipped[r], r)
	}
	printEpisodeSummary(sio, st)
	fmt.Fprintf(sio.out, "errors     %d\n", st.ErrorCount)
	var held []string
	if sessions {
		held = append(held, fmt.Sprintf("%d sessions, %d turns, %d developers, %d repos", st.TotalSess, st.TotalTurns, st.Developers, st.Repos))
	}
	if episodes {
		held = append(held, episodeWorkspace(st))
	}
	fmt.Fprintf(sio.out, "workspace  %s\n", strings.Join(held, "; "))
}

// newProber is the ingest step's prober: the judge-free probes run on each
// episode ingest adds, and their findings are stored with it.
func newProber() ingest.Prober { return probes.NewProber() }
