package queries

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// ExportFormats are the formats Export writes.
var ExportFormats = []string{"parquet", "jsonl", "arrow"}

// ExportFormatFor picks the format from a file name's extension: .parquet,
// .jsonl/.ndjson/.json, .arrow/.ipc/.feather. "" when none matches.
func ExportFormatFor(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".parquet":
		return "parquet"
	case ".jsonl", ".ndjson", ".json":
		return "jsonl"
	case ".arrow", ".ipc", ".feather":
		return "arrow"
	}
	return ""
}

// TableQuery returns a query selecting a whole relation, checking that the
// relation exists (so a name can never smuggle SQL in).
func TableQuery(ctx context.Context, db Querier, name string) (string, error) {
	rels, err := Relations(ctx, db)
	if err != nil {
		return "", err
	}
	if !slices.Contains(rels, name) {
		return "", fmt.Errorf("no table or view %q (have: %s)", name, strings.Join(rels, ", "))
	}
	return `SELECT * FROM "` + name + `"`, nil
}

// Export writes the result of query to path as parquet, jsonl or arrow (an
// Arrow IPC file). It writes to a temporary file beside path and renames it
// into place, so a failed export never leaves a half-written file, and one
// killed leaves its temporary for the next export there to remove
// (exportTemp). It returns the number of rows written.
//
// The query may be a user's: CheckUserSQL refuses it first, and the
// configuration of db is locked for good before it runs.
func Export(ctx context.Context, db Querier, query, path, format string) (_ int64, err error) {
	defer func() { err = userQueryError(err) }()
	if err := CheckUserSQL(query); err != nil {
		return 0, err
	}
	if err := lockConfiguration(ctx, db); err != nil {
		return 0, err
	}
	tmp, err := newExportTemp(path, false)
	if err != nil {
		return 0, err
	}
	defer tmp.done()
	tmpName := tmp.path
	var n int64
	switch format {
	case "parquet", "jsonl":
		f := map[string]string{"parquet": "PARQUET", "jsonl": "JSON"}[format]
		lit := "'" + strings.ReplaceAll(tmpName, "'", "''") + "'"
		// COPY answers with the number of rows it wrote: the query runs
		// once, streamed into the file. Into that file itself: by default
		// DuckDB writes an existing target's rows to "tmp_" and its name
		// beside it and renames at the end, a file a kill -9 would leave
		// behind with the rows written so far, which no lock covers.
		err = db.QueryRowContext(ctx, fmt.Sprintf("COPY (%s) TO %s (FORMAT %s, USE_TMP_FILE false)", query, lit, f)).Scan(&n)
	case "arrow":
		n, err = exportArrow(ctx, db, query, tmpName)
	default:
		return 0, fmt.Errorf("unknown export format %q (want %s)", format, strings.Join(ExportFormats, ", "))
	}
	if err := refusedByDuckDB(err); errors.Is(err, ErrRefusedSQL) {
		return 0, err
	}
	if err != nil {
		// DuckDB quotes the statement that failed, which is the user's
		// query wrapped in ub's own SQL: keep its message only.
		if msg, _, ok := strings.Cut(err.Error(), "\n\nLINE "); ok {
			return 0, errors.New(msg)
		}
		return 0, err
	}
	return n, os.Rename(tmpName, path)
}

// arrowType maps a DuckDB type name to the Arrow type the IPC export uses;
// anything without a direct match is written as text (JSON for composites).
func arrowType(duck string) arrow.DataType {
	switch {
	case duck == "BOOLEAN":
		return arrow.FixedWidthTypes.Boolean
	case slices.Contains([]string{"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT", "USMALLINT", "UINTEGER"}, duck):
		return arrow.PrimitiveTypes.Int64
	case duck == "FLOAT" || duck == "DOUBLE" || strings.HasPrefix(duck, "DECIMAL"):
		return arrow.PrimitiveTypes.Float64
	case strings.HasPrefix(duck, "TIMESTAMP"):
		return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	}
	return arrow.BinaryTypes.String
}

func exportArrow(ctx context.Context, db Querier, query, path string) (int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var (
		w       *ipc.FileWriter
		b       *array.RecordBuilder
		n, rows int64
	)
	const batch = 65536
	mem := memory.NewGoAllocator()
	flush := func() error {
		rec := b.NewRecord()
		defer rec.Release()
		return w.Write(rec)
	}
	err = Adhoc(ctx, db, query, func(cols []Column, row []any) error {
		if w == nil {
			fields := make([]arrow.Field, len(cols))
			for i, c := range cols {
				fields[i] = arrow.Field{Name: c.Name, Type: arrowType(c.Type), Nullable: true}
			}
			schema := arrow.NewSchema(fields, nil)
			var err error
			if w, err = ipc.NewFileWriter(f, ipc.WithSchema(schema), ipc.WithAllocator(mem)); err != nil {
				return err
			}
			b = array.NewRecordBuilder(mem, schema)
		}
		if row == nil {
			return nil
		}
		for i, v := range row {
			if err := appendArrow(b.Field(i), v); err != nil {
				return fmt.Errorf("row %d column %s: %w", n+1, cols[i].Name, err)
			}
		}
		n++
		rows++
		if rows == batch {
			rows = 0
			return flush()
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	if rows > 0 {
		if err := flush(); err != nil {
			return 0, err
		}
	}
	b.Release()
	if err := w.Close(); err != nil {
		return 0, err
	}
	return n, f.Close()
}

func appendArrow(fb array.Builder, v any) error {
	if v == nil {
		fb.AppendNull()
		return nil
	}
	switch b := fb.(type) {
	case *array.BooleanBuilder:
		b.Append(v.(bool))
	case *array.Int64Builder:
		switch x := v.(type) {
		case int8:
			b.Append(int64(x))
		case int16:
			b.Append(int64(x))
		case int32:
			b.Append(int64(x))
		case int64:
			b.Append(x)
		case uint8:
			b.Append(int64(x))
		case uint16:
			b.Append(int64(x))
		case uint32:
			b.Append(int64(x))
		default:
			return fmt.Errorf("unexpected %T for an integer column", v)
		}
	case *array.Float64Builder:
		switch x := v.(type) {
		case float32:
			b.Append(float64(x))
		case float64:
			b.Append(x)
		case interface{ Float64() float64 }: // duckdb.Decimal
			b.Append(x.Float64())
		default:
			return fmt.Errorf("unexpected %T for a float column", v)
		}
	case *array.TimestampBuilder:
		t, ok := v.(time.Time)
		if !ok {
			return fmt.Errorf("unexpected %T for a timestamp column", v)
		}
		b.Append(arrow.Timestamp(t.UnixMicro()))
	case *array.StringBuilder:
		switch x := v.(type) {
		case string:
			b.Append(x)
		case []byte:
			b.Append(string(x))
		case fmt.Stringer:
			b.Append(x.String())
		default:
			j, err := json.Marshal(x)
			if err != nil {
				return err
			}
			b.Append(string(j))
		}
	}
	return nil
}
