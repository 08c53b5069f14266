package queries

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sync"
)

// tape is a temporary file of records written once and read back in order
// as often as needed, possibly concurrently (each reader reads through its
// own section of the file). The file is unlinked as soon as it is made, so
// nothing is left behind, whatever happens. The names the records share
// are kept once, in memory, and written as their index.
type tape struct {
	f    *os.File
	size int64
	n    int
	w    *bufio.Writer
	buf  []byte

	names   []string
	nameIdx map[string]uint64

	mu  sync.Mutex
	err error
}

func newTape(what string) (*tape, error) {
	f, err := os.CreateTemp("", "ub-report-*.tape")
	if err != nil {
		return nil, fmt.Errorf("%s: a temporary file: %w", what, err)
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: a temporary file: %w", what, err)
	}
	return &tape{f: f, w: bufio.NewWriterSize(f, 1<<16), nameIdx: map[string]uint64{}}, nil
}

// name appends the index of the shared name s.
func (t *tape) name(s string) {
	i, ok := t.nameIdx[s]
	if !ok {
		i = uint64(len(t.names))
		t.nameIdx[s] = i
		t.names = append(t.names, s)
	}
	t.buf = binary.AppendUvarint(t.buf, i)
}

func (t *tape) str(s string) {
	t.buf = binary.AppendUvarint(t.buf, uint64(len(s)))
	t.buf = append(t.buf, s...)
}

func (t *tape) int(x int64) { t.buf = binary.AppendVarint(t.buf, x) }

func (t *tape) float(x float64) {
	t.buf = binary.LittleEndian.AppendUint64(t.buf, math.Float64bits(x))
}

func (t *tape) bool(b bool) {
	if b {
		t.buf = append(t.buf, 1)
	} else {
		t.buf = append(t.buf, 0)
	}
}

// end writes the record appended since the last end.
func (t *tape) end() error {
	t.n++
	_, err := t.w.Write(t.buf)
	t.buf = t.buf[:0]
	return err
}

// done flushes what was written; the tape is then read only.
func (t *tape) done() error {
	err := t.w.Flush()
	if err == nil {
		t.size, err = t.f.Seek(0, io.SeekCurrent)
	}
	t.w = nil
	return err
}

func (t *tape) close() error { return t.f.Close() }

// fail keeps the first failure to read the tape back.
func (t *tape) fail(what string, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err == nil {
		t.err = fmt.Errorf("%s: reading back the temporary file: %w", what, err)
	}
}

func (t *tape) failure() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

// tapeReader reads a tape's records; its first error sticks, and every
// read after it gives zero values.
type tapeReader struct {
	t   *tape
	r   *bufio.Reader
	err error
}

func (t *tape) reader() *tapeReader {
	return &tapeReader{t: t, r: bufio.NewReaderSize(io.NewSectionReader(t.f, 0, t.size), 1<<16)}
}

func (r *tapeReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	x, err := binary.ReadUvarint(r.r)
	r.err = err
	return x
}

func (r *tapeReader) name() string {
	i := r.uvarint()
	if r.err != nil {
		return ""
	}
	if i >= uint64(len(r.t.names)) {
		r.err = errors.New("a name out of range")
		return ""
	}
	return r.t.names[i]
}

func (r *tapeReader) str() string {
	n := r.uvarint()
	if r.err != nil {
		return ""
	}
	b := make([]byte, n)
	_, r.err = io.ReadFull(r.r, b)
	return string(b)
}

func (r *tapeReader) int() int64 {
	if r.err != nil {
		return 0
	}
	x, err := binary.ReadVarint(r.r)
	r.err = err
	return x
}

func (r *tapeReader) float() float64 {
	var b [8]byte
	if r.err == nil {
		_, r.err = io.ReadFull(r.r, b[:])
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(b[:]))
}

func (r *tapeReader) bool() bool {
	if r.err != nil {
		return false
	}
	c, err := r.r.ReadByte()
	r.err = err
	return c == 1
}
