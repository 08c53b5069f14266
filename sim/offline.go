package sim

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"sync"
)

// Pool scopes.
const (
	ScopeProfile = "profile" // the developer's own profile sessions
	ScopeTrain   = "train"   // the profile sessions of every train-split developer
)

// PoolScope returns the pool an offline simulator draws from under a
// condition: the developer's own (ScopeProfile) for CondProfile, and the
// training developers' (ScopeTrain) for CondNoProfile and CondTerse (the
// terse prefix carries nothing about the developer, and an offline simulator
// has no prefix to make terse).
func PoolScope(condition string) string {
	if condition == CondProfile {
		return ScopeProfile
	}
	return ScopeTrain
}

// Pair is an agent turn and the developer reply that followed it: a moment of
// a profile session (a non-command developer turn) and the latest agent turn
// before it.
type Pair struct {
	Developer string
	SessionID string
	AgentIdx  int
	Agent     string
	ReplyIdx  int
	Reply     string
}

// ReplyPool is the pairs an offline simulator draws from, in a fixed order
// (session id, reply turn). It is safe for concurrent use; its TF-IDF index
// is built once, on the first retrieve.
type ReplyPool struct {
	Name    string // e.g. "profile:ann" or "train", for messages
	pairs   []Pair
	version string
	once    sync.Once
	index   *tfidfIndex
}

// NewReplyPool makes a pool of pairs (copied and sorted by session id and
// reply turn, so the input order does not matter).
func NewReplyPool(name string, pairs []Pair) *ReplyPool {
	ps := append([]Pair(nil), pairs...)
	sort.Slice(ps, func(i, j int) bool {
		if ps[i].SessionID != ps[j].SessionID {
			return ps[i].SessionID < ps[j].SessionID
		}
		return ps[i].ReplyIdx < ps[j].ReplyIdx
	})
	h := sha256.New()
	for _, p := range ps {
		fmt.Fprintf(h, "%s\x00%d\x00%d\x00%d:%s\x00%d:%s\x00", p.SessionID, p.AgentIdx, p.ReplyIdx,
			len(p.Agent), p.Agent, len(p.Reply), p.Reply)
	}
	return &ReplyPool{Name: name, pairs: ps, version: hex.EncodeToString(h.Sum(nil)[:6])}
}

// Len is the number of pairs.
func (p *ReplyPool) Len() int { return len(p.pairs) }

// Pair returns the i-th pair in pool order.
func (p *ReplyPool) Pair(i int) Pair { return p.pairs[i] }

// Version is a short hash of the pool's content (every pair's place and
// texts); it is part of every offline request key, so a changed pool makes
// new generations.
func (p *ReplyPool) Version() string { return p.version }

// Nearest returns the k pairs whose agent turns are most similar to text
// (TF-IDF cosine), most similar first, ties by pool order. Pairs sharing no
// term with text are not returned.
func (p *ReplyPool) Nearest(text string, k int) []Match {
	p.once.Do(func() {
		docs := make([]string, len(p.pairs))
		for i, pr := range p.pairs {
			docs[i] = pr.Agent
		}
		p.index = newTFIDFIndex(docs)
	})
	return p.index.search(text, k)
}

// OfflineInput is what an offline simulator sees for one generation.
type OfflineInput struct {
	Condition string     // CondProfile | CondNoProfile | CondTerse (see PoolScope)
	PointID   string     // the frozen point
	Agent     string     // the agent's latest turn before the moment (LatestAgentTurn)
	Pool      *ReplyPool // the pool PoolScope names for Condition
	// PoolFallback names the scope of Pool when it stands in for the pool
	// PoolScope names, which was empty (a developer none of whose profile
	// sessions has an agent turn answered by a developer message draws from
	// the training developers' pool); "" when Pool is the named pool. It is
	// part of the request, and so of every generation's key_parts.
	PoolFallback string
}

