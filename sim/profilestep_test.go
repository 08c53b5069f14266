package sim_test

import (
	"context"
	"errors"
	"github.com/ub-bench/ub/sim"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/sim/runner"
	"github.com/ub-bench/ub/sim/runner/runnertest"
)

// TestInputsAndProfilesFromAWorkspace reads a synthetic study's inputs
// before and after its stats profiles are stored, and distils personas
// through a fake endpoint.
func TestInputsAndProfilesFromAWorkspace(t *testing.T) {
	ctx := context.Background()
	ws, _ := synthWorkspace(t)
	db := ws.Conn()
	points, err := queries.Points(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	pd, err := queries.PointContext(ctx, db, points[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	dev := pd.Point.Developer

	t.Run("persona built on the fly once when none is stored", func(t *testing.T) {
		var onTheFly []string
		in := sim.NewInputs(db, sim.InputsOptions{OnTheFly: func(d string) { onTheFly = append(onTheFly, d) }})
		want, err := sim.StatsProfile(ctx, db, dev, sim.DefaultProfileSeed)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			p, err := in.Prompt(ctx, pd, sim.CondProfile, 3)
			if err != nil {
				t.Fatal(err)
			}
			if p.Persona != sim.RenderPersona(want) || p.Developer != dev || len(p.Turns) != len(pd.Before) {
				t.Fatalf("prompt input %+v: want the developer's stats persona and the %d turns before the moment", p, len(pd.Before))
			}
			hs, err := queries.ProfileHistory(ctx, db, dev, 3)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.History) != len(hs) || len(hs) > 3 {
				t.Fatalf("history %d messages, want the %d most recent profile messages", len(p.History), len(hs))
			}
		}
		if strings.Join(onTheFly, ",") != dev {
			t.Errorf("OnTheFly called for %v, want once for %s", onTheFly, dev)
		}
		if _, err := sim.NewInputs(db, sim.InputsOptions{PersonaKind: "model"}).Prompt(ctx, pd, sim.CondProfile, 0); err == nil || !strings.Contains(err.Error(), "no model-written persona") {
			t.Errorf("model persona not stored: err %v", err)
		}
		p, err := in.Prompt(ctx, pd, sim.CondNoProfile, 0)
		if err != nil || p.Persona != "" || p.History != nil {
			t.Errorf("noprofile at K=0: %+v, %v: want no persona and no history", p, err)
		}
	})

	t.Run("history at every k is the k most recent, whatever came before", func(t *testing.T) {
		// One Inputs reads a developer's history once at the largest k yet
		// asked: each k, asked after larger and smaller ones, gives what a
		// read of its own gives, in the prompt and in the offline input.
		in := sim.NewInputs(db, sim.InputsOptions{})
		all, err := queries.ProfileHistory(ctx, db, dev, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if len(all) < 3 {
			t.Fatalf("%s has %d profile messages: too few to test", dev, len(all))
		}
		for _, k := range []int{2, 1, 5, 3, 0, len(all) + 4, 4, 1} {
			hs, err := queries.ProfileHistory(ctx, db, dev, k)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, h := range hs {
				want = append(want, h.Text)
			}
			p, err := in.Prompt(ctx, pd, sim.CondNoProfile, k)
			if err != nil {
				t.Fatal(err)
			}
			o, err := in.Offline(ctx, pd, sim.CondNoProfile, sim.DefaultWindow, k)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(p.History, "\x00") != strings.Join(want, "\x00") || len(p.History) != min(k, len(all)) {
				t.Errorf("k = %d: prompt history %q, want %q", k, p.History, want)
			}
			if strings.Join(o.History, "\x00") != strings.Join(want, "\x00") || len(o.History) != len(p.History) {
				t.Errorf("k = %d: offline history %q, want %q", k, o.History, want)
			}
		}
	})

	t.Run("offline input names its pool", func(t *testing.T) {
		in := sim.NewInputs(db, sim.InputsOptions{})
		o, err := in.Offline(ctx, pd, sim.CondNoProfile, sim.DefaultWindow, 0)
		if err != nil {
			t.Fatal(err)
		}
		if o.Pool.Name != sim.ScopeTrain || o.Pool.Len() == 0 || o.PointID != pd.Point.ID || o.Agent == "" {
			t.Errorf("noprofile input: pool %s (%d pairs), point %s, agent %q", o.Pool.Name, o.Pool.Len(), o.PointID, o.Agent)
		}
		o, err = in.Offline(ctx, pd, sim.CondProfile, sim.DefaultWindow, 0)
		if err != nil {
			t.Fatal(err)
		}
		if want := sim.ScopeProfile + ":" + dev; o.Pool.Name != want && o.PoolFallback != sim.ScopeTrain {
			t.Errorf("profile input: pool %s, fallback %q: want %s or the population's", o.Pool.Name, o.PoolFallback, want)
		}
	})

	t.Run("stats profiles stored for every profiled developer", func(t *testing.T) {
		devs, err := queries.ProfileDevelopers(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		stats, err := sim.StoreStatsProfiles(ctx, ws, sim.StatsProfilesOptions{Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		if len(stats) != len(devs) || len(stats) == 0 {
			t.Fatalf("%d profiles, want one per each of the %d developers with profile sessions", len(stats), len(devs))
		}
		for i, s := range stats {
			row, ok, err := queries.GetProfile(ctx, db, devs[i].Name, "stats")
			if err != nil || !ok || s.Developer != devs[i].Name || row.Text != sim.RenderPersona(s) || row.PromptVersion != sim.PersonaTemplate().Version {
				t.Fatalf("profile %d of %s: stored %v %+v, err %v", i, devs[i].Name, ok, row, err)
			}
		}
		one, err := sim.StoreStatsProfiles(ctx, ws, sim.StatsProfilesOptions{Developer: dev, Seed: 5})
		if err != nil || len(one) != 1 || one[0].Developer != dev {
			t.Errorf("one developer: %d profiles, err %v", len(one), err)
		}
		if _, err := sim.StoreStatsProfiles(ctx, ws, sim.StatsProfilesOptions{Developer: "nobody"}); !errors.Is(err, sim.ErrNoProfileSessions) {
			t.Errorf("unknown developer: err %v, want ErrNoProfileSessions", err)
		}
		// A stored persona is read, not built again.
		var onTheFly int
		p, err := sim.NewInputs(db, sim.InputsOptions{OnTheFly: func(string) { onTheFly++ }}).Prompt(ctx, pd, sim.CondProfile, 0)
		if err != nil || onTheFly != 0 || p.Persona != sim.RenderPersona(one[0]) {
			t.Errorf("stored persona: on the fly %d times, err %v", onTheFly, err)
		}

		// Distil: one request per developer, the echo's upper-cased prompt
		// as the persona; a second run is served from the cache.
		var calls atomic.Int64
		opts := sim.DistilOptions{Model: "fake", Endpoint: runner.Endpoint{Backend: "openai"}, Seed: 1, Client: runnertest.Echo(&calls)}
		res, err := sim.Distil(ctx, ws, stats, opts)
		if err != nil {
			t.Fatal(err)
		}
		if res.Stored != len(stats) || len(res.Failed) != 0 || calls.Load() != int64(len(stats)) || res.Template != sim.DistillTemplate().Version {
			t.Fatalf("distil %+v, %d calls: want %d personas, one call each", res, calls.Load(), len(stats))
		}
		msgs, err := queries.ProfileMessages(ctx, db, stats[0].Developer)
		if err != nil {
			t.Fatal(err)
		}
		req := sim.DistillRequest(stats[0], sim.SampleMessages(sim.ToProfileMessages(msgs), 12, 1, false))
		req.Backend, req.Model = "openai", "fake"
		row, ok, err := queries.GetProfile(ctx, db, stats[0].Developer, "model")
		want := strings.TrimSpace(strings.ToUpper(req.Messages[0].Content))
		if err != nil || !ok || row.Model != "fake" || row.Text != want || row.RequestKey != req.Key() {
			t.Errorf("stored model persona %+v (ok %v, err %v): want the echo of the distillation request %s", row, ok, err, req.Key())
		}
		res, err = sim.Distil(ctx, ws, stats, opts)
		if err != nil || res.Stats.Cached != len(stats) || calls.Load() != int64(len(stats)) {
			t.Errorf("second distil %+v, err %v, %d calls: want all cached", res, err, calls.Load())
		}
		if _, err := sim.Distil(ctx, ws, stats, sim.DistilOptions{Preflight: func() error { return errNoKey }}); !errors.Is(err, errNoKey) {
			t.Errorf("refused preflight: err %v", err)
		}
	})
}
