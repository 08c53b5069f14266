package sim

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/ub-bench/ub"
	"github.com/ub-bench/ub/queries"
)

// DefaultProfileSeed seeds the example messages of a stats profile when no
// seed is given, and of a profile built on the fly for a prompt.
const DefaultProfileSeed = 1

// InputsOptions configures NewInputs. The zero value is valid.
type InputsOptions struct {
	// PersonaKind picks the persona of the profile condition: "stats"
	// (stored, or computed on the fly with DefaultProfileSeed) or "model"
	// (must be stored). "" means "stats".
	PersonaKind string
	// OnTheFly is called when a developer's stats persona is computed
	// because none is stored; nil means silent.
	OnTheFly func(developer string)
}

// Inputs loads, for frozen points, what prompts and offline simulators read
// from a workspace, caching personas and pools across points; one Inputs
// serves every point of a run. Safe for concurrent use (calls are
// serialised).
type Inputs struct {
	db   queries.Querier
	opts InputsOptions

	mu        sync.Mutex
	personas  map[string]string
	pools     map[string]*ReplyPool
	histories map[string]history
}

// history is a developer's most recent profile-session messages, most
// recent first, as read with a limit of k: every shorter history is a
// prefix of it.
type history struct {
	k    int
	msgs []string
}

// NewInputs returns a loader reading db.
func NewInputs(db queries.Querier, opts InputsOptions) *Inputs {
	if opts.PersonaKind == "" {
		opts.PersonaKind = "stats"
	}
	return &Inputs{db: db, opts: opts, personas: map[string]string{}, pools: map[string]*ReplyPool{},
		histories: map[string]history{}}
}

func toSimTurns(rows []queries.TurnRow) []ub.Turn {
	out := make([]ub.Turn, len(rows))
	for i, r := range rows {
		out[i] = ub.Turn{Role: ub.Role(r.Role), Text: r.Text, IsCommand: r.IsCommand}
	}
	return out
}

// history returns the developer's k most recent profile-session messages,
// read once per developer at the largest k asked so far (the k most recent
// are the first k of any longer read). Called with s.mu held.
func (s *Inputs) history(ctx context.Context, dev string, k int) ([]string, error) {
	if k <= 0 {
		return nil, nil
	}
	h, ok := s.histories[dev]
	if !ok || h.k < k {
		hs, err := queries.ProfileHistory(ctx, s.db, dev, k)
		if err != nil {
			return nil, err
		}
		h = history{k: k, msgs: make([]string, len(hs))}
		for i, m := range hs {
			h.msgs[i] = m.Text
		}
		s.histories[dev] = h
	}
	if len(h.msgs) == 0 {
		return nil, nil
	}
	return h.msgs[:min(k, len(h.msgs)):min(k, len(h.msgs))], nil
}

// Prompt returns the prompt input of a point under a condition with k
// earlier-session messages (from profile sessions only).
func (s *Inputs) Prompt(ctx context.Context, pd queries.PointData, condition string, k int) (PromptInput, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	in := PromptInput{Developer: pd.Point.Developer, Turns: toSimTurns(pd.Before)}
	var err error
	if in.History, err = s.history(ctx, pd.Point.Developer, k); err != nil {
		return in, err
	}
	if condition == CondProfile {
		p, err := s.persona(ctx, pd.Point.Developer)
		if err != nil {
			return in, err
		}
		in.Persona = p
	}
	return in, nil
}

// persona returns the developer's persona text of the loader's kind.
// Called with s.mu held.
func (s *Inputs) persona(ctx context.Context, dev string) (string, error) {
	if p, ok := s.personas[dev]; ok {
		return p, nil
	}
	row, ok, err := queries.GetProfile(ctx, s.db, dev, s.opts.PersonaKind)
	if err != nil {
		return "", fmt.Errorf("profile of %s: %w", dev, err)
	}
	switch {
	case ok:
		s.personas[dev] = row.Text
	case s.opts.PersonaKind == "model":
		return "", fmt.Errorf("developer %s has no model-written persona (distil one first, or use --persona stats)", dev)
	default:
		stats, err := StatsProfile(ctx, s.db, dev, DefaultProfileSeed)
		if err != nil {
			return "", err
		}
		if s.opts.OnTheFly != nil {
			s.opts.OnTheFly(dev)
		}
		s.personas[dev] = RenderPersona(stats)
	}
	return s.personas[dev], nil
}

// Offline returns the offline simulator input of a point under a condition
// at live window n and history k: the agent's latest turn, the turns the
// prompt would show (Visible), the k most recent profile-session messages,
// and the pool PoolScope names. With an empty profile pool the population's
// stands in, recorded in OfflineInput.PoolFallback.
func (s *Inputs) Offline(ctx context.Context, pd queries.PointData, condition string, n, k int) (OfflineInput, error) {
	turns := toSimTurns(pd.Before)
	agent, ok := LatestAgentTurn(turns)
	if !ok {
		return OfflineInput{}, fmt.Errorf("point %s: no agent turn before the moment", pd.Point.ID)
	}
	s.mu.Lock()
	history, err := s.history(ctx, pd.Point.Developer, k)
	s.mu.Unlock()
	if err != nil {
		return OfflineInput{}, err
	}
	pool, err := s.pool(ctx, condition, pd.Point.Developer)
	fallback := ""
	if errors.Is(err, ErrEmptyPool) && PoolScope(condition) == ScopeProfile {
		// An eligible developer gets a generation under every condition:
		// with an empty profile pool, the population's stands in, recorded
		// in the generation's key_parts.
		fallback = ScopeTrain
		pool, err = s.pool(ctx, CondNoProfile, pd.Point.Developer)
	}
	if err != nil {
		return OfflineInput{}, err
	}
	return OfflineInput{Condition: condition, PointID: pd.Point.ID, Agent: agent, Pool: pool, PoolFallback: fallback,
		Visible: Visible(turns, n), History: history}, nil
}

// pool returns (building once) the pool of an offline simulator under a
// condition: the developer's profile-session pairs, or every training
// developer's.
func (s *Inputs) pool(ctx context.Context, condition, dev string) (*ReplyPool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	name := ScopeTrain
	if PoolScope(condition) == ScopeProfile {
		name = ScopeProfile + ":" + dev
	}
	if p, ok := s.pools[name]; ok {
		return p, nil
	}
	var rows []queries.ReplyPair
	var err error
	if name == ScopeTrain {
		rows, err = queries.TrainPairs(ctx, s.db)
	} else {
		rows, err = queries.ProfilePairs(ctx, s.db, dev)
	}
	if err != nil {
		return nil, err
	}
	pairs := make([]Pair, len(rows))
	for i, r := range rows {
		pairs[i] = Pair{Developer: r.Developer, SessionID: r.SessionID, AgentIdx: r.AgentIdx, Agent: r.Agent,
			ReplyIdx: r.ReplyIdx, Reply: r.Reply}
	}
	p := NewReplyPool(name, pairs)
	if p.Len() == 0 {
		return nil, fmt.Errorf("pool %s: %w (no agent turn answered by a developer message)", name, ErrEmptyPool)
	}
	s.pools[name] = p
	return p, nil
}