// Offline is a built-in simulator that needs no network.
//
// The built-in offline simulators are honest baselines that write text
// without a model (SPEC section 3):
//
//   - mix draws one developer reply from a pool, uniformly, seeded by the
//     simulator's seed and the point id. With the profile the pool is this
//     developer's profile-session replies, so its moves follow the
//     developer's own move mix (the chance line made concrete); without, all
//     training developers' replies.
//   - retrieve returns the developer reply that followed the pool's agent
//     turn most similar to the agent's latest turn before the moment (TF-IDF
//     cosine, see tfidfIndex; ties go to the earlier pair in pool order).
//     When no pool agent turn shares a term with it, retrieve falls back to
//     the mix draw.
//
// Which pool a condition uses is PoolScope's answer.
type Offline interface {
	// Name is the backend name: mix or retrieve.
	Name() string
	// Generate writes the developer's next message. The same input (and
	// seed) gives the same text.
	Generate(in OfflineInput) (string, error)
}

// ErrEmptyPool is returned when an offline simulator's pool has no pairs.
var ErrEmptyPool = errors.New("empty pool")

// NewOffline returns the offline simulator named by backend (mix or
// retrieve) with a seed.
func NewOffline(backend string, seed int64) (Offline, error) {
	switch backend {
	case "mix":
		return Mix{Seed: seed}, nil
	case "retrieve":
		return Retrieve{Seed: seed}, nil
	}
	return nil, fmt.Errorf("no offline simulator %q (mix, retrieve)", backend)
}

// Mix is the mix baseline: a seeded uniform draw from the pool's replies.
type Mix struct{ Seed int64 }

// Name is "mix".
func (Mix) Name() string { return "mix" }

// Generate returns the reply of pair sha256("mix", seed, point id) mod
// pool size.
func (m Mix) Generate(in OfflineInput) (string, error) {
	if in.Pool == nil || in.Pool.Len() == 0 {
		return "", fmt.Errorf("mix: point %s: %w", in.PointID, ErrEmptyPool)
	}
	return in.Pool.pairs[drawIndex(m.Seed, in.PointID, in.Pool.Len())].Reply, nil
}

func drawIndex(seed int64, pointID string, n int) int {
	h := sha256.Sum256([]byte("mix\x00" + strconv.FormatInt(seed, 10) + "\x00" + pointID))
	return int(binary.BigEndian.Uint64(h[:8]) % uint64(n))
}

// Retrieve is the retrieve baseline: the reply to the most similar earlier
// agent turn.
type Retrieve struct{ Seed int64 }

// Name is "retrieve".
func (Retrieve) Name() string { return "retrieve" }

// Generate returns the reply that followed the pool's agent turn most
// similar to in.Agent; when none shares a term with it, the mix draw.
func (r Retrieve) Generate(in OfflineInput) (string, error) {
	if in.Pool == nil || in.Pool.Len() == 0 {
		return "", fmt.Errorf("retrieve: point %s: %w", in.PointID, ErrEmptyPool)
	}
	if m := in.Pool.Nearest(in.Agent, 1); len(m) == 1 {
		return in.Pool.pairs[m[0].Doc].Reply, nil
	}
	return in.Pool.pairs[drawIndex(r.Seed, in.PointID, in.Pool.Len())].Reply, nil
}

// offlineAlgorithm versions each offline simulator's method; it is the
// request's Model, so a changed method re-runs.
var offlineAlgorithm = map[string]string{"mix": "mix-v1", "retrieve": TokenizerVersion}

// OfflineRequest is the cache request of one offline generation: Backend is
// the simulator's backend (mix or retrieve), Model its method version,
// Messages the agent turn it answers, and Params.Extra the seed, point,
// condition and pool version. Its Key recognises a re-run: it changes with
// any of them and with nothing else (not N or K, which offline simulators
// do not read).
func OfflineRequest(backend string, seed int64, in OfflineInput) Request {
	pool := ""
	if in.Pool != nil {
		pool = in.Pool.Version()
	}
	extra := map[string]any{"seed": strconv.FormatInt(seed, 10), "point": in.PointID, "condition": in.Condition, "pool": pool}
	if in.PoolFallback != "" {
		extra["pool_fallback"] = in.PoolFallback
	}
	return Request{
		Backend:  backend,
		Model:    offlineAlgorithm[backend],
		Messages: []Message{{Role: "user", Content: in.Agent}},
		Params:   Params{Extra: extra},
	}
}

// OfflineKey is OfflineRequest(backend, seed, in).Key().
func OfflineKey(backend string, seed int64, in OfflineInput) string {
	return OfflineRequest(backend, seed, in).Key()
}
