package review

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ub-bench/ub/judge/review/reviewtest"
	"github.com/ub-bench/ub/queries"
)

// TestWriteDecisionsTimesAndPrefill: the JSONL export gives each decision
// its lead_time and client_time (null when unknown) and the LLM reviewer
// that pre-filled its form ("" when none), as stored.
func TestWriteDecisionsTimesAndPrefill(t *testing.T) {
	ctx := context.Background()
	ws := newWorkspace(t, "", reviewtest.Three(), "alice", "bob")
	defer ws.Close()
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	secs := func(f float64) sql.NullFloat64 { return sql.NullFloat64{Float64: f, Valid: true} }
	for _, d := range []queries.Decision{
		{SimulationID: "sim-a", Reviewer: "alice", Kind: queries.KindHuman, Outcome: queries.OutcomeNoError, Batch: "b1", Source: "web", DecidedAt: at,
			LeadTime: secs(42.5), ClientTime: secs(40.25), Prefilled: "llm:r1"},
		{SimulationID: "sim-a", Reviewer: "bob", Kind: queries.KindHuman, Outcome: queries.OutcomeNoError, Batch: "b1", Source: "web", DecidedAt: at},
		{SimulationID: "sim-b", Reviewer: "alice", Kind: queries.KindHuman, Outcome: queries.OutcomeNoError, Batch: "b1", Source: "web", DecidedAt: at, LeadTime: secs(3)},
	} {
		if _, err := queries.SaveDecision(ctx, ws, d); err != nil {
			t.Fatal(err)
		}
	}
	var b strings.Builder
	if err := WriteDecisions(ctx, ws.Conn(), &b); err != nil {
		t.Fatal(err)
	}
	type line struct {
		SimulationID string   `json:"simulation_id"`
		Reviewer     string   `json:"reviewer"`
		LeadTime     *float64 `json:"lead_time"`
		ClientTime   *float64 `json:"client_time"`
		Prefilled    *string  `json:"prefilled"`
	}
	show := func(x *float64) string {
		if x == nil {
			return "null"
		}
		return jsonNum(*x)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		var x line
		if err := json.Unmarshal([]byte(l), &x); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{`"lead_time":`, `"client_time":`, `"prefilled":`} {
			if !strings.Contains(l, k) {
				t.Errorf("line lacks %s: %s", k, l)
			}
		}
		pf := "<absent>"
		if x.Prefilled != nil {
			pf = *x.Prefilled
		}
		got = append(got, x.SimulationID+" "+x.Reviewer+" lead="+show(x.LeadTime)+" client="+show(x.ClientTime)+" prefilled="+pf)
	}
	want := []string{
		"sim-a alice lead=42.5 client=40.25 prefilled=llm:r1",
		"sim-a bob lead=null client=null prefilled=",
		"sim-b alice lead=3 client=null prefilled=",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("export:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func jsonNum(x float64) string {
	b, _ := json.Marshal(x)
	return string(b)
}
