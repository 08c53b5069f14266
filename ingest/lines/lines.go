package lines

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"unicode/utf8"
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

// ErrBadInput is wrapped by every error that reports input refused for what
// it holds (exit code 3 in ub), as opposed to an internal error.
var ErrBadInput = errors.New("some input could not be ingested")

// ParseError is bad input at one place: "path:line: reason". Line 0 means the
// whole file.
type ParseError struct {
	Path   string
	Line   int
	Reason string
	// Warning marks what was not refused: the final line of a file still
	// being written, read again once it is whole. It is reported, not
	// counted as bad input.
	Warning bool
}

func (e *ParseError) Error() string {
	if e.Line <= 0 {
		return fmt.Sprintf("%s: %s", e.Path, e.Reason)
	}
	return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Reason)
}

// MaxJSONLLineBytes is the longest line ReadJSONL reads (a variable so
// that tests can lower it).
var MaxJSONLLineBytes = 64 << 20

// BadLineError is a line ReadJSONL refuses before fn sees it: longer than
// MaxJSONLLineBytes, or not valid UTF-8. It is a *ParseError naming the
// line and wraps ErrBadInput (exit 3).
type BadLineError struct{ ParseError }

func (e *BadLineError) Error() string   { return e.ParseError.Error() }
func (e *BadLineError) Unwrap() []error { return []error{&e.ParseError, ErrBadInput} }

// EachLine calls fn with every line of r that is not blank and its 1-based
// number, reading at most limit bytes of a line. A line longer than limit,
// or one that is not valid UTF-8, goes to bad instead, with its number and
// the reason in words ("line longer than the limit of 64 MiB", "not valid
// UTF-8 (byte 7)"); reading goes on unless bad returns an error. It stops at
// the first error of fn or bad, returned as is; a read error is prefixed
// with name:line.
func EachLine(r io.Reader, name string, limit int, fn func(line int, raw []byte) error, bad func(line int, reason string) error) error {
	lr := NewReader(r)
	for {
		raw, _, _, ok, err := lr.NextPrefix(limit + 1)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", name, lr.Line()+1, err)
		}
		if !ok {
			return nil
		}
		n := lr.Line()
		var reason string
		switch {
		case len(raw) > limit:
			reason = "line longer than the limit of " + SizeWords(limit)
		case len(bytes.TrimSpace(raw)) == 0:
			continue
		case !utf8.Valid(raw):
			reason = fmt.Sprintf("not valid UTF-8 (byte %d)", invalidUTF8At(raw)+1)
		}
		if reason != "" {
			if err := bad(n, reason); err != nil {
				return err
			}
			continue
		}
		if err := fn(n, raw); err != nil {
			return err
		}
	}
}

// invalidUTF8At is the offset of the first byte of b that is not valid
// UTF-8 (len(b) if there is none).
func invalidUTF8At(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(b)
}

// ReadJSONL calls fn with every line of r that is not blank and its 1-based
// number; name is the input's name for errors ("-" for stdin). It stops at
// fn's first error, which it returns as is, and at a line longer than
// MaxJSONLLineBytes or not valid UTF-8 (a *BadLineError).
func ReadJSONL(r io.Reader, name string, fn func(line int, raw []byte) error) error {
	return EachLine(r, name, MaxJSONLLineBytes, fn, func(n int, reason string) error {
		return &BadLineError{ParseError{Path: name, Line: n, Reason: reason}}
	})
}

// SizeWords says n bytes in words: "64 MiB", "4 KiB", "100 bytes".
func SizeWords(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
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
