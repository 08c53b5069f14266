package ingest

import (
	"crypto/sha256"
	"encoding/hex"
	"github.com/ub-bench/ub"
	"github.com/ub-bench/ub/ingest/lines"
	"io"
	"strings"
	"time"
)

func formatTS(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// StableID makes a short, stable session id from the parts that identify a
// session inside its source (format, file base name, header line, ordinal).
func StableID(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(h[:8])
}

// ParseError is bad input at one place: "path:line: reason" (lines.ParseError,
// which the readers of every JSONL file return).
type ParseError = lines.ParseError

// Sink receives what a parser finds, in file order. A parser calls Session
// once per complete session, Error for each bad line or bad session (and goes
// on with the rest of the file), and Skip for a well-formed session that is
// not kept (no developer message, say), with a short reason used as a counter
// key. A non-nil error from Session stops the parse and is returned.
type Sink interface {
	Session(s *ub.Session) error
	Error(e *ParseError)
	Skip(reason string)
}

// emit hands a complete session to the sink, or counts it as skipped when it
// has no developer turn (nil means the parser found none): the one place
// that rule lives for every format.
func emit(sink Sink, s *ub.Session) error {
	if s == nil || s.DeveloperTurns() == 0 {
		sink.Skip("no developer message")
		return nil
	}
	return sink.Session(s)
}

// Source is one input file handed to a parser.
type Source struct {
	Path string    // as given by the user, used in errors and sessions
	R    io.Reader // the file's bytes, streamed
}

// ParseFunc parses one source. It streams: it holds at most one session in
// memory at a time. It returns an error only when it cannot go on reading
// (an I/O error); bad content goes to sink.Error.
type ParseFunc func(src Source, sink Sink) error
