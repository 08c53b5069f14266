package ingest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"time"
	"unicode/utf8"

	gojson "github.com/goccy/go-json"
	"github.com/ub-bench/ub"
	"github.com/ub-bench/ub/ingest/lines"
)

// canonicalSession is one line of the canonical JSONL format; the JSON
// Schema is schema/session.schema.json.
type canonicalSession struct {
	ID        string          `json:"id"`
	Developer string          `json:"developer"`
	Repo      string          `json:"repo"`
	StartedAt string          `json:"started_at"`
	Meta      map[string]any  `json:"meta"`
	Turns     []canonicalTurn `json:"turns"`
}

type canonicalTurn struct {
	Role      string         `json:"role"`
	Text      *string        `json:"text"`
	TS        string         `json:"ts"`
	IsCommand bool           `json:"is_command"`
	Meta      map[string]any `json:"meta"`
}

// ParseJSONL reads the canonical JSONL format: one session per line, as
// documented in the README and session.schema.json. Blank lines are
// ignored. A bad line (invalid JSON, a truncated line, invalid UTF-8, a NUL
// byte, an unknown field, a missing or invalid value) is reported as
// path:line: reason and the next line is read; a session with no developer
// turn is skipped ("no developer message").
//
// Lines are decoded in parallel, in chunks, by GOMAXPROCS workers, and
// handed to the sink in file order; at most 2 x workers chunks (of at most
// 1 MiB each, or one longer line) are in memory at once, their lines
// dropped as soon as they are decoded. At 4 MiB a chunk, the peak Go heap
// of a 100 MB file was 94 MiB instead of 48.
func ParseJSONL(src Source, sink Sink) error {
	workers := runtime.GOMAXPROCS(0)
	type result struct {
		s    *ub.Session
		err  string
		line int
	}
	type chunk struct {
		lines [][]byte
		first int // line number of lines[0]
		blank []bool
		out   chan []result
	}
	jobs := make(chan *chunk)
	order := make(chan *chunk, 2*workers)
	stop := make(chan struct{})
	var readErr error
	for i := 0; i < workers; i++ {
		go func() {
			for c := range jobs {
				res := make([]result, 0, len(c.lines))
				for k, line := range c.lines {
					if c.blank[k] {
						continue
					}
					s, perr := decodeCanonical(line)
					res = append(res, result{s, perr, c.first + k})
				}
				// Each line's bytes are its session's now (decodeCanonical),
				// or garbage: the chunk lets go of them.
				c.lines, c.blank = nil, nil
				c.out <- res
			}
		}()
	}
	go func() {
		defer close(order)
		defer close(jobs)
		br := bufio.NewReaderSize(src.R, 256<<10)
		lineNo := 1
		c := &chunk{first: lineNo, out: make(chan []result, 1)}
		size := 0
		flush := func() bool {
			if len(c.lines) == 0 {
				return true
			}
			select {
			case order <- c:
			case <-stop:
				return false
			}
			jobs <- c
			c = &chunk{first: lineNo, out: make(chan []result, 1)}
			size = 0
			return true
		}
		var block []byte
		for {
			line, err := readLine(br, &block)
			if err != nil && err != io.EOF {
				readErr = fmt.Errorf("%s:%d: read: %w", src.Path, lineNo, err)
				flush()
				return
			}
			if len(line) > 0 {
				c.lines = append(c.lines, line)
				c.blank = append(c.blank, len(bytes.TrimSpace(line)) == 0)
				size += len(line)
				lineNo++
				if size >= 1<<20 || len(c.lines) >= 2000 {
					if !flush() {
						return
					}
				}
			}
			if err == io.EOF {
				flush()
				return
			}
		}
	}()
	var serr error
	for c := range order {
		res := <-c.out
		if serr != nil {
			continue // drain so the reader and workers end
		}
		for _, r := range res {
			if r.err != "" {
				sink.Error(&ParseError{Path: src.Path, Line: r.line, Reason: r.err})
				continue
			}
			r.s.Format = "jsonl"
			r.s.SourceFile = src.Path
			r.s.Line = r.line
			if err := emit(sink, r.s); err != nil {
				serr = err
				close(stop)
				break
			}
		}
	}
	if serr != nil {
		return serr
	}
	return readErr
}

// decodeCanonical decodes one line. The line becomes the session's: its
// strings may share the line's memory (fastCanonical), so the caller must
// not change the line afterwards (ParseJSONL reads each line into a slice
// of its own).
// lineBlock is the size of the blocks readLine reads lines into.
const lineBlock = 1 << 20

