package queries

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

// TestPointSetHash: the hash is sha256 of the JSONL lines sorted by
// developer then id, whatever order the points come in; the expected text
// is written out by hand.
func TestPointSetHash(t *testing.T) {
	a := PointRow{ID: "p2", Developer: "alice", Split: "test", SessionID: "s1", TurnIdx: 3, PriorTurns: 3}
	b := PointRow{ID: "p1", Developer: "bob", Split: "val", SessionID: "s9", TurnIdx: 12, PriorTurns: 12, ConstantDose: true}
	c := PointRow{ID: "p1", Developer: "alice", Split: "test", SessionID: "s2", TurnIdx: 1, PriorTurns: 1}
	text := `{"id":"p1","developer":"alice","split":"test","session_id":"s2","turn_idx":1,"prior_turns":1,"constant_dose":false}
{"id":"p2","developer":"alice","split":"test","session_id":"s1","turn_idx":3,"prior_turns":3,"constant_dose":false}
{"id":"p1","developer":"bob","split":"val","session_id":"s9","turn_idx":12,"prior_turns":12,"constant_dose":true}
`
	sum := sha256.Sum256([]byte(text))
	want := hex.EncodeToString(sum[:])
	for _, rows := range [][]PointRow{{a, b, c}, {b, c, a}, {c, a, b}} {
		if got := PointSetHash(rows); got != want {
			t.Errorf("order %v: hash %s, want %s", rows, got, want)
		}
	}
	if got := string(EncodePoints([]PointRow{c, a, b})); got != text {
		t.Errorf("EncodePoints:\n%s\nwant\n%s", got, text)
	}
}
