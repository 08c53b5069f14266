package ingest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"
	"unicode/utf8"
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
// documented in the README and schema/session.schema.json. Blank lines are
// ignored. A bad line (invalid JSON, a truncated line, invalid UTF-8, a NUL
// byte, an unknown field, a missing or invalid value) is reported as
// path:line: reason and the next line is read; a session with no developer
// turn is skipped ("no developer message").
func ParseJSONL(src Source, sink Sink) error {
	br := bufio.NewReaderSize(src.R, 1<<20)
	var long []byte
	for lineNo := 1; ; lineNo++ {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long[:0], line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("%s:%d: read: %w", src.Path, lineNo, err)
		}
		if len(bytes.TrimSpace(line)) > 0 {
			s, perr := decodeCanonical(line)
			if perr != "" {
				sink.Error(&ParseError{Path: src.Path, Line: lineNo, Reason: perr})
			} else {
				s.Format = "jsonl"
				s.SourceFile = src.Path
				s.Line = lineNo
				if s.DeveloperTurns() == 0 {
					sink.Skip("no developer message")
				} else if serr := sink.Session(s); serr != nil {
					return serr
				}
			}
		}
		if err == io.EOF {
			return nil
		}
	}
}

func decodeCanonical(line []byte) (*Session, string) {
	line = bytes.TrimRight(line, "\r\n")
	if bytes.IndexByte(line, 0) >= 0 {
		return nil, "binary data (NUL byte)"
	}
	if !utf8.Valid(line) {
		return nil, "invalid UTF-8"
	}
	var c canonicalSession
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
			return nil, err.Error()
		}
	}
	if dec.More() {
		return nil, "more than one JSON value on the line"
	}
	if len(c.Turns) == 0 {
		return nil, `missing "turns"`
	}
	s := &Session{ID: c.ID, Developer: c.Developer, Repo: c.Repo, Meta: c.Meta}
	if c.StartedAt != "" {
		t, err := parseTime(c.StartedAt)
		if err != nil {
			return nil, fmt.Sprintf("started_at: %v", err)
		}
		s.StartedAt = t
	}
	s.Turns = make([]Turn, len(c.Turns))
	for i, ct := range c.Turns {
		r := Role(ct.Role)
		if ct.Role == "" {
			return nil, fmt.Sprintf(`turn %d: missing "role"`, i)
		}
		if !r.Valid() {
			return nil, fmt.Sprintf("turn %d: role %s is not developer, agent, tool or system", i, strconv.Quote(ct.Role))
		}
		if ct.Text == nil {
			return nil, fmt.Sprintf(`turn %d: missing "text"`, i)
		}
		t := Turn{Role: r, Text: *ct.Text, IsCommand: ct.IsCommand, Meta: ct.Meta}
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
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not an RFC 3339 time", v)
}
