package appender

import (
	"database/sql/driver"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/duckdb/duckdb-go/v2/mapping"
)

// Appender appends rows to one table through DuckDB's C appender, writing
// each value straight into the memory of a data chunk: a number or a
// timestamp is one store, a string is a copy into memory the appender owns
// and a 16-byte string_t pointing at it. duckdb-go's own appender makes one
// cgo call per string (and DuckDB checks it for UTF-8 there), which was
// about a fifth of the CPU of a JSONL ingest. A full chunk (DuckDB's
// vector size, 2,048 rows) is handed to DuckDB with one call, which copies
// its strings into the appender's buffer; only then is the chunk's memory
// written again.
//
// The values are those duckdb-go's appender takes for the column types of
// ub's tables, converted the same way (a JSON column gets json.Marshal of
// the value; a number is converted to the column's type), except that a
// string that is not UTF-8 is an error naming the column, where DuckDB
// would store NULL in its place. A column of another type (a LIST, a
// DECIMAL, ...) is refused when the appender is made.
type Appender struct {
	table string
	app   mapping.Appender
	chunk mapping.DataChunk
	cols  []appendColumn
	size  int // DuckDB's vector size: rows per chunk
	rows  int // rows in the chunk
	strs  stringArena
	err   error // the first error; the appender appends nothing after it
	done  bool
	jbuf  []byte // a JSON value compacted, until setString copies it
}

// appendColumn is one column of the chunk and where its memory is.
type appendColumn struct {
	name     string
	typ      mapping.Type
	json     bool
	vec      mapping.Vector
	data     unsafe.Pointer
	validity unsafe.Pointer // nil until the chunk holds a NULL in this column
}

// The C connection inside duckdb-go's connection. duckdb-go does not hand it
// out; it is read from the field that holds it, found by name and type, so
// that a duckdb-go whose connection is laid out otherwise fails
// TestAppenderConnField instead of reading the wrong memory.
var connField = func() uintptr {
	f, ok := reflect.TypeFor[duckdb.Conn]().FieldByName("conn")
	if !ok || f.Type != reflect.TypeFor[mapping.Connection]() {
		return ^uintptr(0)
	}
	return f.Offset
}()

var errConnField = errors.New("this duckdb-go's Conn has no field conn of type mapping.Connection (ub is built against one it does not know)")

func rawConn(c *duckdb.Conn) (mapping.Connection, error) {
	if connField == ^uintptr(0) {
		return mapping.Connection{}, errConnField
	}
	return *(*mapping.Connection)(unsafe.Add(unsafe.Pointer(c), connField)), nil
}

// New returns an appender on catalog.schema.table ("" for the
// defaults) of the workspace connection c.
func New(c *duckdb.Conn, catalog, schema, table string) (*Appender, error) {
	conn, err := rawConn(c)
	if err != nil {
		return nil, err
	}
	a := &Appender{table: table, size: int(mapping.VectorSize())}
	if mapping.AppenderCreateExt(conn, catalog, schema, table, &a.app) == mapping.StateError {
		msg := mapping.AppenderError(a.app)
		mapping.AppenderDestroy(&a.app)
		return nil, errors.New(msg)
	}
	n := int(mapping.AppenderColumnCount(a.app))
	types := make([]mapping.LogicalType, n)
	defer func() {
		for i := range types {
			mapping.DestroyLogicalType(&types[i])
		}
	}()
	a.cols = make([]appendColumn, n)
	for i := range n {
		types[i] = mapping.AppenderColumnType(a.app, mapping.IdxT(i))
		c := &a.cols[i]
		c.name = fmt.Sprintf("column %d", i+1)
		c.typ = mapping.GetTypeId(types[i])
		c.json = c.typ == mapping.TypeVarchar && mapping.LogicalTypeGetAlias(types[i]) == "JSON"
		if !appendable(c.typ) {
			mapping.AppenderDestroy(&a.app)
			return nil, fmt.Errorf("%s %s: its type (DuckDB type %d) is not one ub's appender writes", table, c.name, c.typ)
		}
	}
	a.chunk = mapping.CreateDataChunk(types)
	a.bindVectors()
	return a, nil
}

