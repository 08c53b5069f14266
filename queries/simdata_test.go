package queries

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// simFixture: every session has the turns
//
//	0 developer "S first"      (no agent before it: not a moment)
//	1 agent     "S agent one"
//	2 developer "S reply one"
//	3 developer "/add S"       (a command)
//	4 tool      "S tool"
//	5 developer "S reply two"  (latest agent turn: 1)
//	6 agent     "S agent two"
//	7 developer "S reply three"
//
// ann (test): a1, a2 profile, a3 held out; bob (train): b1 profile, b2 held
// out; cat (val): c1 profile, c2 held out; dan: d1 profile, placed in train
// AND test (a broken split). Held-out session texts all contain HELDOUT.
// One frozen point: a3 turn 5.
func simFixture(t *testing.T) *Workspace {
	t.Helper()
	ctx := context.Background()
	ws, err := Open(ctx, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	var stmts []string
	add := func(id, dev string, ordinal int, role string) {
		tag := id
		if role == "heldout" {
			tag = id + " HELDOUT"
		}
		stmts = append(stmts,
			fmt.Sprintf(`INSERT INTO sessions VALUES ('%s', '%s', '%s/r', TIMESTAMP '2025-01-0%d 00:00:00', 'jsonl', 'f', 1, 'h%s', 8, NULL)`, id, dev, dev, ordinal, id),
			fmt.Sprintf(`INSERT INTO session_roles VALUES ('%s', '%s', %d, '%s')`, id, dev, ordinal, role))
		turns := []struct{ role, text string }{
			{"developer", tag + " first"}, {"agent", tag + " agent one"}, {"developer", tag + " reply one"},
			{"developer", "/add " + tag}, {"tool", tag + " tool"}, {"developer", tag + " reply two"},
			{"agent", tag + " agent two"}, {"developer", tag + " reply three"},
		}
		for i, tr := range turns {
			stmts = append(stmts, fmt.Sprintf(`INSERT INTO turns VALUES ('%s', %d, '%s', '%s', NULL, %v, NULL)`,
				id, i, tr.role, tr.text, strings.HasPrefix(tr.text, "/")))
		}
	}
	add("a1", "ann", 1, "profile")
	add("a2", "ann", 2, "profile")
	add("a3", "ann", 3, "heldout")
	add("b1", "bob", 1, "profile")
	add("b2", "bob", 2, "heldout")
	add("c1", "cat", 1, "profile")
	add("c2", "cat", 2, "heldout")
	add("d1", "dan", 1, "profile")
	stmts = append(stmts,
		`INSERT INTO developer_splits VALUES ('ann', 0, 'test'), ('bob', 1, 'train'), ('cat', 2, 'val'), ('dan', 3, 'train'), ('dan', 3, 'test')`,
		`INSERT INTO points VALUES ('pA', 'ann', 'test', 'a3', 5, 5, false)`)
	for _, s := range stmts {
		if _, err := ws.Conn().ExecContext(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	return ws
}

func TestPointContext(t *testing.T) {
	ws := simFixture(t)
	ctx := context.Background()
	d, err := PointContext(ctx, ws.Conn(), "pA")
	if err != nil {
		t.Fatal(err)
	}
	if d.Real != "a3 HELDOUT reply two" || d.Repo != "ann/r" || d.Point.Developer != "ann" {
		t.Errorf("point = %+v, real %q, repo %q", d.Point, d.Real, d.Repo)
	}
	var got []string
	for _, tr := range d.Before {
		got = append(got, fmt.Sprintf("%d:%s", tr.Idx, tr.Role))
	}
	if want := "0:developer 1:agent 2:developer 3:developer 4:tool"; strings.Join(got, " ") != want {
		t.Errorf("turns before = %s, want %s", strings.Join(got, " "), want)
	}
	if !d.Before[3].IsCommand {
		t.Error("turn 3 should be a command")
	}
	if _, err := PointContext(ctx, ws.Conn(), "nope"); !errors.Is(err, ErrNoPoint) {
		t.Errorf("unknown point: err = %v, want ErrNoPoint", err)
	}
	if id, err := NthPointID(ctx, ws.Conn(), 1); err != nil || id != "pA" {
		t.Errorf("@1 = %q, %v", id, err)
	}
	for _, n := range []int{0, 2} {
		if _, err := NthPointID(ctx, ws.Conn(), n); !errors.Is(err, ErrNoPoint) {
			t.Errorf("@%d: err = %v, want ErrNoPoint", n, err)
		}
	}
}

func TestProfileHistory(t *testing.T) {
	ws := simFixture(t)
	ctx := context.Background()
	tests := []struct {
		k    int
		want string
	}{
		{0, ""},
		{1, "a2:7"},
		{3, "a2:7 a2:5 a2:2"},
		{100, "a2:7 a2:5 a2:2 a2:0 a1:7 a1:5 a1:2 a1:0"}, // profile sessions only: a3 never
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("k=%d", tt.k), func(t *testing.T) {
			hs, err := ProfileHistory(ctx, ws.Conn(), "ann", tt.k)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range hs {
				got = append(got, fmt.Sprintf("%s:%d", h.SessionID, h.TurnIdx))
			}
			if strings.Join(got, " ") != tt.want {
				t.Errorf("history = %s, want %s", strings.Join(got, " "), tt.want)
			}
		})
	}
}

func pairKeys(ps []ReplyPair) string {
	var out []string
	for _, p := range ps {
		out = append(out, fmt.Sprintf("%s:%d>%d", p.SessionID, p.AgentIdx, p.ReplyIdx))
	}
	return strings.Join(out, " ")
}

func TestPairs(t *testing.T) {
	ws := simFixture(t)
	ctx := context.Background()
	ps, err := ProfilePairs(ctx, ws.Conn(), "ann")
	if err != nil {
		t.Fatal(err)
	}
	// Moments only (turn 0 has no agent before it, turn 3 is a command); the
	// reply at 5 pairs with agent turn 1, the latest before it.
	if got, want := pairKeys(ps), "a1:1>2 a1:1>5 a1:6>7 a2:1>2 a2:1>5 a2:6>7"; got != want {
		t.Errorf("ann's pairs = %s, want %s", got, want)
	}
	if ps[1].Agent != "a1 agent one" || ps[1].Reply != "a1 reply two" || ps[1].Developer != "ann" {
		t.Errorf("pair = %+v", ps[1])
	}
	tr, err := TrainPairs(ctx, ws.Conn())
	if err != nil {
		t.Fatal(err)
	}
	// bob's profile session only: not b2 (held out), not dan (also in test),
	// not ann or cat (not train).
	if got, want := pairKeys(tr), "b1:1>2 b1:1>5 b1:6>7"; got != want {
		t.Errorf("training pairs = %s, want %s", got, want)
	}
}

// TestSimDataLeakFree: no held-out session text reaches a profile, a pool or
// a history, whatever the developer.
func TestSimDataLeakFree(t *testing.T) {
	ws := simFixture(t)
	ctx := context.Background()
	var texts []string
	msgs, err := ProfileMessages(ctx, ws.Conn(), "")
	if err != nil {
		t.Fatal(err)
	}
	devs := map[string]bool{}
	for _, m := range msgs {
		texts = append(texts, m.Text)
		devs[m.Developer] = true
	}
	if len(msgs) != 20 || len(devs) != 4 { // 5 profile sessions x 4 messages, of 4 developers
		t.Errorf("profile messages: %d of %d developers, want 20 of 4", len(msgs), len(devs))
	}
	for _, d := range []string{"ann", "bob", "cat", "dan"} {
		hs, err := ProfileHistory(ctx, ws.Conn(), d, 1000)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hs {
			texts = append(texts, h.Text)
		}
		ps, err := ProfilePairs(ctx, ws.Conn(), d)
		if err != nil {
			t.Fatal(err)
		}
		if len(ps) == 0 {
			t.Errorf("%s: no pairs", d)
		}
		for _, p := range ps {
			texts = append(texts, p.Agent, p.Reply)
		}
		one, err := ProfileMessages(ctx, ws.Conn(), d)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range one {
			if m.Developer != d {
				t.Errorf("messages of %s include %s's", d, m.Developer)
			}
			texts = append(texts, m.Text)
		}
	}
	tr, err := TrainPairs(ctx, ws.Conn())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range tr {
		texts = append(texts, p.Agent, p.Reply)
	}
	for _, s := range texts {
		if strings.Contains(s, "HELDOUT") {
			t.Errorf("held-out text leaked: %q", s)
		}
		if strings.HasPrefix(s, "/") {
			t.Errorf("command leaked into messages: %q", s)
		}
	}
}

func TestStoreProfiles(t *testing.T) {
	ws := simFixture(t)
	ctx := context.Background()
	row := ProfileRow{Developer: "ann", Kind: "stats", PromptVersion: "v1", Text: "terse", Stats: `{"messages":8}`}
	if err := StoreProfiles(ctx, ws, []ProfileRow{row}); err != nil {
		t.Fatal(err)
	}
	row.Text = "terser"
	if err := StoreProfiles(ctx, ws, []ProfileRow{row, {Developer: "ann", Kind: "model", Model: "m", Text: "You ..."}}); err != nil {
		t.Fatal(err)
	}
	got, ok, err := GetProfile(ctx, ws.Conn(), "ann", "stats")
	if err != nil || !ok {
		t.Fatalf("get: %v %v", ok, err)
	}
	if got != row {
		t.Errorf("stored %+v, read %+v", row, got)
	}
	if m, ok, _ := GetProfile(ctx, ws.Conn(), "ann", "model"); !ok || m.Model != "m" || m.Stats != "" {
		t.Errorf("model profile = %+v, %v", m, ok)
	}
	if _, ok, err := GetProfile(ctx, ws.Conn(), "bob", "stats"); ok || err != nil {
		t.Errorf("bob has no profile: ok %v, err %v", ok, err)
	}
	if err := StoreProfiles(ctx, ws, []ProfileRow{{Developer: "ann", Kind: "other"}}); err == nil {
		t.Error("a bad kind was stored")
	}
	for i := 0; i < 2; i++ {
		if err := StorePromptTemplate(ctx, ws.Conn(), "abc", "prompt/profile", "text"); err != nil {
			t.Fatal(err)
		}
	}
}
