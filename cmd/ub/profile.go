package main

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/sim"
)

// defaultProfileSeed seeds the example messages of a stats profile when
// --seed is not given (and of a profile built on the fly by ub prompt show).
const defaultProfileSeed = 1

type profileOptions struct {
	developer string
	show      string
	seed      int64
	json      bool
	model     modelEndpoint // the distilling model endpoint
}

func newProfileCommand(io *streams) *cli.Command {
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
			&cli.Int64Flag{Name: "seed", Value: defaultProfileSeed, Usage: "seed of the example messages"},
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
				return runProfileShow(c, io, opts)
			}
			return runProfile(c, io, opts)
		},
	}
}

// statsProfile computes one developer's statistical profile from their
// profile-session messages.
func statsProfile(ctx context.Context, db queries.Querier, dev string, seed int64) (sim.ProfileStats, error) {
	rows, err := queries.ProfileMessages(ctx, db, dev)
	if err != nil {
		return sim.ProfileStats{}, err
	}
	return sim.ComputeProfile(dev, toProfileMessages(rows), sim.ProfileOptions{Seed: seed}), nil
}

func toProfileMessages(rows []queries.DeveloperMessage) []sim.ProfileMessage {
	out := make([]sim.ProfileMessage, len(rows))
	for i, r := range rows {
		out[i] = sim.ProfileMessage{SessionID: r.SessionID, TurnIdx: r.TurnIdx, Text: r.Text}
	}
	return out
}

// buildStatsProfiles computes the stats profiles of every developer with
// profile sessions (or of dev alone), by developer, with their stored rows.
// Move labels are not read yet: the judge labels frozen points, not
// profile-session messages, so MoveMix stays empty until it does.
func buildStatsProfiles(ctx context.Context, db queries.Querier, dev string, seed int64) ([]sim.ProfileStats, []queries.ProfileRow, error) {
	devs, err := queries.ProfileDevelopers(ctx, db)
	if err != nil {
		return nil, nil, err
	}
	msgs, err := queries.ProfileMessages(ctx, db, dev)
	if err != nil {
		return nil, nil, err
	}
	byDev := map[string][]queries.DeveloperMessage{}
	for _, m := range msgs {
		byDev[m.Developer] = append(byDev[m.Developer], m)
	}
	version := sim.PersonaTemplate().Version
	var stats []sim.ProfileStats
	var rows []queries.ProfileRow
	for _, d := range devs { // sorted by name
		if dev != "" && d.Name != dev {
			continue
		}
		s := sim.ComputeProfile(d.Name, toProfileMessages(byDev[d.Name]), sim.ProfileOptions{Seed: seed})
		b, err := json.Marshal(s)
		if err != nil {
			return nil, nil, err
		}
		stats = append(stats, s)
		rows = append(rows, queries.ProfileRow{Developer: d.Name, Kind: "stats", PromptVersion: version,
			Text: sim.RenderPersona(s), Stats: string(b)})
	}
	if dev != "" && len(rows) == 0 {
		return nil, nil, usagef("profile: developer %q has no profile sessions", dev)
	}
	return stats, rows, nil
}

func runProfile(c *cli.Context, io *streams, opts profileOptions) error {
	ws, err := openWorkspace(c, false)
	if err != nil {
		return err
	}
	defer ws.Close()
	ctx := c.Context
	if _, err := queries.GetSplitRun(ctx, ws.Conn()); err != nil {
		return err
	}
	stats, rows, err := buildStatsProfiles(ctx, ws.Conn(), opts.developer, opts.seed)
	if err != nil {
		return err
	}
	if err := queries.StoreProfiles(ctx, ws, rows); err != nil {
		return fmt.Errorf("profile: store: %w", err)
	}
	tmpl := sim.PersonaTemplate()
	if err := queries.StorePromptTemplate(ctx, ws.Conn(), tmpl.Version, tmpl.Name, tmpl.Text); err != nil {
		return fmt.Errorf("profile: store template: %w", err)
	}
	if opts.model.model != "" {
		if err := distilProfiles(c, io, ws, stats, opts); err != nil {
			return err
		}
	}
	if opts.json {
		enc := json.NewEncoder(io.out)
		enc.SetIndent("", "  ")
		return enc.Encode(stats)
	}
	tw := tabwriter.NewWriter(io.out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "developer\tsessions\tmessages\tmedian words\tp90 words\tcode\tquestions")
	for _, s := range stats {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f\t%.1f\t%.0f%%\t%.0f%%\n", s.Developer, s.Sessions, s.Messages,
			s.MedianWords, s.P90Words, 100*s.CodeShare, 100*s.QuestionShare)
	}
	tw.Flush()
	fmt.Fprintf(io.out, "stored %d stats profiles (persona template %s, seed %d)\n", len(stats), tmpl.Version, opts.seed)
	return nil
}

