package sim

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"testing"

	"github.com/ub-bench/ub"
)

// handPool: three agent turns with clearly different topics, and the replies
// that followed them.
func handPool() []Pair {
	return []Pair{
		{"ann", "s2", 1, "I updated the search box and ran the tests; all pass.", 2, "looks good"},
		{"ann", "s1", 3, "The build failed with a null pointer in parser.go at line 40.", 4, "fix the null check"},
		{"ann", "s1", 5, "Should I also migrate the database schema?", 6, "yes, go ahead"},
	}
}

func TestRetrieve(t *testing.T) {
	pool := NewReplyPool("profile:ann", handPool())
	r := Retrieve{Seed: 1}
	tests := []struct {
		agent string
		want  string
	}{
		{"Tests fail: null pointer in parser.go", "fix the null check"},
		{"I changed the search box; the tests pass", "looks good"},
		{"Do you want me to migrate the schema too?", "yes, go ahead"},
	}
	for _, tt := range tests {
		got, err := r.Generate(OfflineInput{Condition: CondProfile, PointID: "p1", Agent: tt.agent, Pool: pool})
		if err != nil || got != tt.want {
			t.Errorf("retrieve(%q) = %q, %v; want %q", tt.agent, got, err, tt.want)
		}
	}
	// No shared term: the mix draw.
	in := OfflineInput{Condition: CondProfile, PointID: "p9", Agent: "zzz qqq", Pool: pool}
	got, _ := r.Generate(in)
	want, _ := Mix{Seed: 1}.Generate(in)
	if got != want {
		t.Errorf("fallback = %q, want the mix draw %q", got, want)
	}
	// Pool order is fixed by (session, reply turn): s1:4, s1:6, s2:2.
	if p := pool.Pair(0); p.SessionID != "s1" || p.ReplyIdx != 4 || pool.Len() != 3 {
		t.Errorf("pool order: first pair %+v", p)
	}
}

func TestMix(t *testing.T) {
	pool := NewReplyPool("train", handPool())
	m := Mix{Seed: 3}
	replies := map[string]bool{}
	for _, p := range handPool() {
		replies[p.Reply] = true
	}
	seen := map[string]bool{}
	for i := 0; i < 60; i++ {
		point := fmt.Sprintf("p%d", i)
		got, err := m.Generate(OfflineInput{Condition: CondNoProfile, PointID: point, Pool: pool})
		if err != nil || !replies[got] {
			t.Fatalf("mix = %q, %v", got, err)
		}
		again, _ := m.Generate(OfflineInput{Condition: CondNoProfile, PointID: point, Agent: "other", Pool: pool})
		if again != got {
			t.Errorf("%s: mix is not a function of seed and point alone", point)
		}
		// The draw, worked out: sha256("mix", seed, point) mod pool size, in pool order.
		h := sha256.Sum256([]byte("mix\x003\x00" + point))
		if want := pool.Pair(int(binary.BigEndian.Uint64(h[:8]) % 3)).Reply; got != want {
			t.Errorf("%s: mix = %q, want %q", point, got, want)
		}
		seen[got] = true
	}
	if len(seen) != 3 {
		t.Errorf("60 draws hit %d of 3 replies", len(seen))
	}
	differs := false
	for i := 0; i < 20; i++ {
		in := OfflineInput{PointID: fmt.Sprintf("p%d", i), Pool: pool}
		a, _ := Mix{Seed: 1}.Generate(in)
		b, _ := Mix{Seed: 2}.Generate(in)
		differs = differs || a != b
	}
	if !differs {
		t.Error("the seed never changes the draw")
	}
}

func TestOfflineErrors(t *testing.T) {
	for _, name := range []string{"mix", "retrieve"} {
		o, err := NewOffline(name, 1)
		if err != nil || o.Name() != name {
			t.Fatalf("NewOffline(%s) = %v, %v", name, o, err)
		}
		for _, pool := range []*ReplyPool{nil, NewReplyPool("empty", nil)} {
			if _, err := o.Generate(OfflineInput{PointID: "p", Agent: "x", Pool: pool}); !errors.Is(err, ErrEmptyPool) {
				t.Errorf("%s on an empty pool: %v", name, err)
			}
		}
	}
	if _, err := NewOffline("gpt", 1); err == nil {
		t.Error("NewOffline accepted an unknown simulator")
	}
}

