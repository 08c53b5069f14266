package sim

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"testing"
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
	if req.Backend != "retrieve" || req.Model != TokenizerVersion || req.Key() != OfflineKey("retrieve", 1, in) {
		t.Errorf("request = %+v", req)
	}
	changed := map[string]string{
		"simulator": OfflineKey("retrieve", 1, in),
		"seed":      OfflineKey("mix", 2, in),
		"point":     OfflineKey("mix", 1, OfflineInput{in.Condition, "p2", in.Agent, in.Pool, ""}),
		"condition": OfflineKey("mix", 1, OfflineInput{CondNoProfile, in.PointID, in.Agent, in.Pool, ""}),
		"agent":     OfflineKey("mix", 1, OfflineInput{in.Condition, in.PointID, "agent said", in.Pool, ""}),
		"pool":      OfflineKey("mix", 1, OfflineInput{in.Condition, in.PointID, in.Agent, other, ""}),
		"fallback":  OfflineKey("mix", 1, OfflineInput{in.Condition, in.PointID, in.Agent, in.Pool, ScopeTrain}),
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
