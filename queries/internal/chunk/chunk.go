package chunk

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"time"
	"unsafe"

	"github.com/duckdb/duckdb-go/v2/mapping"
)

// Types are the column types Read converts, with the
// driver's name of each (Column.Type).
var Types = map[mapping.Type]string{
	mapping.TypeBoolean:     "BOOLEAN",
	mapping.TypeTinyInt:     "TINYINT",
	mapping.TypeSmallInt:    "SMALLINT",
	mapping.TypeInteger:     "INTEGER",
	mapping.TypeBigInt:      "BIGINT",
	mapping.TypeUTinyInt:    "UTINYINT",
	mapping.TypeUSmallInt:   "USMALLINT",
	mapping.TypeUInteger:    "UINTEGER",
	mapping.TypeUBigInt:     "UBIGINT",
	mapping.TypeFloat:       "FLOAT",
	mapping.TypeDouble:      "DOUBLE",
	mapping.TypeVarchar:     "VARCHAR",
	mapping.TypeBlob:        "BLOB",
	mapping.TypeDate:        "DATE",
	mapping.TypeTimestamp:   "TIMESTAMP",
	mapping.TypeTimestampTZ: "TIMESTAMPTZ",
	mapping.TypeTimestampS:  "TIMESTAMP_S",
	mapping.TypeTimestampMS: "TIMESTAMP_MS",
	mapping.TypeTimestampNS: "TIMESTAMP_NS",
	mapping.TypeHugeInt:     "HUGEINT",
}

// JSON stands for a VARCHAR of alias JSON (no DuckDB type has its
// number): the driver gives its value decoded (encoding/json into any).
const JSON = mapping.Type(1 << 20)

// Read sets vals to each row of chunk in turn, as the driver scans
// them (rows.Next, then database/sql into *any), and calls row.
func Read(chunk mapping.DataChunk, kinds []mapping.Type, vals []any, row func() error) error {
	n := int(mapping.DataChunkGetSize(chunk))
	data := make([]unsafe.Pointer, len(kinds))
	mask := make([]unsafe.Pointer, len(kinds))
	for c := range kinds {
		vec := mapping.DataChunkGetVector(chunk, mapping.IdxT(c))
		data[c] = mapping.VectorGetData(vec)
		mask[c] = mapping.VectorGetValidity(vec)
	}
	for r := range n {
		for c, t := range kinds {
			if isNull(mask[c], r) {
				vals[c] = nil
				continue
			}
			if t == JSON {
				var v any
				if err := json.Unmarshal([]byte(stringAt(data[c], r)), &v); err != nil {
					return fmt.Errorf("column %d: %w", c+1, err)
				}
				vals[c] = v
				continue
			}
			vals[c] = value(t, data[c], r)
		}
		if err := row(); err != nil {
			return err
		}
	}
	return nil
}

// isNull reads DuckDB's validity mask: one bit a row, 0 for NULL; no mask
// is no NULL.
func isNull(mask unsafe.Pointer, r int) bool {
	if mask == nil {
		return false
	}
	entry := *(*uint64)(unsafe.Add(mask, (r/64)*8))
	return entry&(1<<(r%64)) == 0
}

func at[T any](data unsafe.Pointer, r int) T {
	var zero T
	return *(*T)(unsafe.Add(data, uintptr(r)*unsafe.Sizeof(zero)))
}

// value is the Go value of row r of a flat vector of type t: the driver's
// (duckdb-go's vector getters) for each type of Types.
func value(t mapping.Type, data unsafe.Pointer, r int) any {
	switch t {
	case mapping.TypeBoolean:
		return at[bool](data, r)
	case mapping.TypeTinyInt:
		return at[int8](data, r)
	case mapping.TypeSmallInt:
		return at[int16](data, r)
	case mapping.TypeInteger:
		return at[int32](data, r)
	case mapping.TypeBigInt:
		return at[int64](data, r)
	case mapping.TypeUTinyInt:
		return at[uint8](data, r)
	case mapping.TypeUSmallInt:
		return at[uint16](data, r)
	case mapping.TypeUInteger:
		return at[uint32](data, r)
	case mapping.TypeUBigInt:
		return at[uint64](data, r)
	case mapping.TypeFloat:
		return at[float32](data, r)
	case mapping.TypeDouble:
		return at[float64](data, r)
	case mapping.TypeVarchar:
		return strings.Clone(stringAt(data, r))
	case mapping.TypeBlob:
		return []byte(stringAt(data, r))
	case mapping.TypeDate:
		d := mapping.FromDate(at[mapping.Date](data, r))
		y, m, day := mapping.DateStructMembers(&d)
		return time.Date(int(y), time.Month(m), int(day), 0, 0, 0, 0, time.UTC)
	case mapping.TypeTimestamp, mapping.TypeTimestampTZ:
		return time.UnixMicro(at[int64](data, r)).UTC()
	case mapping.TypeTimestampS:
		return time.Unix(at[int64](data, r), 0).UTC()
	case mapping.TypeTimestampMS:
		return time.UnixMilli(at[int64](data, r)).UTC()
	case mapping.TypeTimestampNS:
		return time.Unix(0, at[int64](data, r)).UTC()
	case mapping.TypeHugeInt:
		h := at[struct {
			lower uint64
			upper int64
		}](data, r)
		i := big.NewInt(h.upper)
		i.Lsh(i, 64)
		return i.Add(i, new(big.Int).SetUint64(h.lower))
	}
	panic(fmt.Sprintf("chunk: no streamed value of DuckDB type %d", t))
}

// stringAt is row r of a vector of duckdb_string_t (16 bytes: a uint32
// length, then up to 12 bytes inline, or past 12 a pointer at offset 8),
// borrowed from DuckDB's memory.
func stringAt(data unsafe.Pointer, r int) string {
	p := unsafe.Add(data, uintptr(r)*16)
	n := *(*uint32)(p)
	if n <= 12 {
		return unsafe.String((*byte)(unsafe.Add(p, 4)), int(n))
	}
	return unsafe.String(*(**byte)(unsafe.Add(p, 8)), int(n))
}