func TestReplyPoolVersion(t *testing.T) {
	ps := handPool()
	rev := []Pair{ps[2], ps[0], ps[1]}
	a, b := NewReplyPool("x", ps), NewReplyPool("y", rev)
	if a.Version() != b.Version() {
		t.Error("input order (or name) changed the pool version")
	}
	for i := 0; i < a.Len(); i++ {
		if a.Pair(i) != b.Pair(i) {
			t.Error("input order changed the pool order")
		}
	}
	ps[1].Reply = "fix the null check!"
	if NewReplyPool("x", ps).Version() == a.Version() {
		t.Error("a changed reply kept the pool version")
	}
	ps = handPool()
	ps[0].Agent += " "
	if NewReplyPool("x", ps).Version() == a.Version() {
		t.Error("a changed agent turn kept the pool version")
	}
}

func TestOfflineKey(t *testing.T) {
	pool := NewReplyPool("train", handPool())
	other := NewReplyPool("train", handPool()[:2])
	in := OfflineInput{Condition: CondProfile, PointID: "p1", Agent: "agent says", Pool: pool}
	base := OfflineKey("mix", 1, in)
	if OfflineKey("mix", 1, in) != base {
		t.Fatal("key not stable")
	}
	req := OfflineRequest("retrieve", 1, in)
	if req.Backend != "retrieve" || req.Model != offlineAlgorithm["retrieve"] || req.Key() != OfflineKey("retrieve", 1, in) {
		t.Errorf("request = %+v", req)
	}
	changed := map[string]string{
		"simulator": OfflineKey("retrieve", 1, in),
		"seed":      OfflineKey("mix", 2, in),
		"point":     OfflineKey("mix", 1, OfflineInput{Condition: in.Condition, PointID: "p2", Agent: in.Agent, Pool: in.Pool}),
		"condition": OfflineKey("mix", 1, OfflineInput{Condition: CondNoProfile, PointID: in.PointID, Agent: in.Agent, Pool: in.Pool}),
		"agent":     OfflineKey("mix", 1, OfflineInput{Condition: in.Condition, PointID: in.PointID, Agent: "agent said", Pool: in.Pool}),
		"pool":      OfflineKey("mix", 1, OfflineInput{Condition: in.Condition, PointID: in.PointID, Agent: in.Agent, Pool: other}),
		"window":    OfflineKey("mix", 1, withContext(in, []ub.Turn{{Role: "developer", Text: "fix it"}, {Role: "agent", Text: in.Agent}}, nil)),
		"history":   OfflineKey("mix", 1, withContext(in, nil, []string{"an earlier message"})),
		"fallback":  OfflineKey("mix", 1, OfflineInput{Condition: in.Condition, PointID: in.PointID, Agent: in.Agent, Pool: in.Pool, PoolFallback: ScopeTrain}),
	}
	for what, k := range changed {
		if k == base {
			t.Errorf("a changed %s kept the key", what)
		}
	}
	fb := in
	fb.PoolFallback = ScopeTrain
	if got := OfflineRequest("mix", 1, fb).Parts().PoolFallback; got != ScopeTrain {
		t.Errorf("key parts of a fallback generation: pool_fallback %q, want %q", got, ScopeTrain)
	}
	if got := OfflineRequest("mix", 1, in).Parts().PoolFallback; got != "" {
		t.Errorf("key parts without fallback: pool_fallback %q", got)
	}
}

func TestPoolScope(t *testing.T) {
	for cond, want := range map[string]string{CondProfile: ScopeProfile, CondNoProfile: ScopeTrain, CondTerse: ScopeTrain} {
		if got := PoolScope(cond); got != want {
			t.Errorf("PoolScope(%s) = %s, want %s", cond, got, want)
		}
	}
}

func withContext(in OfflineInput, visible []ub.Turn, history []string) OfflineInput {
	in.Visible, in.History = visible, history
	return in
}