func appendable(t mapping.Type) bool {
	switch t {
	case mapping.TypeBoolean, mapping.TypeTinyInt, mapping.TypeSmallInt, mapping.TypeInteger, mapping.TypeBigInt,
		mapping.TypeUTinyInt, mapping.TypeUSmallInt, mapping.TypeUInteger, mapping.TypeUBigInt,
		mapping.TypeFloat, mapping.TypeDouble, mapping.TypeVarchar, mapping.TypeBlob,
		mapping.TypeTimestamp, mapping.TypeTimestampTZ:
		return true
	}
	return false
}

// bindVectors finds the memory of each column of the (new or reset) chunk.
func (a *Appender) bindVectors() {
	for i := range a.cols {
		c := &a.cols[i]
		c.vec = mapping.DataChunkGetVector(a.chunk, mapping.IdxT(i))
		c.data = mapping.VectorGetData(c.vec)
		c.validity = nil
	}
}

// AppendRow appends one row, a value for each column of the table in order.
func (a *Appender) AppendRow(vals ...driver.Value) error {
	r := a.Row()
	for _, v := range vals {
		r.Value(v)
	}
	return r.End()
}

// Row is a row being appended: its setters fill the columns in
// order, End appends it. The typed setters store their value without
// boxing it in an interface (a string, a time.Time given to AppendRow is
// one allocation each); each falls back to Value when the column is not of
// its type.
type Row struct {
	a   *Appender
	col int
	err error
}

// Row begins a row.
func (a *Appender) Row() Row {
	r := Row{a: a, err: a.err}
	if r.err == nil && a.done {
		r.err = fmt.Errorf("%s: append after the appender was closed", a.table)
	}
	if r.err == nil && a.rows == a.size {
		r.err = a.appendChunk()
	}
	return r
}

// peek returns the column the next setter fills, or nil after an error.
func (r *Row) peek() *appendColumn {
	if r.err != nil {
		return nil
	}
	if r.col == len(r.a.cols) {
		r.err = fmt.Errorf("%s: more values than its %d columns", r.a.table, len(r.a.cols))
		return nil
	}
	return &r.a.cols[r.col]
}

func (r *Row) check(c *appendColumn, err error) {
	if err != nil {
		r.err = fmt.Errorf("%s %s: %w", r.a.table, c.name, err)
	}
}

// Value sets the next column to v (nil is NULL).
func (r *Row) Value(v driver.Value) *Row {
	if c := r.peek(); c != nil {
		r.col++
		r.check(c, r.a.set(c, r.a.rows, v))
	}
	return r
}

// String sets the next column to s.
func (r *Row) String(s string) *Row {
	c := r.peek()
	if c == nil || c.typ != mapping.TypeVarchar || c.json {
		return r.Value(s)
	}
	r.col++
	c.setValid(r.a.rows)
	r.check(c, r.a.setString(c, r.a.rows, s, true))
	return r
}

// StringOrNull sets the next column to s, or NULL when s is "".
func (r *Row) StringOrNull(s string) *Row {
	if s == "" {
		return r.Value(nil)
	}
	return r.String(s)
}

// Float64 sets the next column to v.
func (r *Row) Float64(v float64) *Row {
	return setFixed(r, mapping.TypeDouble, v)
}

// Int32 sets the next column to v.
func (r *Row) Int32(v int32) *Row { return setFixed(r, mapping.TypeInteger, v) }

// Int64 sets the next column to v.
func (r *Row) Int64(v int64) *Row { return setFixed(r, mapping.TypeBigInt, v) }

