package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/sim"
)

type promptShowOptions struct {
	sim       string // "" or a model simulator: the prompt; mix | retrieve: the offline input and output
	condition string
	window    int
	history   int
	persona   string // stats | model
	seed      int64
	real      bool
	json      bool
}

func newPromptCommand(io *streams) *cli.Command {
	return &cli.Command{
		Name:  "prompt",
		Usage: "show what a simulator is sent for a frozen point",
		Subcommands: []*cli.Command{{
			Name:  "show",
			Usage: "print the exact messages a simulator would be sent at a point (POINT is an id, or @N: the N-th point by id)",
			Description: "N counts turns of any role back from the moment; the agent's latest turn is always shown\n" +
				"(it takes the first slot when the last N turns miss it). K earlier messages come from the\n" +
				"developer's profile sessions only. For an offline simulator (--sim mix|retrieve) it prints\n" +
				"the agent turn it answers, its pool and what it writes.",
			ArgsUsage: "POINT|@N",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "sim", Usage: "simulator `NAME`: mix or retrieve show the offline input; any other name the model prompt"},
				&cli.StringFlag{Name: "condition", Value: sim.CondProfile, Usage: "profile, noprofile or terse"},
				&cli.IntFlag{Name: "window", Value: sim.DefaultWindow, Usage: "N, turns of the session before the moment"},
				&cli.IntFlag{Name: "history", Value: 0, Usage: "K, the developer's most recent messages from profile sessions"},
				&cli.StringFlag{Name: "persona", Value: "stats", Usage: "persona `KIND` of the profile condition: stats or model"},
				&cli.Int64Flag{Name: "seed", Value: 1, Usage: "seed of an offline simulator"},
				&cli.BoolFlag{Name: "real", Usage: "also print the real developer message (never sent)"},
				&cli.BoolFlag{Name: "json", Usage: "print JSON"},
			},
			Action: func(c *cli.Context) error {
				a, err := args(c)
				if err != nil {
					return err
				}
				if len(a) != 1 {
					return usagef("prompt show: name one POINT (an id, or @N)")
				}
				return runPromptShow(c, io, a[0], promptShowOptions{sim: c.String("sim"), condition: c.String("condition"),
					window: c.Int("window"), history: c.Int("history"), persona: c.String("persona"),
					seed: c.Int64("seed"), real: c.Bool("real"), json: c.Bool("json")})
			},
		}},
	}
}

func (o promptShowOptions) validate() error {
	switch o.condition {
	case sim.CondProfile, sim.CondNoProfile, sim.CondTerse:
	default:
		return usagef("prompt show: --condition %q is not profile, noprofile or terse", o.condition)
	}
	if o.window < 1 || o.history < 0 {
		return usagef("prompt show: --window must be >= 1 and --history >= 0")
	}
	if o.persona != "stats" && o.persona != "model" {
		return usagef("prompt show: --persona %q is not stats or model", o.persona)
	}
	return nil
}

// resolvePoint turns POINT (an id or @N) into a point id.
func resolvePoint(ctx context.Context, db queries.Querier, arg string) (string, error) {
	if !strings.HasPrefix(arg, "@") {
		return arg, nil
	}
	n, err := strconv.Atoi(arg[1:])
	if err != nil || n < 1 {
		return "", usagef("point %q: @N needs a positive number", arg)
	}
	id, err := queries.NthPointID(ctx, db, n)
	if errors.Is(err, queries.ErrNoPoint) {
		return "", usagef("%v", err)
	}
	return id, err
}

