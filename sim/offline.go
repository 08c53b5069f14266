package sim

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/ub-bench/ub"
	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/sim/runner"
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
// before it: the row queries reads (its fields, defined once there).
type Pair queries.ReplyPair

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
	// Visible is what the prompt at the generation's live window N would
	// show of the conversation (Visible(turns, N): the last N turns, the
	// agent's latest turn always among them). nil means only the agent's
	// latest turn (Agent), as at N = 1.
	Visible []ub.Turn
	// History is the developer's K most recent messages from earlier
	// sessions, MOST RECENT FIRST, as the prompt prepends them at K > 0;
	// nil at K = 0.
	History []string
	// Sample is the trial: 0 for the first, t for trial t + 1 of an
	// experiment with trials > 1. mix draws again for every trial
	// (drawIndex); retrieve is deterministic and differs between trials
	// only where it falls back to the mix draw. It is the request's
	// Sample, so that each trial has its own key.
	Sample int
}

// Visible returns the turns a prompt at live window n shows of turns (the
// turns before a moment): the last n, with the agent's latest turn put
// first when it falls outside them, as Build shows them. n < 1 is taken as 1.
func Visible(turns []ub.Turn, n int) []ub.Turn {
	shown, _ := window(turns, max(n, 1))
	return append([]ub.Turn(nil), shown...)
}

// visibleTurns is in.Visible, or the agent's latest turn alone when nil.
func (in OfflineInput) visibleTurns() []ub.Turn {
	if in.Visible != nil {
		return in.Visible
	}
	return []ub.Turn{{Role: "agent", Text: in.Agent}}
}