// JSON sets the next column, a JSON column, to the JSON value b as
// Value(json.RawMessage(b)) would, without boxing it; empty is NULL.
func (r *Row) JSON(b []byte) *Row {
	if len(b) == 0 {
		return r.Value(nil)
	}
	c := r.peek()
	if c == nil || !c.json {
		return r.Value(json.RawMessage(b))
	}
	out, ok := appendCompactJSON(r.a.jbuf[:0], b)
	if !ok {
		return r.Value(json.RawMessage(b)) // json.Marshal's error
	}
	r.a.jbuf = out
	r.col++
	c.setValid(r.a.rows)
	r.check(c, r.a.setString(c, r.a.rows, unsafe.String(unsafe.SliceData(out), len(out)), true))
	return r
}

// Bool sets the next column to v.
func (r *Row) Bool(v bool) *Row { return setFixed(r, mapping.TypeBoolean, v) }

// setFixed stores v in the next column when it is of type typ, the type
// DuckDB stores as a Go T, and falls back to Value otherwise.
func setFixed[T any](r *Row, typ mapping.Type, v T) *Row {
	c := r.peek()
	if c == nil || c.typ != typ {
		return r.Value(v)
	}
	r.col++
	c.setValid(r.a.rows)
	store(c, r.a.rows, v)
	return r
}

// TimeOrNull sets the next column to t, or NULL when t is zero.
func (r *Row) TimeOrNull(t time.Time) *Row {
	c := r.peek()
	if c == nil || t.IsZero() {
		return r.Value(nil)
	}
	if c.typ != mapping.TypeTimestamp && c.typ != mapping.TypeTimestampTZ {
		return r.Value(t)
	}
	r.col++
	c.setValid(r.a.rows)
	r.check(c, setTimestamp(c, r.a.rows, t))
	return r
}

// End appends the row; it returns the first error of its setters, and
// appends nothing then.
func (r *Row) End() error {
	if r.err == nil && r.col != len(r.a.cols) {
		r.err = fmt.Errorf("%s: %d values for %d columns", r.a.table, r.col, len(r.a.cols))
	}
	if r.err != nil {
		// The row is not counted: its values already set are overwritten
		// by the next row or never handed to DuckDB.
		return r.err
	}
	r.a.rows++
	return nil
}

func (c *appendColumn) setValid(row int) {
	if c.validity != nil {
		w := (*uint64)(unsafe.Add(c.validity, row/64*8))
		*w |= 1 << (row % 64)
	}
}

func setTimestamp(c *appendColumn, row int, t time.Time) error {
	if y := t.Year(); y < -290307 || y > 294246 {
		return fmt.Errorf("timestamp year %d is outside [-290307, 294246]", y)
	}
	store(c, row, t.UnixMicro())
	return nil
}

func (a *Appender) set(c *appendColumn, row int, v driver.Value) error {
	if v == nil {
		if c.validity == nil {
			mapping.VectorEnsureValidityWritable(c.vec)
			c.validity = mapping.VectorGetValidity(c.vec)
		}
		w := (*uint64)(unsafe.Add(c.validity, row/64*8))
		*w &^= 1 << (row % 64)
		return nil
	}
	c.setValid(row)
	switch c.typ {
	case mapping.TypeVarchar:
		if c.json {
			if raw, ok := v.(json.RawMessage); ok {
				// What json.Marshal writes of it, without its scanner.
				if b, ok := appendCompactJSON(a.jbuf[:0], raw); ok {
					a.jbuf = b
					return a.setString(c, row, unsafe.String(unsafe.SliceData(b), len(b)), true)
				}
			}
			b, err := json.Marshal(v)
			if err != nil {
				return err
			}
			return a.setString(c, row, unsafe.String(unsafe.SliceData(b), len(b)), true)
		}
		switch s := v.(type) {
		case string:
			return a.setString(c, row, s, true)
		case []byte:
			return a.setString(c, row, unsafe.String(unsafe.SliceData(s), len(s)), true)
		}
	case mapping.TypeBlob:
		switch s := v.(type) {
		case string:
			return a.setString(c, row, s, false)
		case []byte:
			return a.setString(c, row, unsafe.String(unsafe.SliceData(s), len(s)), false)
		}
	case mapping.TypeBoolean:
		if b, ok := v.(bool); ok {
			store(c, row, b)
			return nil
		}
	case mapping.TypeTimestamp, mapping.TypeTimestampTZ:
		if t, ok := v.(time.Time); ok {
			return setTimestamp(c, row, t)
		}
	case mapping.TypeTinyInt:
		return setNumber[int8](c, row, v)
	case mapping.TypeSmallInt:
		return setNumber[int16](c, row, v)
	case mapping.TypeInteger:
		return setNumber[int32](c, row, v)
	case mapping.TypeBigInt:
		return setNumber[int64](c, row, v)
	case mapping.TypeUTinyInt:
		return setNumber[uint8](c, row, v)
	case mapping.TypeUSmallInt:
		return setNumber[uint16](c, row, v)
	case mapping.TypeUInteger:
		return setNumber[uint32](c, row, v)
	case mapping.TypeUBigInt:
		return setNumber[uint64](c, row, v)
	case mapping.TypeFloat:
		return setNumber[float32](c, row, v)
	case mapping.TypeDouble:
		return setNumber[float64](c, row, v)
	}
	return fmt.Errorf("cannot store a Go %T in a column of DuckDB type %d", v, c.typ)
}