// windowFixture is a conversation whose early turns talk about the parser
// and whose latest agent turn is about the search box; the pool answers
// each topic differently. Only the turns before the moment are given.
func windowFixture() (*ReplyPool, []ub.Turn) {
	pool := NewReplyPool("profile:ann", []Pair{
		{"ann", "s1", 1, "The parser crashed with a null pointer in parser.go", 2, "PARSER-REPLY"},
		{"ann", "s2", 1, "I updated the search box component", 2, "SEARCH-REPLY"},
	})
	turns := []ub.Turn{
		{Role: "developer", Text: "the parser crashed with a null pointer, parser.go again, parser parser"},
		{Role: "agent", Text: "Looking at parser.go: null pointer in the parser."},
		{Role: "developer", Text: "SECRET-OUTSIDE-WINDOW parser parser parser"},
		{Role: "agent", Text: "I updated the search box"},
	}
	return pool, turns
}

func TestVisible(t *testing.T) {
	_, turns := windowFixture()
	tail := []ub.Turn{{Role: "agent", Text: "A"}, {Role: "tool", Text: "T"}, {Role: "developer", Text: "D"}}
	tests := []struct {
		name  string
		turns []ub.Turn
		n     int
		want  []string
	}{
		{"n=1 is the latest agent turn", turns, 1, []string{"I updated the search box"}},
		{"n=2 adds the turn before it", turns, 2, []string{"SECRET-OUTSIDE-WINDOW parser parser parser", "I updated the search box"}},
		{"n beyond the conversation shows all", turns, 99, []string{turns[0].Text, turns[1].Text, turns[2].Text, turns[3].Text}},
		{"the agent turn stays when it falls outside", tail, 1, []string{"A"}},
		{"the agent turn is put first", tail, 2, []string{"A", "D"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Visible(tt.turns, tt.n)
			var texts []string
			for _, g := range got {
				texts = append(texts, g.Text)
			}
			if fmt.Sprint(texts) != fmt.Sprint(tt.want) {
				t.Errorf("Visible(n=%d) = %q, want %q", tt.n, texts, tt.want)
			}
		})
	}
}

