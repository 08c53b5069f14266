package ingest

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"github.com/ub-bench/ub/ingest/lines"
	"io"
	"strings"
	"sync"
	"time"
)

// Role is who spoke a turn.
type Role string

// The four roles of the data model (SPEC section 1).
const (
	RoleDeveloper Role = "developer"
	RoleAgent     Role = "agent"
	RoleTool      Role = "tool"
	RoleSystem    Role = "system"
)

// Valid reports whether r is one of the four roles.
func (r Role) Valid() bool {
	switch r {
	case RoleDeveloper, RoleAgent, RoleTool, RoleSystem:
		return true
	}
	return false
}

// Turn is one utterance of a session.
type Turn struct {
	Role      Role
	Text      string
	TS        time.Time // zero when the source has no timestamp
	IsCommand bool      // a developer slash command or shell escape, not a moment
	// Meta keeps structure the text alone loses (tool name and input, tool
	// result status, token counts, source line). nil means none. It is stored
	// as JSON, so values must marshal.
	Meta map[string]any
}

// Session is one recorded conversation: one developer, one repository.
type Session struct {
	// ID is stable across re-ingests of the same source: a native id (Claude
	// Code sessionId, Codex session id) or one made by StableID from what
	// identifies the session in its file. Empty means "derive it from the
	// content hash", which suits canonical JSONL without ids.
	ID         string
	Developer  string // empty: resolved by the ingest run (flags, file names)
	Repo       string // empty: resolved by the ingest run
	StartedAt  time.Time
	Format     string // source format name, e.g. "aider"
	SourceFile string // path as given to ingest
	Line       int    // 1-based line in SourceFile where the session starts
	Turns      []Turn
	// Meta holds source-level facts (tool version, model, title). nil means none.
	Meta map[string]any
}

// DeveloperTurns counts the turns with role developer, commands included.
func (s *Session) DeveloperTurns() int {
	n := 0
	for _, t := range s.Turns {
		if t.Role == RoleDeveloper {
			n++
		}
	}
	return n
}

// ContentHash is the hex sha256 of the session's identity and content:
// format, developer, repo, start time and every turn's role, text, time,
// command flag and meta. Each field is written with its length in front, so
// no two different sessions write the same bytes. Two ingests of the same
// session give the same hash; any change in content gives another.
func (s *Session) ContentHash() string {
	// The fields go into one buffer hashed once: a Write per field made
	// hashing a third of the decoding's cost.
	bp := hashBufs.Get().(*[]byte)
	buf := (*bp)[:0]
	field := func(v string) {
		buf = binary.AppendUvarint(buf, uint64(len(v)))
		buf = append(buf, v...)
	}
	var ts [64]byte
	fieldTS := func(t time.Time) {
		if t.IsZero() {
			field("")
			return
		}
		b := t.UTC().AppendFormat(ts[:0], time.RFC3339Nano)
		buf = binary.AppendUvarint(buf, uint64(len(b)))
		buf = append(buf, b...)
	}
	field(s.Format)
	field(s.Developer)
	field(s.Repo)
	fieldTS(s.StartedAt)
	for _, t := range s.Turns {
		field(string(t.Role))
		field(t.Text)
		fieldTS(t.TS)
		if t.IsCommand {
			field("c")
		} else {
			field("")
		}
		if len(t.Meta) == 0 {
			field("")
		} else {
			m, _ := json.Marshal(t.Meta) // map keys sorted: canonical
			field(string(m))
		}
	}
	sum := sha256.Sum256(buf)
	if cap(buf) <= 1<<20 {
		*bp = buf
		hashBufs.Put(bp)
	}
	return hex.EncodeToString(sum[:])
}

// hashBufs holds ContentHash's buffers (those of sessions up to 1 MiB).
var hashBufs = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

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
	Session(s *Session) error
	Error(e *ParseError)
	Skip(reason string)
}

// emit hands a complete session to the sink, or counts it as skipped when it
// has no developer turn (nil means the parser found none): the one place
// that rule lives for every format.
func emit(sink Sink, s *Session) error {
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
