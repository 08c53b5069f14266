package ingest

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ub-bench/ub"
)

// refContentHash is the session hash written the way the workspaces already
// stored hold it: every field, length first, written to the digest one at a
// time. ContentHash must give the same hex for every session, or a
// re-ingest would take unchanged sessions for changed ones.
func refContentHash(s *ub.Session) string {
	h := sha256.New()
	field := func(v string) {
		h.Write(binary.AppendUvarint(nil, uint64(len(v))))
		h.Write([]byte(v))
	}
	ts := func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format(time.RFC3339Nano)
	}
	field(s.Format)
	field(s.Developer)
	field(s.Repo)
	field(ts(s.StartedAt))
	for _, t := range s.Turns {
		field(string(t.Role))
		field(t.Text)
		field(ts(t.TS))
		if t.IsCommand {
			field("c")
		} else {
			field("")
		}
		if len(t.Meta) == 0 {
			field("")
		} else {
			m, _ := json.Marshal(t.Meta)
			field(string(m))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

func TestContentHashUnchanged(t *testing.T) {
	at := time.Date(2025, 3, 4, 5, 6, 7, 890, time.FixedZone("x", 3600))
	big := strings.Repeat("é long text ", 200_000) // past the pooled buffers' 1 MiB
	cases := []*ub.Session{
		{},
		{Format: "jsonl", Developer: "ada", Repo: "org/r", StartedAt: at,
			Turns: []ub.Turn{{Role: ub.RoleDeveloper, Text: "fix it", TS: at}, {Role: ub.RoleAgent, Text: "", IsCommand: true},
				{Role: ub.RoleTool, Text: "ok", Meta: map[string]any{"b": 1, "a": []any{"x"}}}}},
		{Format: "aider", Turns: []ub.Turn{{Role: ub.RoleDeveloper, Text: big}}},
		{Format: "aider", Turns: []ub.Turn{{Role: ub.RoleDeveloper, Text: "after the big one"}}},
	}
	for i, s := range cases {
		if got, want := s.ContentHash(), refContentHash(s); got != want {
			t.Errorf("session %d: hash %s, the stored form gives %s", i, got, want)
		}
	}
	// The empty session, by hand: four empty fields are four zero bytes.
	zero := sha256.Sum256([]byte{0, 0, 0, 0})
	if got := cases[0].ContentHash(); got != hex.EncodeToString(zero[:]) {
		t.Errorf("empty session: %s, want sha256 of four zero bytes %x", got, zero)
	}
}
