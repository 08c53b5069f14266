package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/sim"
)

type profileOptions struct {
	developer string
	show      string
	seed      int64
	json      bool
	model     modelEndpoint // the distilling model endpoint
}

func newProfileCommand(sio *streams) *cli.Command {
	return &cli.Command{
		Name:  "profile",
		Usage: "build and store the statistical profile of every developer (or one), from profile sessions only",
		Description: "A profile reads only the developer's profile sessions (the earlier part of the time split):\n" +
			"message length (median, p90 words), share with code or paths, question share, typical openings,\n" +
			"a seeded choice of short example messages, and the move mix when labels exist. It is rendered to\n" +
			"the persona text of the profile condition and stored in profiles (kind stats).",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "developer", Usage: "build only this `DEVELOPER`'s profile"},
			&cli.StringFlag{Name: "show", Usage: "print the stored profile of `DEVELOPER` instead of building"},
			&cli.Int64Flag{Name: "seed", Value: sim.DefaultProfileSeed, Usage: "seed of the example messages"},
			&cli.BoolFlag{Name: "json", Usage: "print JSON"},
			&cli.StringFlag{Name: "model", Usage: "also distil a model-written persona with model `NAME` at --base-url (versioned distillation prompt, through the runner)"},
		}, endpointFlags("distilling model")...),
		Action: func(c *cli.Context) error {
			if _, err := args(c); err != nil {
				return err
			}
			opts := profileOptions{developer: c.String("developer"), show: c.String("show"), seed: c.Int64("seed"), json: c.Bool("json"),
				model: endpointFromFlags(c)}
			if opts.show != "" {
				if opts.developer != "" {
					return usagef("profile: --show and --developer do not go together")
				}
				return runProfileShow(c, sio, opts)
			}
			return runProfile(c, sio, opts)
		},
	}
}

func runProfile(c *cli.Context, sio *streams, opts profileOptions) error {
	ws, err := openWorkspace(c, false)
	if err != nil {
		return err
	}
	defer ws.Close()
	ctx := c.Context
	if _, err := queries.GetSplitRun(ctx, ws.Conn()); err != nil {
		return err
	}
	stats, err := sim.StoreStatsProfiles(ctx, ws, sim.StatsProfilesOptions{Developer: opts.developer, Seed: opts.seed})
	if errors.Is(err, sim.ErrNoProfileSessions) {
		return usagef("profile: developer %q has no profile sessions", opts.developer)
	}
	if err != nil {
		return err
	}
	if opts.model.model != "" {
		if err := distilProfiles(c, sio, ws, stats, opts); err != nil {
			return err
		}
	}
	if opts.json {
		enc := json.NewEncoder(sio.out)
		enc.SetIndent("", "  ")
		return enc.Encode(stats)
	}
	tw := tabwriter.NewWriter(sio.out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "developer\tsessions\tmessages\tmedian words\tp90 words\tcode\tquestions")
	for _, s := range stats {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f\t%.1f\t%.0f%%\t%.0f%%\n", s.Developer, s.Sessions, s.Messages,
			s.MedianWords, s.P90Words, 100*s.CodeShare, 100*s.QuestionShare)
	}
	tw.Flush()
	fmt.Fprintf(sio.out, "stored %d stats profiles (persona template %s, seed %d)\n", len(stats), sim.PersonaTemplate().Version, opts.seed)
	return nil
}

func runProfileShow(c *cli.Context, sio *streams, opts profileOptions) error {
	ws, err := openWorkspace(c, true)
	if err != nil {
		return err
	}
	defer ws.Close()
	ctx, db := c.Context, ws.Conn()
	st, ok, err := queries.GetProfile(ctx, db, opts.show, "stats")
	if err != nil {
		return err
	}
	model, mok, err := queries.GetProfile(ctx, db, opts.show, "model")
	if err != nil {
		return err
	}
	if !ok && !mok {
		return usagef("profile --show: no profile of %q (run ub profile)", opts.show)
	}
	if opts.json {
		out := map[string]any{"developer": opts.show}
		if ok {
			out["stats"] = json.RawMessage(st.Stats)
			out["text"] = st.Text
			out["prompt_version"] = st.PromptVersion
		}
		if mok {
			out["model"] = map[string]string{"model": model.Model, "prompt_version": model.PromptVersion,
				"request_key": model.RequestKey, "text": model.Text}
		}
		enc := json.NewEncoder(sio.out)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	if ok {
		fmt.Fprintf(sio.out, "developer %s: stats profile (persona template %s)\n%s\n", opts.show, st.PromptVersion, st.Text)
	}
	if mok {
		fmt.Fprintf(sio.out, "\ndeveloper %s: model-written persona (model %s, distillation prompt %s)\n%s\n",
			opts.show, model.Model, model.PromptVersion, model.Text)
	}
	return nil
}

// distilProfiles distils a model-written persona of each profiled
// developer (sim.Distil) and reports it.
func distilProfiles(c *cli.Context, sio *streams, ws *queries.Workspace, stats []sim.ProfileStats, opts profileOptions) error {
	bar, done := generateProgress(sio, "distil")
	res, err := sim.Distil(c.Context, ws, stats, sim.DistilOptions{Model: opts.model.model, Endpoint: opts.model.endpoint,
		Seed: opts.seed, RetryFailed: opts.model.retryFailed, Progress: bar, Clock: sio.clock,
		Preflight: func() error { return requireAPIKey(opts.model.endpoint.APIKeyEnv) }})
	done()
	if err != nil {
		return err
	}
	fmt.Fprintf(sio.out, "distilled %d model-written personas with %s (prompt %s): %d sent, %d cached, $%.4f\n",
		res.Stored, opts.model.model, res.Template, res.Stats.Sent, res.Stats.Cached, res.Stats.Cost)
	for _, f := range res.Failed {
		fmt.Fprintln(sio.err, "failed:", f)
	}
	if len(res.Failed) > 0 {
		return fmt.Errorf("profile: %d persona(s) failed (recorded in responses; --retry-failed sends the retryable ones again): %w", len(res.Failed), errGenerationsFailed)
	}
	return nil
}