func store[T any](c *appendColumn, row int, v T) {
	*(*T)(unsafe.Add(c.data, uintptr(row)*unsafe.Sizeof(v))) = v
}

type number interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~float32 | ~float64
}

// setNumber stores a Go number converted to the column's type T, as
// duckdb-go's appender does (a Go conversion: no range check).
func setNumber[T number](c *appendColumn, row int, v driver.Value) error {
	var x T
	switch n := v.(type) {
	case int:
		x = T(n)
	case int8:
		x = T(n)
	case int16:
		x = T(n)
	case int32:
		x = T(n)
	case int64:
		x = T(n)
	case uint:
		x = T(n)
	case uint8:
		x = T(n)
	case uint16:
		x = T(n)
	case uint32:
		x = T(n)
	case uint64:
		x = T(n)
	case float32:
		x = T(n)
	case float64:
		x = T(n)
	default:
		return fmt.Errorf("cannot store a Go %T in a numeric column", v)
	}
	store(c, row, x)
	return nil
}

// setString writes DuckDB's string_t for s: its length, then either the
// string itself (up to 12 bytes, zero-padded) or its first four bytes and a
// pointer to a copy of it in the arena.
func (a *Appender) setString(c *appendColumn, row int, s string, text bool) error {
	if len(s) > math.MaxUint32 {
		return fmt.Errorf("a string of %d bytes is longer than DuckDB holds", len(s))
	}
	if text && !validUTF8(s) {
		return errors.New("not valid UTF-8")
	}
	slot := (*[16]byte)(unsafe.Add(c.data, uintptr(row)*16))
	*(*uint32)(unsafe.Pointer(&slot[0])) = uint32(len(s))
	if len(s) <= 12 {
		n := copy(slot[4:], s)
		clear(slot[4+n:])
		return nil
	}
	copy(slot[4:8], s)
	*(*uintptr)(unsafe.Pointer(&slot[8])) = a.strs.put(s)
	return nil
}

// validUTF8 is utf8.ValidString, with the ASCII start of s checked 32
// bytes at a time (four times as far per step as the standard library's
// check): a text column's strings were nearly always validated before, by
// the parser that read them, and are mostly ASCII.
func validUTF8(s string) bool {
	b := unsafe.Slice(unsafe.StringData(s), len(s))
	i := 0
	for ; i+32 <= len(b); i += 32 {
		w := binary.LittleEndian.Uint64(b[i:]) | binary.LittleEndian.Uint64(b[i+8:]) |
			binary.LittleEndian.Uint64(b[i+16:]) | binary.LittleEndian.Uint64(b[i+24:])
		if w&0x8080808080808080 != 0 {
			break
		}
	}
	return utf8.ValidString(s[i:])
}

