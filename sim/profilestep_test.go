package sim

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ub-bench/ub/queries"
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
		in := NewInputs(db, InputsOptions{OnTheFly: func(d string) { onTheFly = append(onTheFly, d) }})
		want, err := StatsProfile(ctx, db, dev, DefaultProfileSeed)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			p, err := in.Prompt(ctx, pd, CondProfile, 3)
			if err != nil {
				t.Fatal(err)
			}
			if p.Persona != RenderPersona(want) || p.Developer != dev || len(p.Turns) != len(pd.Before) {
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
		if _, err := NewInputs(db, InputsOptions{PersonaKind: "model"}).Prompt(ctx, pd, CondProfile, 0); err == nil || !strings.Contains(err.Error(), "no model-written persona") {
			t.Errorf("model persona not stored: err %v", err)
		}
		p, err := in.Prompt(ctx, pd, CondNoProfile, 0)
		if err != nil || p.Persona != "" || p.History != nil {
			t.Errorf("noprofile at K=0: %+v, %v: want no persona and no history", p, err)
		}
	})

	t.Run("offline input names its pool", func(t *testing.T) {
		in := NewInputs(db, InputsOptions{})
		o, err := in.Offline(ctx, pd, CondNoProfile, DefaultWindow, 0)
		if err != nil {
			t.Fatal(err)
		}
		if o.Pool.Name != ScopeTrain || o.Pool.Len() == 0 || o.PointID != pd.Point.ID || o.Agent == "" {
			t.Errorf("noprofile input: pool %s (%d pairs), point %s, agent %q", o.Pool.Name, o.Pool.Len(), o.PointID, o.Agent)
		}
		o, err = in.Offline(ctx, pd, CondProfile, DefaultWindow, 0)
		if err != nil {
			t.Fatal(err)
		}
		if want := ScopeProfile + ":" + dev; o.Pool.Name != want && o.PoolFallback != ScopeTrain {
			t.Errorf("profile input: pool %s, fallback %q: want %s or the population's", o.Pool.Name, o.PoolFallback, want)
		}
	})

	t.Run("stats profiles stored for every profiled developer", func(t *testing.T) {
		devs, err := queries.ProfileDevelopers(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		stats, err := StoreStatsProfiles(ctx, ws, StatsProfilesOptions{Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		if len(stats) != len(devs) || len(stats) == 0 {
			t.Fatalf("%d profiles, want one per each of the %d developers with profile sessions", len(stats), len(devs))
		}
		for i, s := range stats {
			row, ok, err := queries.GetProfile(ctx, db, devs[i].Name, "stats")
			if err != nil || !ok || s.Developer != devs[i].Name || row.Text != RenderPersona(s) || row.PromptVersion != PersonaTemplate().Version {
				t.Fatalf("profile %d of %s: stored %v %+v, err %v", i, devs[i].Name, ok, row, err)
			}
		}
		one, err := StoreStatsProfiles(ctx, ws, StatsProfilesOptions{Developer: dev, Seed: 5})
		if err != nil || len(one) != 1 || one[0].Developer != dev {
			t.Errorf("one developer: %d profiles, err %v", len(one), err)
		}
		if _, err := StoreStatsProfiles(ctx, ws, StatsProfilesOptions{Developer: "nobody"}); !errors.Is(err, ErrNoProfileSessions) {
			t.Errorf("unknown developer: err %v, want ErrNoProfileSessions", err)
		}
		// A stored persona is read, not built again.
		var onTheFly int
		p, err := NewInputs(db, InputsOptions{OnTheFly: func(string) { onTheFly++ }}).Prompt(ctx, pd, CondProfile, 0)
		if err != nil || onTheFly != 0 || p.Persona != RenderPersona(one[0]) {
			t.Errorf("stored persona: on the fly %d times, err %v", onTheFly, err)
		}

		// Distil: one request per developer, the echo's upper-cased prompt
		// as the persona; a second run is served from the cache.
		var calls atomic.Int64
		opts := DistilOptions{Model: "fake", Endpoint: Endpoint{Backend: "openai"}, Seed: 1, Client: echo(&calls)}
		res, err := Distil(ctx, ws, stats, opts)
		if err != nil {
			t.Fatal(err)
		}
		if res.Stored != len(stats) || len(res.Failed) != 0 || calls.Load() != int64(len(stats)) || res.Template != DistillTemplate().Version {
			t.Fatalf("distil %+v, %d calls: want %d personas, one call each", res, calls.Load(), len(stats))
		}
		msgs, err := queries.ProfileMessages(ctx, db, stats[0].Developer)
		if err != nil {
			t.Fatal(err)
		}
		req := DistillRequest(stats[0], SampleMessages(toProfileMessages(msgs), 12, 1, false))
		req.Backend, req.Model = "openai", "fake"
		row, ok, err := queries.GetProfile(ctx, db, stats[0].Developer, "model")
		want := strings.TrimSpace(strings.ToUpper(req.Messages[0].Content))
		if err != nil || !ok || row.Model != "fake" || row.Text != want || row.RequestKey != req.Key() {
			t.Errorf("stored model persona %+v (ok %v, err %v): want the echo of the distillation request %s", row, ok, err, req.Key())
		}
		res, err = Distil(ctx, ws, stats, opts)
		if err != nil || res.Stats.Cached != len(stats) || calls.Load() != int64(len(stats)) {
			t.Errorf("second distil %+v, err %v, %d calls: want all cached", res, err, calls.Load())
		}
		if _, err := Distil(ctx, ws, stats, DistilOptions{Preflight: func() error { return errNoKey }}); !errors.Is(err, errNoKey) {
			t.Errorf("refused preflight: err %v", err)
		}
	})
}
