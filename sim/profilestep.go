package sim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/sim/runner"
)

// ErrNoProfileSessions is returned by StoreStatsProfiles for a developer
// named in its options who has no profile sessions.
var ErrNoProfileSessions = errors.New("no profile sessions")

// StatsProfile computes one developer's statistical profile from their
// profile-session messages, with seed for the example messages.
func StatsProfile(ctx context.Context, db queries.Querier, dev string, seed int64) (ProfileStats, error) {
	rows, err := queries.ProfileMessages(ctx, db, dev)
	if err != nil {
		return ProfileStats{}, err
	}
	return ComputeProfile(dev, toProfileMessages(rows), ProfileOptions{Seed: seed}), nil
}

func toProfileMessages(rows []queries.DeveloperMessage) []ProfileMessage {
	out := make([]ProfileMessage, len(rows))
	for i, r := range rows {
		out[i] = ProfileMessage{SessionID: r.SessionID, TurnIdx: r.TurnIdx, Text: r.Text}
	}
	return out
}

// StatsProfilesOptions configures StoreStatsProfiles. The zero value is
// valid.
type StatsProfilesOptions struct {
	Developer string // "" means every developer with profile sessions
	Seed      int64  // seed of the example messages
}

// StoreStatsProfiles computes the stats profiles of every developer with
// profile sessions (or of opts.Developer alone: ErrNoProfileSessions when
// they have none), stores them with their rendered persona text as kind
// "stats", stores the persona template, and returns the profiles by
// developer name. Move labels are not read yet: the judge labels frozen
// points, not profile-session messages, so MoveMix stays empty until it
// does.
func StoreStatsProfiles(ctx context.Context, ws *queries.Workspace, opts StatsProfilesOptions) ([]ProfileStats, error) {
	db := ws.Conn()
	devs, err := queries.ProfileDevelopers(ctx, db)
	if err != nil {
		return nil, err
	}
	msgs, err := queries.ProfileMessages(ctx, db, opts.Developer)
	if err != nil {
		return nil, err
	}
	byDev := map[string][]queries.DeveloperMessage{}
	for _, m := range msgs {
		byDev[m.Developer] = append(byDev[m.Developer], m)
	}
	tmpl := PersonaTemplate()
	var stats []ProfileStats
	var rows []queries.ProfileRow
	for _, d := range devs { // sorted by name
		if opts.Developer != "" && d.Name != opts.Developer {
			continue
		}
		s := ComputeProfile(d.Name, toProfileMessages(byDev[d.Name]), ProfileOptions{Seed: opts.Seed})
		b, err := json.Marshal(s)
		if err != nil {
			return nil, err
		}
		stats = append(stats, s)
		rows = append(rows, queries.ProfileRow{Developer: d.Name, Kind: "stats", PromptVersion: tmpl.Version,
			Text: RenderPersona(s), Stats: string(b)})
	}
	if opts.Developer != "" && len(rows) == 0 {
		return nil, fmt.Errorf("developer %q: %w", opts.Developer, ErrNoProfileSessions)
	}
	if err := queries.StoreProfiles(ctx, ws, rows); err != nil {
		return nil, fmt.Errorf("profile: store: %w", err)
	}
	if err := queries.StorePromptTemplate(ctx, db, tmpl.Version, tmpl.Name, tmpl.Text); err != nil {
		return nil, fmt.Errorf("profile: store template: %w", err)
	}
	return stats, nil
}

// DistilOptions configures Distil. The zero value sends nothing useful:
// Model and Endpoint name the distilling model.
type DistilOptions struct {
	Model    string
	Endpoint runner.Endpoint
	Seed     int64 // seed of the example messages shown to the model
	// RetryFailed, Progress and Client are those of StepOptions.
	RetryFailed bool
	Progress    func(runner.RunStats)
	Client      runner.Backend
	Clock       runner.Clock // the runner's clock (StepOptions); nil means WallClock
	// Preflight is called after the distillation template is stored and
	// before any request is sent; its error is returned as it is. nil
	// means none.
	Preflight func() error
}

// DistilResult is what Distil did.
type DistilResult struct {
	Stored   int             // model-written personas stored
	Template string          // the distillation prompt's version
	Stats    runner.RunStats // the runner's totals
	Failed   []string        // one message per persona that failed, in developer order
}

// Distil asks a model to write each developer's persona from their
// statistical profile and example messages (profile sessions only), through
// the runner with its cache, and stores the answers as kind "model".
// Personas whose request failed are listed in DistilResult.Failed and not
// stored; the rest are.
func Distil(ctx context.Context, ws *queries.Workspace, stats []ProfileStats, opts DistilOptions) (DistilResult, error) {
	tmpl := DistillTemplate()
	res := DistilResult{Template: tmpl.Version}
	if err := queries.StorePromptTemplate(ctx, ws.Conn(), tmpl.Version, tmpl.Name, tmpl.Text); err != nil {
		return res, err
	}
	if opts.Preflight != nil {
		if err := opts.Preflight(); err != nil {
			return res, err
		}
	}
	step := runner.Step[ProfileStats, queries.ProfileRow]{
		Endpoint: opts.Endpoint,
		Build: func(st ProfileStats) (runner.Request, error) {
			rows, err := queries.ProfileMessages(ctx, ws.Conn(), st.Developer)
			if err != nil {
				return runner.Request{}, err
			}
			req := DistillRequest(st, SampleMessages(toProfileMessages(rows), 12, opts.Seed, false))
			req.Backend, req.BaseURL, req.Model = "openai", opts.Endpoint.BaseURL, opts.Model
			return req, nil
		},
		Parse: func(st ProfileStats, a runner.Answer) ([]queries.ProfileRow, error) {
			if !a.Stored {
				return nil, fmt.Errorf("%s: no answer", st.Developer)
			}
			row, err := DistilledProfile(st.Developer, opts.Model, a)
			if err != nil {
				return nil, err
			}
			return []queries.ProfileRow{row}, nil
		},
	}
	sr, err := runner.RunStep(ctx, runner.NewDuckStore(ws), stats, step, runner.StepOptions{RetryFailed: opts.RetryFailed, Progress: opts.Progress, Client: opts.Client, Clock: opts.Clock})
	if err != nil {
		return res, fmt.Errorf("profile: distil: %w", err)
	}
	res.Stats = sr.Stats
	for _, f := range sr.Failures {
		res.Failed = append(res.Failed, f.Err.Error())
	}
	if err := queries.StoreProfiles(ctx, ws, sr.Rows); err != nil {
		return res, fmt.Errorf("profile: store: %w", err)
	}
	res.Stored = len(sr.Rows)
	return res, nil
}

// DistilledProfile is the stored row of a model-written persona: the stored
// answer to the distillation request (DistillRequest) of model. Store it
// with queries.StoreProfiles.
func DistilledProfile(dev, model string, a runner.Answer) (queries.ProfileRow, error) {
	text, err := ModelPersona(a.Response)
	if err != nil {
		return queries.ProfileRow{}, fmt.Errorf("persona of %s: %w", dev, err)
	}
	return queries.ProfileRow{Developer: dev, Kind: "model", Model: model,
		PromptVersion: DistillTemplate().Version, RequestKey: a.Key, Text: text}, nil
}