// readLine reads the next line, with its '\n' unless it is the last, into
// the free end of *block and returns it: lines share blocks of lineBlock
// bytes (a line too long for the rest of one gets a new one), so reading a
// line is one copy and no allocation of its own. A line is never written
// again; a block lives as long as a line, or a string of one, refers to it.
func readLine(br *bufio.Reader, block *[]byte) ([]byte, error) {
	b, start := *block, len(*block)
	for {
		frag, err := br.ReadSlice('\n')
		if len(b)+len(frag) > cap(b) {
			nb := make([]byte, 0, max(lineBlock, 2*(len(b)-start+len(frag))))
			b, start = append(nb, b[start:]...), 0
		}
		b = append(b, frag...)
		if err != bufio.ErrBufferFull {
			*block = b
			return b[start:len(b):len(b)], err
		}
	}
}

func decodeCanonical(line []byte) (*ub.Session, string) {
	line = bytes.TrimRight(line, "\r\n")
	if bytes.IndexByte(line, 0) >= 0 {
		return nil, "binary data (NUL byte)"
	}
	if !utf8.Valid(line) {
		return nil, invalidUTF8(line)
	}
	var c canonicalSession
	// Most lines are of the plain form fastCanonical takes. Others go to
	// goccy/go-json, which decodes about 3x faster than encoding/json; a
	// line it refuses is decoded again by encoding/json, whose messages the
	// README and tests quote, and which has the last word.
	if fastCanonical(line, &c) {
		return fromCanonical(&c)
	}
	c = canonicalSession{}
	fast := gojson.NewDecoder(bytes.NewReader(line))
	fast.DisallowUnknownFields()
	if fast.Decode(&c) != nil || fast.More() {
		c = canonicalSession{}
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			var se *json.SyntaxError
			switch {
			case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
				return nil, "truncated JSON line"
			case errors.As(err, &se):
				return nil, fmt.Sprintf("invalid JSON at byte %d: %v", se.Offset, err)
			default:
				return nil, lines.JSONReason(err)
			}
		}
		if dec.More() {
			return nil, "more than one JSON value on the line"
		}
	}
	return fromCanonical(&c)
}

// fromCanonical checks a decoded line and makes its session.
func fromCanonical(c *canonicalSession) (*ub.Session, string) {
	if len(c.Turns) == 0 {
		return nil, `missing "turns"`
	}
	s := &ub.Session{ID: c.ID, Developer: c.Developer, Repo: c.Repo, Meta: c.Meta}
	if c.StartedAt != "" {
		t, err := parseTime(c.StartedAt)
		if err != nil {
			return nil, fmt.Sprintf("started_at: %v", err)
		}
		s.StartedAt = t
	}
	s.Turns = make([]ub.Turn, len(c.Turns))
	for i, ct := range c.Turns {
		r := ub.Role(ct.Role)
		if ct.Role == "" {
			return nil, fmt.Sprintf(`turn %d: missing "role"`, i)
		}
		switch r { // the constant, not a slice of the line
		case ub.RoleDeveloper:
			r = ub.RoleDeveloper
		case ub.RoleAgent:
			r = ub.RoleAgent
		case ub.RoleTool:
			r = ub.RoleTool
		case ub.RoleSystem:
			r = ub.RoleSystem
		}
		if !r.Valid() {
			return nil, fmt.Sprintf("turn %d: role %s is not developer, agent, tool or system", i, strconv.Quote(ct.Role))
		}
		if ct.Text == nil {
			return nil, fmt.Sprintf(`turn %d: missing "text"`, i)
		}
		t := ub.Turn{Role: r, Text: *ct.Text, IsCommand: ct.IsCommand, Meta: ct.Meta}
		if ct.TS != "" {
			ts, err := parseTime(ct.TS)
			if err != nil {
				return nil, fmt.Sprintf("turn %d: ts: %v", i, err)
			}
			t.TS = ts
		}
		s.Turns[i] = t
	}
	if s.StartedAt.IsZero() {
		for _, t := range s.Turns {
			if !t.TS.IsZero() {
				s.StartedAt = t.TS
				break
			}
		}
	}
	return s, ""
}

// parseTime reads RFC 3339 (with or without zone; no zone means UTC) or a
// plain "2006-01-02 15:04:05".
func parseTime(v string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999", "2006-01-02"} {
		if t, err := time.Parse(layout, v); err == nil {
			// Year 1 is Go's zero time, which ub stores as "no time": a
			// session log from before 1900 is a typo or a placeholder.
			if y := t.UTC().Year(); y < 1900 {
				return time.Time{}, fmt.Errorf("%q: year %d is out of range (1900 or later; leave the field out when the time is unknown)", v, y)
			}
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not an RFC 3339 time", v)
}
