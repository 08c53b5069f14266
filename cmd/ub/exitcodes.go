package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/ingest"
)

// More exit codes, documented in the README with those of app.go.
const (
	exitModel      = 7   // model calls failed (each recorded with its error)
	exitRegression = 8   // ub compare --fail-on-regression: B is worse than A beyond the margin with confidence
	exitInterrupt  = 130 // interrupted (SIGINT), as a shell reports 128+2
)

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
