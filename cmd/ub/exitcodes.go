package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/ingest"
	"github.com/ub-bench/ub/judge/rubric"
	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/reports"
	"github.com/ub-bench/ub/reports/visible"
	"github.com/ub-bench/ub/sim/runner"
	"github.com/ub-bench/ub/sim/synth"
)

// Exit codes, documented in the README and docs/cli.md; exitCode maps an
// error to one of them.
const (
	exitOK         = 0   // success
	exitInternal   = 1   // a fault of ub or of the machine (I/O, database)
	exitUsage      = 2   // a misused command or flag
	exitBadInput   = 3   // some input was bad: reported, the rest was processed
	exitLocked     = 4   // the workspace is held by another ub process
	exitAudit      = 5   // ub audit found a leak
	exitNoData     = 6   // a prerequisite is missing: what an earlier step makes (a split, points), no workspace at --db, an unset API-key variable
	exitModel      = 7   // model calls failed (each recorded with its error)
	exitRegression = 8   // ub compare --fail-on-regression: B is worse than A beyond the margin with confidence
	exitInterrupt  = 130 // interrupted (SIGINT), as a shell reports 128+2
)

// usageError marks an error in how ub was called.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// errorText is an error's message as ub prints it after "ub: ". Whatever
// it quotes from the data, no control character reaches the terminal (a
// NUL, a terminal escape, a bidirectional override: shown as [U+XXXX]),
// and a line after the first (errors.Join's, or a newline in an id) is
// indented, so that no line of it can pass for one of ub's own.
func errorText(msg string) string {
	return strings.ReplaceAll(visible.Text(msg), "\n", "\n  ")
}

// exitCode prints err (if any) to stderr and maps it to an exit code, in one
// place.
func exitCode(err error, sio *streams) int {
	if err == nil {
		return exitOK
	}
	var ue usageError
	if msg, ok := outOfMemory(err); ok {
		fmt.Fprintln(sio.err, "ub:", errorText(msg))
		fmt.Fprintln(sio.err, "ub: DuckDB needed more memory than --memory-limit allows; run it again with a larger limit, e.g. ub --memory-limit 4GiB ... (or UB_MEMORY_LIMIT=4GiB)")
		return exitInternal
	}
	fmt.Fprintln(sio.err, "ub:", errorText(err.Error()))
	switch {
	case errors.As(err, &ue), errors.Is(err, queries.ErrNotWorkspace), errors.Is(err, synth.ErrNotEmpty),
		strings.HasPrefix(err.Error(), "Required flag"): // urfave/cli's missing required flag
		return exitUsage
	case errors.Is(err, ingest.ErrBadInput):
		return exitBadInput
	case errors.Is(err, queries.ErrLocked):
		return exitLocked
	case errors.Is(err, errAuditFailed):
		return exitAudit
	case errors.Is(err, queries.ErrNoSplit), errors.Is(err, errPrerequisite), errors.Is(err, rubric.ErrNoCriteria):
		return exitNoData
	case errors.Is(err, errModelCalls), errors.Is(err, runner.ErrEndpoint):
		return exitModel
	case errors.Is(err, errRegression):
		return exitRegression
	}
	var missing *reports.MissingError
	if errors.As(err, &missing) {
		return exitNoData
	}
	return exitInternal
}

// allocFailedRE matches DuckDB's buffer manager refusing memory past its
// limit ("failed to allocate data", "could not allocate block", "failed
// to pin block", "failed to reserve memory data" of a size, then the
// memory used of the limit), as a commit's error carries it.
var allocFailedRE = regexp.MustCompile(`(failed to|could not) (allocate|pin|reserve)[a-z ]* of size [0-9.]+ (bytes?|[KMGTP]i?B) \([^()/]+/[^()]+ used\)`)

// outOfMemory says whether err is DuckDB running out of its memory_limit,
// and returns its message without DuckDB's advice, which names SET
// statements a ub workspace does not take (its configuration is locked).
// DuckDB says so as an "Out of Memory Error", or, when a commit is what
// ran out, as a TransactionContext error that names the allocation and
// the memory used of the limit (allocFailedRE).
func outOfMemory(err error) (string, bool) {
	msg := err.Error()
	if !strings.Contains(msg, "Out of Memory Error") && !allocFailedRE.MatchString(msg) {
		return "", false
	}
	if i := strings.Index(msg, "\n\nPossible solutions"); i >= 0 {
		msg = msg[:i]
	}
	return msg, true
}

// errModelCalls marks a run that recorded failed model calls; exit 7.
var errModelCalls = errors.New("model calls failed")

// errPrerequisite marks a step that lacks what an earlier step or the user
// must provide (no workspace at --db, an unset API-key variable); exit 6.
var errPrerequisite = errors.New("missing prerequisite")

// prerequisitef is an error wrapping errPrerequisite; its message is the
// formatted text alone.
func prerequisitef(format string, args ...any) error {
	return prerequisiteError{fmt.Errorf(format, args...)}
}

