package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/reports"
)

type sqlOptions struct {
	query  string
	write  bool
	format string
}

func newSQLCommand(sio *streams) *cli.Command {
	return &cli.Command{
		Name:      "sql",
		Usage:     "run ad-hoc SQL over the workspace (read-only unless --write)",
		ArgsUsage: "QUERY | -",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "write", Usage: "open the workspace read-write"},
			&cli.StringFlag{Name: "format", Value: "table", Usage: strings.Join(reports.TableFormats, "|")},
		},
		Action: func(c *cli.Context) error {
			if _, err := args(c); err != nil {
				return err
			}
			if c.NArg() != 1 {
				return usagef("sql: give one QUERY, or - to read it from stdin")
			}
			return runSQL(c, sio, sqlOptions{query: c.Args().First(), write: c.Bool("write"), format: c.String("format")})
		},
	}
}

// maxStdinQuery is the longest query ub sql - reads from stdin: a bound,
// so that /dev/zero or a wrong file piped in is refused, not read for ever.
const maxStdinQuery = 64 << 20

func runSQL(c *cli.Context, sio *streams, opts sqlOptions) error {
	query := opts.query
	if query == "-" {
		b, err := io.ReadAll(io.LimitReader(sio.in, maxStdinQuery+1))
		if err != nil {
			return fmt.Errorf("sql: read stdin: %w", err)
		}
		if len(b) > maxStdinQuery {
			return usagef("sql: the query on stdin is longer than %d MiB", maxStdinQuery>>20)
		}
		query = string(b)
	}
	if strings.TrimSpace(query) == "" {
		return usagef("sql: empty query")
	}
	// The rows reach the terminal or file in 64 KiB writes, not one write
	// a row; what was written is flushed whatever the outcome.
	out := bufio.NewWriterSize(sio.out, 64<<10)
	defer out.Flush()
	tw, err := reports.NewTableWriter(out, opts.format)
	if err != nil {
		return usageError{err}
	}
	ws, err := openWorkspace(c, !opts.write)
	if err != nil {
		return err
	}
	defer ws.Close()
	started := false
	err = ws.Adhoc(c.Context, query, func(cols []queries.Column, row []any) error {
		if !started {
			names := make([]string, len(cols))
			for i, col := range cols {
				names[i] = col.Name
			}
			if err := tw.Header(names); err != nil {
				return err
			}
			started = true
		}
		if row == nil {
			return nil
		}
		return tw.Row(row)
	})
	if err != nil {
		if errors.Is(err, queries.ErrRefusedSQL) {
			return usagef("sql: %v", err)
		}
		if !opts.write && strings.Contains(err.Error(), "read-only") {
			return usageError{fmt.Errorf("sql: %w (add --write to change the workspace)", err)}
		}
		if errors.Is(err, queries.ErrQuery) {
			return usageError{fmt.Errorf("sql: %w", err)}
		}
		return fmt.Errorf("sql: %w", err)
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return out.Flush()
}