// TestOfflineWindow: at N = 1 neither simulator can use what lies outside
// the window; wider windows and longer histories change the output, the
// same way every time.
func TestOfflineWindow(t *testing.T) {
	pool, turns := windowFixture()
	agent, _ := LatestAgentTurn(turns)
	at := func(n int, history []string) OfflineInput {
		return OfflineInput{Condition: CondProfile, PointID: "p1", Agent: agent, Pool: pool, Visible: Visible(turns, n), History: history}
	}
	t.Run("retrieve at N=1 answers the agent turn alone", func(t *testing.T) {
		got, err := Retrieve{Seed: 1}.Generate(at(1, nil))
		if err != nil || got != "SEARCH-REPLY" {
			t.Fatalf("N=1: %q, %v; want SEARCH-REPLY", got, err)
		}
		// Changing every turn outside the window changes nothing.
		other := append([]ub.Turn(nil), turns...)
		other[0].Text, other[1].Text, other[2].Text = "zzz", "yyy", "xxx"
		in := at(1, nil)
		in.Visible = Visible(other, 1)
		if g, _ := (Retrieve{Seed: 1}).Generate(in); g != got {
			t.Errorf("N=1 output changed with turns outside the window: %q", g)
		}
		if OfflineKey("retrieve", 1, in) != OfflineKey("retrieve", 1, at(1, nil)) {
			t.Error("N=1 key changed with turns outside the window")
		}
	})
	t.Run("retrieve at N=4 sees the parser talk", func(t *testing.T) {
		for i := 0; i < 2; i++ {
			if got, _ := (Retrieve{Seed: 1}).Generate(at(4, nil)); got != "PARSER-REPLY" {
				t.Fatalf("N=4: %q, want PARSER-REPLY", got)
			}
		}
	})
	t.Run("retrieve with history K sees the earlier sessions", func(t *testing.T) {
		h := []string{"parser parser null pointer parser.go", "the parser crashed again"}
		if got, _ := (Retrieve{Seed: 1}).Generate(at(1, h)); got != "PARSER-REPLY" {
			t.Fatalf("N=1, K=2: %q, want PARSER-REPLY", got)
		}
		if OfflineKey("retrieve", 1, at(1, h)) == OfflineKey("retrieve", 1, at(1, nil)) {
			t.Error("K did not change the key")
		}
	})
	t.Run("mix at N=1 never returns a message outside the window", func(t *testing.T) {
		for i := 0; i < 200; i++ {
			in := at(1, nil)
			in.PointID = fmt.Sprintf("p%d", i)
			got, _ := Mix{Seed: 1}.Generate(in)
			if got != "PARSER-REPLY" && got != "SEARCH-REPLY" {
				t.Fatalf("%s: N=1 drew %q, not a pool reply", in.PointID, got)
			}
		}
	})
	t.Run("mix at N=4 draws the visible developer messages too", func(t *testing.T) {
		// Candidates: 2 pool replies, then the 2 visible developer turns.
		cands := []string{"PARSER-REPLY", "SEARCH-REPLY", turns[0].Text, turns[2].Text}
		hits := map[string]int{}
		for i := 0; i < 200; i++ {
			in := at(4, nil)
			in.PointID = fmt.Sprintf("p%d", i)
			got, _ := Mix{Seed: 1}.Generate(in)
			h := sha256.Sum256([]byte("mix\x001\x00" + in.PointID))
			if want := cands[binary.BigEndian.Uint64(h[:8])%4]; got != want {
				t.Fatalf("%s: N=4 mix = %q, want %q", in.PointID, got, want)
			}
			if again, _ := (Mix{Seed: 1}).Generate(in); again != got {
				t.Fatalf("%s: not deterministic", in.PointID)
			}
			hits[got]++
		}
		if hits[turns[2].Text] == 0 || hits[turns[0].Text] == 0 {
			t.Errorf("200 draws at N=4 never drew a visible developer message: %v", hits)
		}
	})
	t.Run("keys differ where the view differs", func(t *testing.T) {
		keys := map[string]bool{}
		for _, n := range []int{1, 2, 3, 4} {
			keys[OfflineKey("mix", 1, at(n, nil))] = true
		}
		if len(keys) != 4 {
			t.Errorf("4 windows showing different turns gave %d keys", len(keys))
		}
		if OfflineKey("mix", 1, at(4, nil)) != OfflineKey("mix", 1, at(40, nil)) {
			t.Error("N=4 and N=40 show the same turns but got different keys")
		}
	})
}

// BenchmarkOfflineWindow: one retrieve and one mix generation against a
// 1,000-pair pool, by live window N and history K. N=1/K=0 is the query the
// simulators made before they honoured N and K (the agent's latest turn).
func BenchmarkOfflineWindow(b *testing.B) {
	docs := synthDocs(1_000, 2)
	pairs := make([]Pair, len(docs))
	for i, d := range docs {
		pairs[i] = Pair{"ann", fmt.Sprintf("s%04d", i), 1, d, 2, "reply " + d}
	}
	pool := NewReplyPool("train", pairs)
	var turns []ub.Turn
	for i := 0; i < 30; i++ {
		role := "developer"
		if i%2 == 1 {
			role = "agent"
		}
		turns = append(turns, ub.Turn{Role: ub.Role(role), Text: docs[(i*37)%len(docs)]})
	}
	history := make([]string, 64)
	for i := range history {
		history[i] = docs[(i*53)%len(docs)]
	}
	agent, _ := LatestAgentTurn(turns)
	pool.Nearest(agent, 1) // build the index outside the timings
	for _, c := range []struct{ n, k int }{{1, 0}, {14, 0}, {14, 64}} {
		in := OfflineInput{Condition: CondNoProfile, PointID: "p1", Agent: agent, Pool: pool, Visible: Visible(turns, c.n), History: history[:c.k]}
		for _, o := range []Offline{Retrieve{Seed: 1}, Mix{Seed: 1}} {
			b.Run(fmt.Sprintf("%s/N=%d/K=%d", o.Name(), c.n, c.k), func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					if _, err := o.Generate(in); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