type prerequisiteError struct{ err error }

func (e prerequisiteError) Error() string        { return e.err.Error() }
func (e prerequisiteError) Unwrap() []error      { return []error{e.err, errPrerequisite} }
func (e prerequisiteError) Is(target error) bool { return target == errPrerequisite }

// requireAPIKey refuses to start a model run whose API-key variable is
// named but empty: the run would only record one failure per request (or
// replay a cached one) instead of saying what is missing.
func requireAPIKey(name string) error {
	if name != "" && os.Getenv(name) == "" {
		return prerequisitef("environment variable %s (the API key) is empty or unset: set it, or name another with --api-key-env", name)
	}
	return nil
}

// usageErrorsEverywhere makes every misuse of cmds and their subcommands a
// usage error (exit 2, one line on stderr): a bad flag, and an unknown
// subcommand of a command that has subcommands and no action of its own.
// urfave/cli otherwise prints the help to stdout and exits 1 or 3.
func usageErrorsEverywhere(cmds []*cli.Command, parent string) {
	for _, cmd := range cmds {
		name := strings.TrimSpace(parent + " " + cmd.Name)
		flags := cmd.Flags
		cmd.OnUsageError = func(_ *cli.Context, err error, _ bool) error {
			return usagef("%s: %v", name, suggestFlag(err, flags))
		}
		if len(cmd.Subcommands) == 0 && cmd.ArgsUsage == "" && cmd.Action != nil {
			// A command that names no arguments takes none: an extra word
			// is a mistake to report, not to ignore.
			action := cmd.Action
			cmd.Action = func(c *cli.Context) error {
				if err := noArgs(c); err != nil {
					return err
				}
				return action(c)
			}
		}
		if len(cmd.Subcommands) > 0 && cmd.ArgsUsage == "" {
			action := cmd.Action
			cmd.Action = func(c *cli.Context) error {
				if c.Args().Present() {
					return usagef("%s: unknown command %q%s (ub %s --help lists them)", name, c.Args().First(), suggestCommand(c.Command.Subcommands, c.Args().First()), name)
				}
				if action == nil {
					return cli.ShowSubcommandHelp(c)
				}
				return action(c)
			}
		}
		usageErrorsEverywhere(cmd.Subcommands, name)
	}
}

// requireFiles refuses, as a usage error (exit 2), a named input file that
// does not exist ("-", stdin, always exists).
func requireFiles(cmd string, paths ...string) error {
	for _, p := range paths {
		if p == "-" || p == "" {
			continue
		}
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			return usagef("%s: %s: no such file or directory", cmd, p)
		}
	}
	return nil
}

// requireInputFiles is requireFiles for inputs that must be files: it
// also refuses, as usage errors, a directory and a device (a character or
// block device, as /dev/zero, whose reading would never end), after
// following symlinks. A FIFO is read (ub ... <(zcat x.gz)); "-" is stdin.
func requireInputFiles(cmd string, paths ...string) error {
	if err := requireFiles(cmd, paths...); err != nil {
		return err
	}
	for _, p := range paths {
		if p == "-" || p == "" {
			continue
		}
		st, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) { // a dangling symlink
			return usagef("%s: %s: no such file or directory", cmd, p)
		}
		if err != nil {
			continue // the command's own open names what is wrong
		}
		switch {
		case st.IsDir():
			return usagef("%s: %s: a directory, not a file", cmd, p)
		case st.Mode()&fs.ModeDevice != 0:
			return usagef("%s: %s: a device, not a file", cmd, p)
		}
	}
	return nil
}

// rootAction runs for "ub" with no known command: help when nothing was
// named, a usage error otherwise.
func rootAction(c *cli.Context) error {
	if c.Bool("version") {
		fmt.Fprintln(c.App.Writer, versionLine())
		return nil
	}
	if c.Args().Present() {
		return usagef("unknown command %q%s (ub --help lists them)", c.Args().First(), suggestCommand(c.App.Commands, c.Args().First()))
	}
	return cli.ShowAppHelp(c)
}

// badInputf is an error that counts as bad input (exit 3, like
// ingest.ErrBadInput) without appending ingest's "some input could not be
// ingested" to a message about labels, points or batch results.
func badInputf(format string, args ...any) error {
	return badInputError{fmt.Sprintf(format, args...)}
}

type badInputError struct{ msg string }

func (e badInputError) Error() string        { return e.msg }
func (e badInputError) Is(target error) bool { return target == ingest.ErrBadInput }

// errRegression marks a `ub compare --fail-on-regression` whose B is worse
// than A beyond the margin with confidence; exit 8.
var errRegression = errors.New("regression")

type regressionError struct{ msg string }

func (e regressionError) Error() string        { return e.msg }
func (e regressionError) Is(target error) bool { return target == errRegression }