// query is the text retrieve searches with: the K history messages (oldest
// first, as the prompt shows them), then the visible turns in order. With
// N = 1 and K = 0 it is the agent's latest turn alone.
func (in OfflineInput) query() string {
	var parts []string
	for i := len(in.History) - 1; i >= 0; i-- {
		parts = append(parts, in.History[i])
	}
	for _, t := range in.visibleTurns() {
		if !t.IsCommand {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// seen is the developer messages the prompt shows: the visible developer
// turns (not commands) in order, then the K history messages, most recent
// first.
func (in OfflineInput) seen() []string {
	var out []string
	for _, t := range in.visibleTurns() {
		if t.Role == "developer" && !t.IsCommand && strings.TrimSpace(t.Text) != "" {
			out = append(out, t.Text)
		}
	}
	for _, h := range in.History {
		if strings.TrimSpace(h) != "" {
			out = append(out, h)
		}
	}
	return out
}

// Offline is a built-in simulator that needs no network.
//
// The built-in offline simulators are honest baselines that write text
// without a model (SPEC section 3):
//
//   - mix draws one developer reply uniformly from the pool's replies
//     followed by the developer messages the prompt shows (the visible
//     developer turns of the window, then the K history messages), seeded by
//     the simulator's seed, the point id and (after the first) the trial. With the profile the pool is this
//     developer's profile-session replies, so its moves follow the
//     developer's own move mix (the chance line made concrete); without, all
//     training developers' replies. The visible messages shift that mix
//     toward what the developer said in view: a wider window or a longer
//     history conditions it on more.
//   - retrieve returns the developer reply that followed the pool's agent
//     turn most similar to the visible context (TF-IDF cosine over the K
//     history messages and the visible turns, see tfidfIndex; ties go to the
//     earlier pair in pool order). At N = 1 and K = 0 the query is the
//     agent's latest turn alone. When no pool agent turn shares a term with
//     it, retrieve falls back to the mix draw.
//
// Neither reads a turn outside the window (Visible) or more history than K:
// they see what the prompt would show. Which pool a condition uses is
// PoolScope's answer.
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

// Generate returns candidate sha256("mix", seed, point id[, trial]) mod c
// (drawIndex), where the
// c candidates are the pool's replies in pool order followed by the
// developer messages the prompt shows (OfflineInput.seen). With nothing of
// the developer in view, that is the pool's reply of the same index.
func (m Mix) Generate(in OfflineInput) (string, error) {
	if in.Pool == nil || in.Pool.Len() == 0 {
		return "", fmt.Errorf("mix: point %s: %w", in.PointID, ErrEmptyPool)
	}
	return mixDraw(m.Seed, in), nil
}

func mixDraw(seed int64, in OfflineInput) string {
	seen := in.seen()
	i := drawIndex(seed, in.PointID, in.Sample, in.Pool.Len()+len(seen))
	if i < in.Pool.Len() {
		return in.Pool.pairs[i].Reply
	}
	return seen[i-in.Pool.Len()]
}

// drawIndex is the mix draw of one of n candidates: the first 8 bytes of
// sha256("mix" NUL seed NUL point id), big-endian, mod n; a trial after the
// first (sample > 0) appends NUL and its index, so that every trial draws
// on its own and the first trial draws what a single-trial study does.
func drawIndex(seed int64, pointID string, sample, n int) int {
	msg := "mix\x00" + strconv.FormatInt(seed, 10) + "\x00" + pointID
	if sample > 0 {
		msg += "\x00" + strconv.Itoa(sample)
	}
	h := sha256.Sum256([]byte(msg))
	return int(binary.BigEndian.Uint64(h[:8]) % uint64(n))
}

// Retrieve is the retrieve baseline: the reply to the most similar earlier
// agent turn.
type Retrieve struct{ Seed int64 }

// Name is "retrieve".
func (Retrieve) Name() string { return "retrieve" }

// Generate returns the reply that followed the pool's agent turn most
// similar to the visible context (OfflineInput.query); when none shares a
// term with it, the mix draw.
func (r Retrieve) Generate(in OfflineInput) (string, error) {
	if in.Pool == nil || in.Pool.Len() == 0 {
		return "", fmt.Errorf("retrieve: point %s: %w", in.PointID, ErrEmptyPool)
	}
	if m := in.Pool.Nearest(in.query(), 1); len(m) == 1 {
		return in.Pool.pairs[m[0].Doc].Reply, nil
	}
	return mixDraw(r.Seed, in), nil
}

// offlineAlgorithm versions each offline simulator's method; it is the
// request's Model, so a changed method re-runs.
var offlineAlgorithm = map[string]string{"mix": "mix-v2", "retrieve": TokenizerVersion + "+window"}

// OfflineRequest is the cache request of one offline generation: Backend is
// the simulator's backend (mix or retrieve), Model its method version,
// Messages what it sees (the K history messages, oldest first, with role
// "history", then the visible turns with their roles; the agent turn alone,
// with role "user", when nothing else is in view), and Params.Extra the
// seed, point, condition and pool version; Sample the trial. Its Key recognises a re-run: it
// changes with any of them and with nothing else, so N and K change it
// exactly where they change what the simulator sees, and a generation made
// at one N or K is never taken for another's.
func OfflineRequest(backend string, seed int64, in OfflineInput) runner.Request {
	pool := ""
	if in.Pool != nil {
		pool = in.Pool.Version()
	}
	extra := map[string]any{"seed": strconv.FormatInt(seed, 10), "point": in.PointID, "condition": in.Condition, "pool": pool}
	if in.PoolFallback != "" {
		extra["pool_fallback"] = in.PoolFallback
	}
	return runner.Request{
		Backend:  backend,
		Model:    offlineAlgorithm[backend],
		Messages: offlineMessages(in),
		Params:   runner.Params{Extra: extra},
		Sample:   in.Sample,
	}
}

func offlineMessages(in OfflineInput) []runner.Message {
	vis := in.visibleTurns()
	if len(in.History) == 0 && len(vis) == 1 && vis[0].Role == "agent" && vis[0].Text == in.Agent {
		return []runner.Message{{Role: "user", Content: in.Agent}}
	}
	var msgs []runner.Message
	for i := len(in.History) - 1; i >= 0; i-- {
		msgs = append(msgs, runner.Message{Role: "history", Content: in.History[i]})
	}
	for _, t := range vis {
		role := string(t.Role)
		if t.IsCommand {
			role += "/command"
		}
		msgs = append(msgs, runner.Message{Role: role, Content: t.Text})
	}
	return msgs
}

// OfflineKey is OfflineRequest(backend, seed, in).Key().
func OfflineKey(backend string, seed int64, in OfflineInput) string {
	return OfflineRequest(backend, seed, in).Key()
}
