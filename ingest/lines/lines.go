package lines

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// Reader reads lines of any length (no bufio.Scanner token limit): the
// one line reader of every line-oriented parser (Claude Code JSONL and
// export, Codex, SpecStory, aider), of every JSONL file ub reads (labels,
// rubrics, verdicts, the judge's corpus, provider batch files) and of the
// commands that read JSONL.
type Reader struct {
	br   *bufio.Reader
	n    int // 1-based number of the line last returned
	long []byte
	done bool
}

// NewReader reads r through a 64 KiB buffer.
func NewReader(r io.Reader) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 64<<10)}
}

// Line is the 1-based number of the line Next returned last.
func (r *Reader) Line() int { return r.n }

// Next returns the next line without its "\n" (and "\r"), and without a
// byte order mark on the first line; ok is false at the end of the input.
// unterminated reports a last line with no "\n", as left by a writer that
// was cut off. The slice is valid until the next call.
func (r *Reader) Next() (line []byte, unterminated, ok bool, err error) {
	line, _, unterminated, ok, err = r.next(-1)
	return
}

// NextPrefix is Next for a line the caller will not keep: of a line longer
// than the buffer only the first keep bytes are held and cut is true, so a
// file without newlines costs no memory.
func (r *Reader) NextPrefix(keep int) (line []byte, cut, unterminated, ok bool, err error) {
	return r.next(keep)
}

func (r *Reader) next(keep int) (line []byte, cut, unterminated, ok bool, err error) {
	if r.done {
		return nil, false, false, false, nil
	}
	line, err = r.br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		r.long = append(r.long[:0], line...)
		cut = keep >= 0
		for errors.Is(err, bufio.ErrBufferFull) {
			line, err = r.br.ReadSlice('\n')
			if keep < 0 {
				r.long = append(r.long, line...)
			} else if len(r.long) < keep {
				r.long = append(r.long, line[:min(len(line), keep-len(r.long))]...)
			}
		}
		if cut && len(r.long) > keep {
			r.long = r.long[:keep]
		}
		line = r.long
	}
	switch {
	case err == io.EOF:
		r.done = true
		if len(line) == 0 {
			return nil, false, false, false, nil
		}
		unterminated = true
	case err != nil:
		return nil, false, false, false, err
	}
	r.n++
	if r.n == 1 {
		line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf")) // a byte order mark
	}
	line = bytes.TrimSuffix(line, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	return line, cut, unterminated, true, nil
}

// ParseError is bad input at one place: "path:line: reason". Line 0 means the
// whole file.
type ParseError struct {
	Path   string
	Line   int
	Reason string
}

func (e *ParseError) Error() string {
	if e.Line <= 0 {
		return fmt.Sprintf("%s: %s", e.Path, e.Reason)
	}
	return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Reason)
}

// ReadJSONL calls fn with every line of r that is not blank and its 1-based
// number; name is the input's name for errors ("-" for stdin). It stops at
// fn's first error, which it returns as is.
func ReadJSONL(r io.Reader, name string, fn func(line int, raw []byte) error) error {
	lr := NewReader(r)
	for {
		raw, _, ok, err := lr.Next()
		if err != nil {
			return fmt.Errorf("%s:%d: %w", name, lr.Line()+1, err)
		}
		if !ok {
			return nil
		}
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		if err := fn(lr.Line(), raw); err != nil {
			return err
		}
	}
}

// ReadJSONLFile is ReadJSONL over the file at path.
func ReadJSONLFile(path string, fn func(line int, raw []byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return ReadJSONL(f, path, fn)
}
