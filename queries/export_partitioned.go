package queries

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"strings"
)

// columnRE is a plain column name: what ExportPartitioned partitions by.
var columnRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// ErrPartitionColumn marks a partition column that is not a plain column
// name or not a column of the query's result: the caller's mistake.
var ErrPartitionColumn = errors.New("bad partition column")

// partitionColumnError is an ErrPartitionColumn with its own message.
type partitionColumnError string

func (e partitionColumnError) Error() string        { return string(e) }
func (e partitionColumnError) Is(target error) bool { return target == ErrPartitionColumn }

// checkPartitionColumn says whether column is a column of query's result,
// naming the columns it has when it is not. DuckDB would say so too, in a
// binder error that speaks of its own COPY statement.
func checkPartitionColumn(ctx context.Context, db Querier, query, column string) error {
	rows, err := db.QueryContext(ctx, fmt.Sprintf("SELECT * FROM (%s) LIMIT 0", query))
	if err := refusedByDuckDB(err); errors.Is(err, ErrRefusedSQL) {
		return err
	}
	if err != nil {
		if msg, _, ok := strings.Cut(err.Error(), "\n\nLINE "); ok {
			return errors.New(msg)
		}
		return err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	for _, c := range cols {
		if strings.EqualFold(c, column) {
			return nil
		}
	}
	return partitionColumnError(fmt.Sprintf("%q is not a column of the query (its columns: %s)", column, strings.Join(cols, ", ")))
}

// ExportPartitioned writes the result of query as Parquet into a new
// directory dir, one subdirectory per value of column (Hive partitioning:
// dir/column=value/*.parquet), which Spark, Trino and DuckDB read as one
// table and prune by that column. It writes into a temporary directory
// beside dir and renames it into place, so a failed export leaves nothing;
// an existing dir is refused. It returns the number of rows written.
func ExportPartitioned(ctx context.Context, db Querier, query, dir, column string) (_ int64, err error) {
	defer func() { err = userQueryError(err) }()
	if !columnRE.MatchString(column) {
		return 0, partitionColumnError(fmt.Sprintf("%q is not a column name", column))
	}
	if _, err := os.Stat(dir); err == nil {
		return 0, fmt.Errorf("%s exists: a partitioned export writes a new directory", dir)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return 0, err
	}
	if err := CheckUserSQL(query); err != nil {
		return 0, err
	}
	if err := lockConfiguration(ctx, db); err != nil {
		return 0, err
	}
	if err := checkPartitionColumn(ctx, db, query, column); err != nil {
		return 0, err
	}
	t, err := newExportTemp(dir, true)
	if err != nil {
		return 0, err
	}
	defer t.done()
	tmp := t.path
	var n int64
	err = db.QueryRowContext(ctx, fmt.Sprintf("SELECT count(*) FROM (%s)", query)).Scan(&n)
	if err == nil {
		lit := "'" + strings.ReplaceAll(tmp, "'", "''") + "'"
		_, err = db.ExecContext(ctx, fmt.Sprintf(`COPY (%s) TO %s (FORMAT PARQUET, PARTITION_BY ("%s"), OVERWRITE_OR_IGNORE)`, query, lit, column))
	}
	if err := refusedByDuckDB(err); errors.Is(err, ErrRefusedSQL) {
		return 0, err
	}
	if err != nil {
		if msg, _, ok := strings.Cut(err.Error(), "\n\nLINE "); ok {
			return 0, errors.New(msg)
		}
		return 0, err
	}
	return n, os.Rename(tmp, dir)
}
