package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

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

func newPromptCommand(sio *streams) *cli.Command {
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
				return runPromptShow(c, sio, a[0], promptShowOptions{sim: c.String("sim"), condition: c.String("condition"),
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

func runPromptShow(c *cli.Context, sio *streams, arg string, opts promptShowOptions) error {
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
	in := sim.NewInputs(db, sim.InputsOptions{PersonaKind: opts.persona, OnTheFly: func(dev string) {
		fmt.Fprintf(sio.err, "note: no stored stats profile for %s; built it on the fly (ub profile stores it)\n", dev)
	}})
	p := pd.Point
	if sim.IsOffline(opts.sim) {
		return showOffline(ctx, sio, in, pd, opts)
	}
	pin, err := in.Prompt(ctx, pd, opts.condition, opts.history)
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
		return showJSON(sio, out, opts.real, pd)
	}
	showPoint(sio, p)
	who := ""
	if opts.sim != "" {
		who = "simulator " + opts.sim + ", "
	}
	fmt.Fprintf(sio.out, "%scondition %s, window %d, history %d, template version %s\n", who, opts.condition, opts.window, opts.history, version)
	for _, m := range msgs {
		fmt.Fprintf(sio.out, "== %s\n%s\n", m.Role, m.Content)
	}
	if opts.real {
		fmt.Fprintf(sio.out, "== real developer message (not sent)\n%s\n", pd.Real)
	}
	return nil
}

func showOffline(ctx context.Context, sio *streams, in *sim.Inputs, pd queries.PointData, opts promptShowOptions) error {
	oin, err := in.Offline(ctx, pd, opts.condition, opts.window, opts.history)
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
		return showJSON(sio, out, opts.real, pd)
	}
	showPoint(sio, p)
	fmt.Fprintf(sio.out, "simulator %s (offline, seed %d), condition %s, pool %s (%d pairs, version %s), request key %s\n",
		opts.sim, opts.seed, opts.condition, oin.Pool.Name, oin.Pool.Len(), oin.Pool.Version(), key)
	fmt.Fprintf(sio.out, "== agent's latest turn (the input)\n%s\n== output\n%s\n", oin.Agent, text)
	if opts.real {
		fmt.Fprintf(sio.out, "== real developer message\n%s\n", pd.Real)
	}
	return nil
}

// showJSON prints out as indented JSON, with the point's real message under
// "real" when asked for.
func showJSON(sio *streams, out map[string]any, real bool, pd queries.PointData) error {
	if real {
		out["real"] = pd.Real
	}
	enc := json.NewEncoder(sio.out)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// showPoint prints the line that names a point.
func showPoint(sio *streams, p queries.PointRow) {
	fmt.Fprintf(sio.out, "point %s: developer %s, session %s, turn %d (%d turns before it)\n",
		p.ID, p.Developer, p.SessionID, p.TurnIdx, p.PriorTurns)
}