func runPromptShow(c *cli.Context, io *streams, arg string, opts promptShowOptions) error {
	if err := opts.validate(); err != nil {
		return err
	}
	ws, err := openWorkspace(c, true)
	if err != nil {
		return err
	}
	defer ws.Close()
	ctx, db := c.Context, ws.Conn()
	id, err := resolvePoint(ctx, db, arg)
	if err != nil {
		return err
	}
	pd, err := queries.PointContext(ctx, db, id)
	if errors.Is(err, queries.ErrNoPoint) {
		return usagef("%v (see ub points export)", err)
	}
	if err != nil {
		return err
	}
	in := newSimInputs(db, opts.persona)
	in.onTheFly = func(dev string) {
		fmt.Fprintf(io.err, "note: no stored stats profile for %s; built it on the fly (ub profile stores it)\n", dev)
	}
	p := pd.Point
	if sim.IsOffline(opts.sim) {
		return showOffline(ctx, io, in, pd, opts)
	}
	pin, err := in.prompt(ctx, pd, opts.condition, opts.history)
	if err != nil {
		return err
	}
	popts := sim.PromptOptions{Condition: opts.condition, Window: opts.window, History: opts.history}
	msgs, version, err := sim.Build(pin, popts)
	if err != nil {
		return err
	}
	if opts.json {
		out := map[string]any{"point": p.ID, "developer": p.Developer, "session_id": p.SessionID, "turn_idx": p.TurnIdx,
			"condition": opts.condition, "window_n": opts.window, "history_k": opts.history,
			"prompt_version": version, "messages": msgs}
		if opts.real {
			out["real"] = pd.Real
		}
		enc := json.NewEncoder(io.out)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	fmt.Fprintf(io.out, "point %s: developer %s, session %s, turn %d (%d turns before it)\n",
		p.ID, p.Developer, p.SessionID, p.TurnIdx, p.PriorTurns)
	who := ""
	if opts.sim != "" {
		who = "simulator " + opts.sim + ", "
	}
	fmt.Fprintf(io.out, "%scondition %s, window %d, history %d, template version %s\n", who, opts.condition, opts.window, opts.history, version)
	for _, m := range msgs {
		fmt.Fprintf(io.out, "== %s\n%s\n", m.Role, m.Content)
	}
	if opts.real {
		fmt.Fprintf(io.out, "== real developer message (not sent)\n%s\n", pd.Real)
	}
	return nil
}

func showOffline(ctx context.Context, io *streams, in *simInputs, pd queries.PointData, opts promptShowOptions) error {
	oin, err := in.offline(ctx, pd, opts.condition, opts.window, opts.history)
	if err != nil {
		return err
	}
	o, err := sim.NewOffline(opts.sim, opts.seed)
	if err != nil {
		return usagef("%v", err)
	}
	text, err := o.Generate(oin)
	if err != nil {
		return err
	}
	key := sim.OfflineKey(opts.sim, opts.seed, oin)
	p := pd.Point
	if opts.json {
		out := map[string]any{"point": p.ID, "developer": p.Developer, "simulator": opts.sim, "seed": opts.seed,
			"condition": opts.condition, "pool": oin.Pool.Name, "pool_pairs": oin.Pool.Len(), "pool_version": oin.Pool.Version(),
			"request_key": key, "agent": oin.Agent, "output": text}
		if opts.real {
			out["real"] = pd.Real
		}
		enc := json.NewEncoder(io.out)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	fmt.Fprintf(io.out, "point %s: developer %s, session %s, turn %d (%d turns before it)\n",
		p.ID, p.Developer, p.SessionID, p.TurnIdx, p.PriorTurns)
	fmt.Fprintf(io.out, "simulator %s (offline, seed %d), condition %s, pool %s (%d pairs, version %s), request key %s\n",
		opts.sim, opts.seed, opts.condition, oin.Pool.Name, oin.Pool.Len(), oin.Pool.Version(), key)
	fmt.Fprintf(io.out, "== agent's latest turn (the input)\n%s\n== output\n%s\n", oin.Agent, text)
	if opts.real {
		fmt.Fprintf(io.out, "== real developer message\n%s\n", pd.Real)
	}
	return nil
}

// simInputs loads, for frozen points, what prompts and offline simulators
// read, caching personas and pools across points; ub generate can share one
// across all its points. Safe for concurrent use (calls are serialised).
type simInputs struct {
	db          queries.Querier
	personaKind string // stats | model
	onTheFly    func(developer string)

	mu       sync.Mutex
	personas map[string]string
	pools    map[string]*sim.ReplyPool
}

// newSimInputs returns a loader reading db; personaKind picks the persona of
// the profile condition: "stats" (computed on the fly, with the default
// seed, when not stored) or "model" (must be stored).
func newSimInputs(db queries.Querier, personaKind string) *simInputs {
	return &simInputs{db: db, personaKind: personaKind, personas: map[string]string{}, pools: map[string]*sim.ReplyPool{}}
}

func toSimTurns(rows []queries.TurnRow) []sim.Turn {
	out := make([]sim.Turn, len(rows))
	for i, r := range rows {
		out[i] = sim.Turn{Role: r.Role, Text: r.Text, IsCommand: r.IsCommand}
	}
	return out
}

// prompt returns the prompt input of a point under a condition with k
// earlier-session messages (from profile sessions only).
func (s *simInputs) prompt(ctx context.Context, pd queries.PointData, condition string, k int) (sim.PromptInput, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	in := sim.PromptInput{Developer: pd.Point.Developer, Turns: toSimTurns(pd.Before)}
	if k > 0 {
		hs, err := queries.ProfileHistory(ctx, s.db, pd.Point.Developer, k)
		if err != nil {
			return in, err
		}
		for _, h := range hs {
			in.History = append(in.History, h.Text)
		}
	}
	if condition == sim.CondProfile {
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
func (s *simInputs) persona(ctx context.Context, dev string) (string, error) {
	if p, ok := s.personas[dev]; ok {
		return p, nil
	}
	row, ok, err := queries.GetProfile(ctx, s.db, dev, s.personaKind)
	if err != nil {
		return "", fmt.Errorf("profile of %s: %w", dev, err)
	}
	switch {
	case ok:
		s.personas[dev] = row.Text
	case s.personaKind == "model":
		return "", fmt.Errorf("developer %s has no model-written persona (distil one first, or use --persona stats)", dev)
	default:
		stats, err := statsProfile(ctx, s.db, dev, defaultProfileSeed)
		if err != nil {
			return "", err
		}
		if s.onTheFly != nil {
			s.onTheFly(dev)
		}
		s.personas[dev] = sim.RenderPersona(stats)
	}
	return s.personas[dev], nil
}

// offline returns the offline simulator input of a point under a condition
// at live window n and history k: the agent's latest turn, the turns the
// prompt would show (sim.Visible), the k most recent profile-session
// messages, and the pool sim.PoolScope names.
func (s *simInputs) offline(ctx context.Context, pd queries.PointData, condition string, n, k int) (sim.OfflineInput, error) {
	turns := toSimTurns(pd.Before)
	agent, ok := sim.LatestAgentTurn(turns)
	if !ok {
		return sim.OfflineInput{}, fmt.Errorf("point %s: no agent turn before the moment", pd.Point.ID)
	}
	var history []string
	if k > 0 {
		s.mu.Lock()
		hs, err := queries.ProfileHistory(ctx, s.db, pd.Point.Developer, k)
		s.mu.Unlock()
		if err != nil {
			return sim.OfflineInput{}, err
		}
		for _, h := range hs {
			history = append(history, h.Text)
		}
	}
	pool, err := s.pool(ctx, condition, pd.Point.Developer)
	fallback := ""
	if errors.Is(err, sim.ErrEmptyPool) && sim.PoolScope(condition) == sim.ScopeProfile {
		// An eligible developer gets a generation under every condition:
		// with an empty profile pool, the population's stands in, recorded
		// in the generation's key_parts.
		fallback = sim.ScopeTrain
		pool, err = s.pool(ctx, sim.CondNoProfile, pd.Point.Developer)
	}
	if err != nil {
		return sim.OfflineInput{}, err
	}
	return sim.OfflineInput{Condition: condition, PointID: pd.Point.ID, Agent: agent, Pool: pool, PoolFallback: fallback,
		Visible: sim.Visible(turns, n), History: history}, nil
}

// pool returns (building once) the pool of an offline simulator under a
// condition: the developer's profile-session pairs, or every training
// developer's.
func (s *simInputs) pool(ctx context.Context, condition, dev string) (*sim.ReplyPool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	name := sim.ScopeTrain
	if sim.PoolScope(condition) == sim.ScopeProfile {
		name = sim.ScopeProfile + ":" + dev
	}
	if p, ok := s.pools[name]; ok {
		return p, nil
	}
	var rows []queries.ReplyPair
	var err error
	if name == sim.ScopeTrain {
		rows, err = queries.TrainPairs(ctx, s.db)
	} else {
		rows, err = queries.ProfilePairs(ctx, s.db, dev)
	}
	if err != nil {
		return nil, err
	}
	pairs := make([]sim.Pair, len(rows))
	for i, r := range rows {
		pairs[i] = sim.Pair{Developer: r.Developer, SessionID: r.SessionID, AgentIdx: r.AgentIdx, Agent: r.Agent,
			ReplyIdx: r.ReplyIdx, Reply: r.Reply}
	}
	p := sim.NewReplyPool(name, pairs)
	if p.Len() == 0 {
		return nil, fmt.Errorf("pool %s: %w (no agent turn answered by a developer message)", name, sim.ErrEmptyPool)
	}
	s.pools[name] = p
	return p, nil
}
