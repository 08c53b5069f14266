package review

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestSalvageCriticalUserOnlyReviews reads a results file shaped like
// tau2 1.0.1's output of `tau2 review --mode user`: its parser refuses
// critical_helped and critical_hindered (UserOnlyReviewError allows minor
// or critical), so those reviews come as a failure at turn_idx -1 with the
// model's response in the reasoning. The two whose response parses are
// salvaged, counted and marked, with their errors as the response gives
// them (a fenced block; bare JSON; error_tags as a string; a tick span);
// the one whose response is no review stays a failed review; the review
// tau2 parsed is read as before.
func TestSalvageCriticalUserOnlyReviews(t *testing.T) {
	f, err := ParseFile("testdata/tau2_user_only_review_critical.json", FileOptions{Model: "claude-opus-4-5", At: time.Unix(0, 0).UTC()})
	if err != nil {
		t.Fatal(err)
	}
	st := f.Stats
	if st.Salvaged != 2 || st.Failed != 1 || st.Decisions != 3 || st.Errors != 4 {
		t.Fatalf("stats %+v; want 2 salvaged, 1 failed, 3 decisions, 4 errors", st)
	}
	got := map[string]string{}
	for _, d := range f.Decisions {
		var b strings.Builder
		fmt.Fprintf(&b, "%s salvaged=%v model=%s", d.Outcome, d.Salvaged, d.Model)
		for _, e := range d.Errors {
			fmt.Fprintf(&b, " | %s %s turn=%v ticks=%v-%v", e.Code, e.Severity, e.TurnIdx.Int64, e.TickStart.Int64, e.TickEnd.Int64)
		}
		got[d.SimulationID] = b.String()
	}
	want := map[string]string{
		"sal-1": "error salvaged=true model=claude-opus-4-5 | revealed_info_early critical_helped turn=3 ticks=0-0 | inconsistent_behavior minor turn=7 ticks=0-0",
		"sal-2": "error salvaged=true model=claude-opus-4-5 | premature_termination critical_hindered turn=0 ticks=40-55",
		"bad-1": "failed salvaged=false model=claude-opus-4-5",
		"ok-1":  "error salvaged=false model=claude-opus-4-5 | other minor turn=2 ticks=0-0",
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: %s\n want %s", id, got[id], w)
		}
	}
	for _, d := range f.Decisions {
		if d.SimulationID == "sal-2" && (d.Errors[0].TurnIdx.Valid || !d.Errors[0].TickStart.Valid || !d.Errors[0].TickEnd.Valid) {
			t.Errorf("sal-2: a tick span without a turn: %+v", d.Errors[0])
		}
		if d.Salvaged != strings.Contains(d.Source, "salvaged") {
			t.Errorf("%s: source %q does not say whether it was salvaged", d.SimulationID, d.Source)
		}
	}
}

// TestSalvageNeedsTheRawResponse: a failure whose reasoning is not tau2's
// "Failed to parse LLM response: ... Response: ..." or whose response
// holds no errors list is not salvaged.
func TestSalvageNeedsTheRawResponse(t *testing.T) {
	for _, r := range []string{
		"Failed to parse review",
		`Failed to parse LLM response: boom. Response: {"summary": "no list"}`,
		`Something else. Response: {"errors": []}`,
	} {
		if _, ok := salvage(r); ok {
			t.Errorf("salvaged %q", r)
		}
	}
	if rv, ok := salvage(`Failed to parse LLM response: x. Response: y. Response: {"errors": []}`); !ok || *rv.UserError {
		t.Errorf("a response after a second \". Response: \" not read: %v %+v", ok, rv)
	}
}

// TestSalvagedUserErrorWithoutDetailsIsAnError: a salvaged response
// {"user_error": true, "critical_user_error": true, "errors": []} claims a
// critical simulator error without locating it. It is an error on the
// episode as a whole (critical_hindered, no turn), as the same review is
// when tau2 parsed it; before, salvage recomputed user_error from the
// empty list and stored "no simulator error": a failed review became a
// pass.
func TestSalvagedUserErrorWithoutDetailsIsAnError(t *testing.T) {
	resp := `{"user_error": true, "critical_user_error": true, "errors": []}`
	sim := fmt.Sprintf(`{"simulations": [{"id": "s1", "user_only_review": {"user_error": false, "critical_user_error": false,
		"errors": [{"turn_idx": -1, "error_tags": ["parse_error"], "severity": "minor", "reasoning": %q}]}}]}`,
		"Failed to parse LLM response: severity. Response: "+resp)
	ds, st, err := ParseUserOnlyReviews("r.json", strings.NewReader(sim), "llm:r", time.Unix(0, 0).UTC())
	if err != nil {
		t.Fatal(err)
	}
	if st.Salvaged != 1 || len(ds) != 1 {
		t.Fatalf("stats %+v, %d decisions; want 1 salvaged decision", st, len(ds))
	}
	d := ds[0]
	if d.Outcome != "error" || len(d.Errors) != 1 || d.Errors[0].TurnIdx.Valid || d.Errors[0].Severity != "critical_hindered" {
		t.Fatalf("salvaged user_error without details: %s %+v; want one critical_hindered error with no turn", d.Outcome, d.Errors)
	}
}
