package ub

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
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
