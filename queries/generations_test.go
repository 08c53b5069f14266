package queries

import (
	"context"
	"encoding/json"
	"testing"
)

// TestReplaceGenerationsReplacesByIDOnly: a second write of some ids
// replaces exactly those rows (one row per id, the new text) and leaves the
// others; a third, of the same ids again, finds the scratch table of the
// second empty again.
func TestReplaceGenerationsReplacesByIDOnly(t *testing.T) {
	ctx := context.Background()
	ws, err := Open(ctx, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	gen := func(id, text string) GenerationRow {
		return GenerationRow{ID: id, PointID: "p", Simulator: "s", Condition: CondNoProfile,
			RequestKey: "k", KeyParts: json.RawMessage("{}"), Text: text, PromptVersion: "v"}
	}
	if err := ReplaceGenerations(ctx, ws, []GenerationRow{gen("a", "a1"), gen("b", "b1"), gen("c", "c1")}); err != nil {
		t.Fatal(err)
	}
	if err := ReplaceGenerations(ctx, ws, []GenerationRow{gen("b", "b2"), gen("c", "c2")}); err != nil {
		t.Fatal(err)
	}
	if err := ReplaceGenerations(ctx, ws, []GenerationRow{gen("c", "c3")}); err != nil {
		t.Fatal(err)
	}
	rows, err := ws.Conn().QueryContext(ctx, `SELECT id, text FROM generations ORDER BY id, text`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var id, text string
		if err := rows.Scan(&id, &text); err != nil {
			t.Fatal(err)
		}
		got = append(got, id+"="+text)
	}
	want := []string{"a=a1", "b=b2", "c=c3"}
	if len(got) != len(want) {
		t.Fatalf("rows %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("rows %v, want %v", got, want)
			break
		}
	}
}
