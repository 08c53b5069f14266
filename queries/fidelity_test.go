package queries

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ub-bench/ub"
)

// fidelityFixture: two runs (simulators simA with recorded costs, simB
// without), task airline/1 and airline/2; episodes a1, a2 (simA, task 1
// and 2) and b1, b2 (simB), b2 flagged P0.
func fidelityFixture(t *testing.T) *Workspace {
	t.Helper()
	ctx := context.Background()
	ws, err := Open(ctx, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	stmts := []string{
		`INSERT INTO ep_tasks (task_key, domain, task_id, format, reason_for_call, known_info, task_instructions, raw, source_file)
		 VALUES ('k1', 'airline', '1', 'tau2', 'You want to cancel.', 'Your user id is ann_1.', 'Do not accept a fee.', '{}', 'f.json'),
		        ('k2', 'airline', '2', 'tau2', 'You want a refund.', 'Your user id is bob_2.', NULL, '{}', 'f.json')`,
		`INSERT INTO ep_runs (run_id, source_file, format, domain, user_sim, agent, user_model, guidelines)
		 VALUES ('rA', 'a.json', 'tau2', 'airline', 'simA', 'agent1', 'mA', 'Disclose information progressively.'),
		        ('rB', 'b.json', 'tau2', 'airline', 'simB', 'agent1', 'mB', NULL)`,
	}
	ep := func(id, run, task string, reward, cost float64) string {
		return fmt.Sprintf(`INSERT INTO ep_episodes (simulation_id, run_id, source_file, source_index, content_hash, domain, task_id, reward, user_cost, n_messages)
			VALUES ('%s', '%s', 'x.json', 0, 'h', 'airline', '%s', %g, %g, 3)`, id, run, task, reward, cost)
	}
	stmts = append(stmts, ep("a1", "rA", "1", 1, 0.02), ep("a2", "rA", "2", 0, 0.04), ep("b1", "rB", "1", 1, 0), ep("b2", "rB", "2", 1, 0),
		`INSERT INTO ep_messages (simulation_id, idx, turn_idx, role, content, n_tool_calls) VALUES
		 ('a1', 0, 0, 'assistant', 'Hi! How can I help?', 0), ('a1', 1, 1, 'user', 'cancel', 0), ('a1', 2, 2, 'assistant', 'Done.', 1)`,
		`INSERT INTO ep_tool_calls (simulation_id, msg_idx, call_idx, requestor, name) VALUES ('a1', 2, 0, 'assistant', 'cancel'), ('a1', 2, 1, 'assistant', 'get')`,
		`INSERT INTO ep_probe_findings (simulation_id, probe, evidence) VALUES ('b2', 'P0', 'user id carl_3'), ('b2', 'P1', 'x')`,
	)
	for _, s := range stmts {
		if _, err := ws.Conn().ExecContext(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	return ws
}

func TestFidelityViewsAndLoad(t *testing.T) {
	ctx := context.Background()
	ws := fidelityFixture(t)
	cs := []Criterion{
		{CriterionID: "c1", Domain: "airline", TaskID: "1", Family: "disclosure", Mode: "volunteers_unasked_info", Quote: "q", QuoteSource: "known_info", Text: "t", WrittenBy: "imported:r.jsonl", Status: "accepted", SourceFile: "r.jsonl", SourceLine: 1},
		{CriterionID: "c2", Domain: "airline", TaskID: "1", Family: "goal_deviation", Mode: "premature_stop", Quote: "q", QuoteSource: "known_info", Text: "t", WrittenBy: "imported:r.jsonl", Status: "accepted", SourceFile: "r.jsonl", SourceLine: 2},
		{CriterionID: "c3", Domain: "airline", TaskID: "2", Family: "omitted_info", Mode: "withholds_asked_info", Quote: "q", QuoteSource: "known_info", Text: "t", WrittenBy: "w", Status: "rejected", RejectReason: "redundant", SourceFile: "r.jsonl", SourceLine: 3},
		{CriterionID: "c4", Domain: "airline", TaskID: "2", Family: "disclosure", Mode: "volunteers_unasked_info", Quote: "q", QuoteSource: "known_info", Text: "t", WrittenBy: "w", Status: "accepted", SourceFile: "r.jsonl", SourceLine: 4},
	}
	if err := PutCriteria(ctx, ws, cs); err != nil {
		t.Fatal(err)
	}
	// Storing again replaces, never duplicates.
	if err := PutCriteria(ctx, ws, cs[:2]); err != nil {
		t.Fatal(err)
	}
	// put stores vs as the lines of file, in order.
	put := func(file string, vs []StoredVerdict) {
		t.Helper()
		for i := range vs {
			vs[i].SourceFile, vs[i].SourceLine = file, i+1
		}
		if err := PutVerdicts(ctx, ws, vs); err != nil {
			t.Fatal(err)
		}
	}
	three := 3
	vs := []StoredVerdict{
		{SimulationID: "a1", CriterionID: "c1", Grader: "g", Verdict: "pass"},
		{SimulationID: "a1", CriterionID: "c2", Grader: "g", Verdict: "fail", TurnIdx: &three},
		{SimulationID: "a2", CriterionID: "c3", Grader: "g", Verdict: "fail"}, // rejected criterion: not counted
		{SimulationID: "a2", CriterionID: "c4", Grader: "g", Verdict: "na"},
		{SimulationID: "b1", CriterionID: "c1", Grader: "g", Verdict: "pass"},
		{SimulationID: "b1", CriterionID: "c2", Grader: "g", Verdict: "pass"},
		{SimulationID: "b2", CriterionID: "c4", Grader: "g", Verdict: "pass"},
		{SimulationID: "b1", CriterionID: "c1", Grader: "h", Verdict: "fail"},
	}
	put("v.jsonl", vs)
	if err := PutVerdicts(ctx, ws, vs[:1]); err != nil {
		t.Fatal(err)
	}
	// Expected by hand: a1 applicable 2 failed 1 -> f 0; a2 nothing
	// applicable -> null; b1 (g) 2 pass -> 1; b2 P0 -> null; b1 (h) fail -> 0.
	want := []string{"a1 g 2 1 false 0", "a2 g 0 0 false null", "b1 g 2 0 false 1", "b1 h 1 1 false 0", "b2 g 1 0 true null"}
	var got []string
	err := Adhoc(ctx, ws.Conn(), `SELECT simulation_id, grader, applicable, failed, p0, coalesce(f::VARCHAR, 'null') FROM episode_fidelity ORDER BY simulation_id, grader`,
		func(_ []Column, row []any) error {
			if row != nil {
				got = append(got, fmt.Sprintf("%v %v %v %v %v %v", row...))
			}
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("episode_fidelity:\n got %v\nwant %v", got, want)
	}
	eps, err := LoadFidelity(ctx, ws.Conn(), "g")
	if err != nil {
		t.Fatal(err)
	}
	if len(eps) != 4 {
		t.Fatalf("LoadFidelity of g: %d rows, want 4 (a1 a2 b1 b2)", len(eps))
	}
	for _, e := range eps {
		if e.Grader != "g" {
			t.Errorf("LoadFidelity of g: %+v", e)
		}
	}
	if h, err := LoadFidelity(ctx, ws.Conn(), "h"); err != nil || len(h) != 1 || h[0].ID != "b1" || h[0].Failed != [4]int{1, 0, 0, 0} {
		t.Errorf("LoadFidelity of h: %+v, %v; want b1 with its one failed disclosure criterion", h, err)
	}
	a1 := eps[0]
	if a1.ID != "a1" || a1.Simulator != "simA" || a1.Applicable != [4]int{1, 1, 0, 0} || a1.Failed != [4]int{0, 1, 0, 0} ||
		a1.AgentTurns != 2 || a1.AgentQuestions != 1 || a1.AgentToolCalls != 2 || a1.Cost != 0.02 || a1.CostEstimated {
		t.Errorf("a1 = %+v", a1)
	}
	if b2 := eps[3]; b2.ID != "b2" || fmt.Sprint(b2.Probes) != "[P0 P1]" || !math.IsNaN(b2.Cost) {
		t.Errorf("b2 = %+v (cost 0 recorded and no price: unknown)", b2)
	}
	checkFidelityTape(t, ws, "g", eps)
	srcs, err := TaskSources(ctx, ws.Conn())
	if err != nil {
		t.Fatal(err)
	}
	var guide int
	for _, s := range srcs {
		if s.Source == "guidelines" {
			guide++
		}
	}
	// Guidelines come from run rA, which has episodes of tasks 1 and 2.
	if guide != 2 {
		t.Errorf("guideline sources = %d, want 2: %+v", guide, srcs)
	}
	pairs, err := VerdictPairs(ctx, ws.Conn(), "g", "h")
	if err != nil {
		t.Fatal(err)
	}
	if len(pairs) != 1 || pairs[0].A != "pass" || pairs[0].B != "fail" || pairs[0].Family != "disclosure" || pairs[0].N != 1 {
		t.Errorf("pairs = %+v", pairs)
	}
	// Pairs are counted per episode, family and verdicts: b1's c1 and c4
	// (both disclosure) are pass for g and fail for h, one row of 2.
	put("w.jsonl", []StoredVerdict{
		{SimulationID: "b1", CriterionID: "c4", Grader: "g", Verdict: "pass"},
		{SimulationID: "b1", CriterionID: "c4", Grader: "h", Verdict: "fail"},
		{SimulationID: "a1", CriterionID: "c1", Grader: "h", Verdict: "pass"},
		{SimulationID: "a1", CriterionID: "c2", Grader: "h", Verdict: "pass"},
	})
	pairs, err = VerdictPairs(ctx, ws.Conn(), "g", "h")
	if err != nil {
		t.Fatal(err)
	}
	want = []string{"{a1 disclosure pass pass 1}", "{a1 goal_deviation fail pass 1}", "{b1 disclosure pass fail 2}"}
	if got := fmt.Sprint(pairs); got != fmt.Sprint(want) {
		t.Errorf("counted pairs = %s, want %v", got, want)
	}
	rub, err := RubricOf(ctx, ws.Conn(), "", "2")
	if err != nil || len(rub) != 2 || rub[0].CriterionID != "c3" || rub[0].RejectReason != "redundant" {
		t.Errorf("RubricOf = %+v, %v", rub, err)
	}
}

// checkFidelityTape: the tape of grader's episodes gives want, every time
// it is ranged over, concurrently too; a tape that cannot be read back
// whole ends the range and says so in Err.
func checkFidelityTape(t *testing.T, ws *Workspace, grader string, want []ub.FidelityEpisode) {
	t.Helper()
	tape, err := TapeFidelity(context.Background(), ws.Conn(), grader)
	if err != nil {
		t.Fatal(err)
	}
	defer tape.Close()
	if tape.Len() != len(want) {
		t.Errorf("tape of %s: %d episodes, want %d", grader, tape.Len(), len(want))
	}
	got := make([][]ub.FidelityEpisode, 3)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() { got[i] = slices.Collect(tape.All()) })
	}
	wg.Wait()
	for i, g := range got {
		if fmt.Sprintf("%+v", g) != fmt.Sprintf("%+v", want) {
			t.Errorf("range %d over the tape of %s:\n got %+v\nwant %+v", i, grader, g, want)
		}
	}
	if err := tape.Err(); err != nil {
		t.Errorf("tape.Err() = %v after whole ranges", err)
	}
	if err := tape.t.f.Truncate(tape.t.size - 1); err != nil {
		t.Fatal(err)
	}
	if n := len(slices.Collect(tape.All())); n != len(want)-1 {
		t.Errorf("a tape one byte short gave %d episodes, want %d (all but the last)", n, len(want)-1)
	}
	if err := tape.Err(); err == nil || !strings.Contains(err.Error(), "reading back the temporary file") {
		t.Errorf("tape.Err() = %v for a tape one byte short; want it to say the file could not be read back", err)
	}
}