func runProfileShow(c *cli.Context, io *streams, opts profileOptions) error {
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
		enc := json.NewEncoder(io.out)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	if ok {
		fmt.Fprintf(io.out, "developer %s: stats profile (persona template %s)\n%s\n", opts.show, st.PromptVersion, st.Text)
	}
	if mok {
		fmt.Fprintf(io.out, "\ndeveloper %s: model-written persona (model %s, distillation prompt %s)\n%s\n",
			opts.show, model.Model, model.PromptVersion, model.Text)
	}
	return nil
}

// distilProfiles asks a model to write each developer's persona from their
// statistical profile and example messages (profile sessions only), through
// the runner with its cache, and stores the answers as kind "model".
func distilProfiles(c *cli.Context, io *streams, ws *queries.Workspace, stats []sim.ProfileStats, opts profileOptions) error {
	ctx := c.Context
	tmpl := sim.DistillTemplate()
	if err := queries.StorePromptTemplate(ctx, ws.Conn(), tmpl.Version, tmpl.Name, tmpl.Text); err != nil {
		return err
	}
	if err := requireAPIKey(opts.model.endpoint.APIKeyEnv); err != nil {
		return err
	}
	step := sim.Step[sim.ProfileStats, queries.ProfileRow]{
		Endpoint: opts.model.endpoint,
		Build: func(st sim.ProfileStats) (sim.Request, error) {
			rows, err := queries.ProfileMessages(ctx, ws.Conn(), st.Developer)
			if err != nil {
				return sim.Request{}, err
			}
			req := sim.DistillRequest(st, sim.SampleMessages(toProfileMessages(rows), 12, opts.seed, false))
			req.Backend, req.BaseURL, req.Model = "openai", opts.model.endpoint.BaseURL, opts.model.model
			return req, nil
		},
		Parse: func(st sim.ProfileStats, a sim.Answer) ([]queries.ProfileRow, error) {
			if !a.Stored {
				return nil, fmt.Errorf("%s: no answer", st.Developer)
			}
			row, err := distilledProfile(st.Developer, opts.model.model, a)
			if err != nil {
				return nil, err
			}
			return []queries.ProfileRow{row}, nil
		},
	}
	bar, done := generateProgress(io, "distil")
	res, err := sim.RunStep(ctx, sim.NewDuckStore(ws), stats, step, sim.StepOptions{RetryFailed: opts.model.retryFailed, Progress: bar})
	done()
	if err != nil {
		return fmt.Errorf("profile: distil: %w", err)
	}
	rows, st := res.Rows, res.Stats
	var failed []string
	for _, f := range res.Failures {
		failed = append(failed, f.Err.Error())
	}
	if err := queries.StoreProfiles(ctx, ws, rows); err != nil {
		return fmt.Errorf("profile: store: %w", err)
	}
	fmt.Fprintf(io.out, "distilled %d model-written personas with %s (prompt %s): %d sent, %d cached, $%.4f\n",
		len(rows), opts.model.model, tmpl.Version, st.Sent, st.Cached, st.Cost)
	for _, f := range failed {
		fmt.Fprintln(io.err, "failed:", f)
	}
	if len(failed) > 0 {
		return fmt.Errorf("profile: %d persona(s) failed (recorded in responses; --retry-failed sends the retryable ones again): %w", len(failed), errGenerationsFailed)
	}
	return nil
}

// distilledProfile is the stored row of a model-written persona: the stored
// answer to the distillation request (sim.DistillRequest) of model. Store it
// with queries.StoreProfiles.
func distilledProfile(dev, model string, a sim.Answer) (queries.ProfileRow, error) {
	text, err := sim.ModelPersona(a.Response)
	if err != nil {
		return queries.ProfileRow{}, fmt.Errorf("persona of %s: %w", dev, err)
	}
	return queries.ProfileRow{Developer: dev, Kind: "model", Model: model,
		PromptVersion: sim.DistillTemplate().Version, RequestKey: a.Key, Text: text}, nil
}