// appendChunk hands the chunk's rows to DuckDB and empties it.
func (a *Appender) appendChunk() error {
	if a.rows == 0 {
		return nil
	}
	mapping.DataChunkSetSize(a.chunk, mapping.IdxT(a.rows))
	state := mapping.AppendDataChunk(a.app, a.chunk)
	runtime.KeepAlive(&a.strs)
	a.strs.reset()
	mapping.DataChunkReset(a.chunk)
	a.bindVectors()
	a.rows = 0
	if state == mapping.StateError {
		return a.fail(mapping.AppenderError(a.app))
	}
	return nil
}

func (a *Appender) fail(msg string) error {
	if a.err == nil {
		a.err = fmt.Errorf("%s: %s", a.table, msg)
	}
	return a.err
}

// Flush hands the rows appended so far to the table (they are then visible
// to the transaction's queries).
func (a *Appender) Flush() error {
	if a.err != nil {
		return a.err
	}
	if err := a.appendChunk(); err != nil {
		return err
	}
	if mapping.AppenderFlush(a.app) == mapping.StateError {
		return a.fail(mapping.AppenderError(a.app))
	}
	return nil
}

// Close flushes the rows appended so far and frees the appender; after an
// error nothing more reaches the table. It returns the first error.
func (a *Appender) Close() error {
	if a.done {
		return a.err
	}
	a.done = true
	if a.err == nil {
		if err := a.appendChunk(); err == nil && mapping.AppenderClose(a.app) == mapping.StateError {
			a.fail(mapping.AppenderError(a.app))
		}
	}
	if a.err != nil {
		// Destroying an appender flushes what it holds: after an error,
		// the rows appended before it are dropped instead.
		mapping.AppenderClear(a.app)
	}
	mapping.DestroyDataChunk(&a.chunk)
	mapping.AppenderDestroy(&a.app)
	a.strs.free()
	return a.err
}

// stringArena holds the bytes of the strings of one chunk that are too
// long to be inlined in their string_t, in blocks of Go memory pinned
// while DuckDB may read them (runtime.Pinner: a pinned object may be
// pointed at from C memory).
type stringArena struct {
	pin    runtime.Pinner
	blocks [][]byte // blocks[:used] hold this chunk's strings
	used   int
	off    int // bytes used of blocks[used-1]
}

// ArenaBlock is the size in bytes of a block of the arena; a longer
// string gets a block of its own.
const ArenaBlock = 1 << 20

// put copies s into the arena and returns the address of the copy.
func (s *stringArena) put(str string) uintptr {
	if s.used == 0 || len(str) > len(s.blocks[s.used-1])-s.off {
		s.next(len(str))
	}
	b := s.blocks[s.used-1]
	p := &b[s.off]
	copy(b[s.off:], str)
	s.off += len(str)
	return uintptr(unsafe.Pointer(p))
}

// next makes a block of at least n bytes current: the next kept block if
// it is large enough, else a new one (kept for later chunks when it has
// the standard size).
func (s *stringArena) next(n int) {
	if s.used < len(s.blocks) && len(s.blocks[s.used]) >= n {
		s.pin.Pin(&s.blocks[s.used][0])
	} else {
		b := make([]byte, max(n, ArenaBlock))
		s.pin.Pin(&b[0])
		if s.used < len(s.blocks) {
			s.blocks = append(s.blocks, nil)
			copy(s.blocks[s.used+1:], s.blocks[s.used:])
		} else {
			s.blocks = append(s.blocks, nil)
		}
		s.blocks[s.used] = b
	}
	s.used++
	s.off = 0
}

// reset unpins the blocks once DuckDB has copied the chunk's strings, and
// keeps the standard-size ones for the next chunk.
func (s *stringArena) reset() {
	s.pin.Unpin()
	kept := s.blocks[:0]
	for _, b := range s.blocks {
		if len(b) == ArenaBlock {
			kept = append(kept, b)
		}
	}
	clear(s.blocks[len(kept):])
	s.blocks, s.used, s.off = kept, 0, 0
}

func (s *stringArena) free() {
	s.pin.Unpin()
	s.blocks, s.used, s.off = nil, 0, 0
}
