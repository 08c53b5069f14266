package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/queries"
)

type exportOptions struct {
	table, query, out, format string
	partitionBy               string
}

func newExportCommand(sio *streams) *cli.Command {
	return &cli.Command{
		Name:      "export",
		Usage:     "write a table, view or query to Parquet, JSONL or Arrow IPC",
		ArgsUsage: "[TABLE]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "query", Usage: "export the result of this SQL instead of a table"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "output `FILE` (required)"},
			&cli.StringFlag{Name: "format", Usage: strings.Join(queries.ExportFormats, "|") + " (default: from the file extension)"},
			&cli.StringFlag{Name: "partition-by", Usage: "write Parquet into the new directory --out, one subdirectory per value of `COLUMN` (COLUMN=value/, Hive partitioning: e.g. run_id)"},
		},
		Action: func(c *cli.Context) error {
			a, err := args(c)
			if err != nil {
				return err
			}
			if len(a) > 1 {
				return usagef("export: one TABLE at most")
			}
			table := ""
			if len(a) == 1 {
				table = a[0]
			}
			return runExport(c, sio, exportOptions{table: table, query: c.String("query"),
				out: c.String("out"), format: c.String("format"), partitionBy: c.String("partition-by")})
		},
	}
}

func runExport(c *cli.Context, sio *streams, opts exportOptions) error {
	if (opts.table == "") == (opts.query == "") {
		return usagef("export: name a TABLE or give --query, not both")
	}
	if opts.out == "" {
		return usagef("export: --out FILE is required")
	}
	format := opts.format
	if opts.partitionBy != "" {
		if format == "" {
			format = "parquet"
		}
		if format != "parquet" || opts.out == "-" {
			return usagef("export: --partition-by writes Parquet into a directory: give --out DIR and no other --format")
		}
	}
	if format == "" {
		format = queries.ExportFormatFor(opts.out)
		if format == "" {
			return usagef("export: cannot tell the format from %q; pass --format %s", opts.out, strings.Join(queries.ExportFormats, "|"))
		}
	}
	if !slices.Contains(queries.ExportFormats, format) {
		return usagef("export: --format %q: want %s", format, strings.Join(queries.ExportFormats, ", "))
	}
	ws, err := openWorkspace(c, true)
	if err != nil {
		return err
	}
	defer ws.Close()
	query := opts.query
	if opts.table != "" {
		if query, err = queries.TableQuery(c.Context, ws.Conn(), opts.table); err != nil {
			return usagef("export: %v", err)
		}
	}
	// DuckDB keeps a share of the limit while it writes (sorts and joins
	// past their buffers come on top); the export then locks the
	// configuration, so the share stays until the command ends.
	if _, err := queries.ApplySettings(c.Context, ws.Conn(), queries.MemoryShare(queries.ScanMemoryShare, queries.ImportMemoryFloor)); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	var n int64
	if opts.partitionBy != "" {
		n, err = queries.ExportPartitioned(c.Context, ws.Conn(), query, opts.out, opts.partitionBy)
	} else {
		err = writeOut(opts.out, sio.out, func(path string) (err error) {
			n, err = queries.Export(c.Context, ws.Conn(), query, path, format)
			return err
		})
	}
	if errors.Is(err, queries.ErrPartitionColumn) {
		return usagef("export: --partition-by %v", err)
	}
	if errors.Is(err, queries.ErrRefusedSQL) {
		return usagef("export: %v", err)
	}
	if errors.Is(err, queries.ErrQuery) && opts.table == "" { // the user's --query; a table's is ub's
		return usageError{fmt.Errorf("export: %w", err)}
	}
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	fmt.Fprintf(sio.err, "wrote %d rows to %s (%s)\n", n, opts.out, format)
	return nil
}
