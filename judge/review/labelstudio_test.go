package review

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ub-bench/ub/judge/review/reviewtest"
	"github.com/ub-bench/ub/queries"
)

// labelledWorkspace: alice decides sim-a (an error at turn 1 and one of
// the episode as a whole, 42 s) and sim-b (no error, 7.5 s) and skips
// sim-c; bob decides sim-a (no error); the LLM reviewer llm:r1 reviewed
// sim-a (an error) and failed on sim-b.
func labelledWorkspace(t *testing.T) *queries.Workspace {
	t.Helper()
	ctx := context.Background()
	ws := newWorkspace(t, "", reviewtest.Three(), "alice", "bob")
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	turn := func(i int64) sql.NullInt64 { return sql.NullInt64{Int64: i, Valid: true} }
	secs := func(f float64) sql.NullFloat64 { return sql.NullFloat64{Float64: f, Valid: true} }
	for _, d := range []queries.Decision{
		{SimulationID: "sim-a", Reviewer: "alice", Kind: queries.KindHuman, Outcome: queries.OutcomeError, Batch: "b1", Source: "web", DecidedAt: at, LeadTime: secs(42),
			Errors: []queries.ReviewError{{TurnIdx: turn(1), Code: "revealed_info_early", Severity: "minor", Note: "id unasked"},
				{Code: "other", Severity: "critical_hindered", Note: "whole episode"}}},
		{SimulationID: "sim-b", Reviewer: "alice", Kind: queries.KindHuman, Outcome: queries.OutcomeNoError, Batch: "b1", Source: "web", DecidedAt: at.Add(time.Minute), LeadTime: secs(7.5)},
		{SimulationID: "sim-a", Reviewer: "bob", Kind: queries.KindHuman, Outcome: queries.OutcomeNoError, Batch: "b1", Source: "web", DecidedAt: at},
		{SimulationID: "sim-a", Reviewer: "llm:r1", Kind: queries.KindLLM, Outcome: queries.OutcomeError, Source: "r1.json", DecidedAt: at,
			Errors: []queries.ReviewError{{TurnIdx: turn(1), Code: "hallucination", Severity: "critical_helped", Note: "r"}}},
		{SimulationID: "sim-b", Reviewer: "llm:r1", Kind: queries.KindLLM, Outcome: queries.OutcomeFailed, Source: "r1.json", DecidedAt: at},
	} {
		if _, err := queries.SaveDecision(ctx, ws, d); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := queries.SkipEpisode(ctx, ws, queries.Decision{SimulationID: "sim-c", Reviewer: "alice", Kind: queries.KindHuman, Batch: "b1", Source: "web", DecidedAt: at}); err != nil {
		t.Fatal(err)
	}
	return ws
}

// TestLabelStudioRoundTrip: the export holds every decision as Label
// Studio annotations (lead_time, skips cancelled) and the LLM reviews as
// predictions with their model version; importing alice's annotations
// back as another reviewer gives her decisions exactly.
func TestLabelStudioRoundTrip(t *testing.T) {
	ctx := context.Background()
	ws := labelledWorkspace(t)
	defer ws.Close()
	var buf bytes.Buffer
	st, err := WriteLabelStudio(ctx, ws.Conn(), &buf, "b1")
	if err != nil {
		t.Fatal(err)
	}
	if st.Tasks != 3 || !reflect.DeepEqual(st.Annotators, []string{"alice", "bob"}) {
		t.Fatalf("export: %+v, want 3 tasks, annotators alice bob", st)
	}
	var tasks []lsTask
	if err := json.Unmarshal(buf.Bytes(), &tasks); err != nil {
		t.Fatal(err)
	}
	a := tasks[0]
	if a.Data.SimulationID != "sim-a" || len(a.Data.Messages) != 6 || len(a.Annotations) != 2 || len(a.Predictions) != 1 {
		t.Fatalf("task sim-a: %+v", a)
	}
	if ann := a.Annotations[0]; ann.CompletedBy != 1 || ann.LeadTime == nil || *ann.LeadTime != 42 || ann.WasCancelled || ann.CreatedAt != "2026-03-01T10:00:00Z" {
		t.Errorf("alice's annotation on sim-a: %+v", ann)
	}
	if p := a.Predictions[0]; p.ModelVersion != "llm:r1" || firstString(p.Result[0].Value["choices"]) != "error" || firstString(p.Result[1].Value["paragraphlabels"]) != "hallucination" {
		t.Errorf("prediction on sim-a: %+v", p)
	}
	// The error at turn 1 is a region on message 1 (turn 1); the episode's
	// error spans every message.
	if v := a.Annotations[0].Result[1].Value; v["start"] != "1" || v["end"] != "1" {
		t.Errorf("turn-1 region: %v", v)
	}
	if v := a.Annotations[0].Result[4].Value; v["start"] != "0" || v["end"] != "5" || firstString(v["paragraphlabels"]) != "other" {
		t.Errorf("episode region: %v", v)
	}
	if c := tasks[2]; c.Data.SimulationID != "sim-c" || len(c.Annotations) != 1 || !c.Annotations[0].WasCancelled {
		t.Errorf("sim-c: alice's skip is not a cancelled annotation: %+v", c.Annotations)
	}
	// Back in: alice's annotations (completed_by 1) as reviewer alice-ls.
	ds, ist, err := ParseLabelStudio("ls.json", bytes.NewReader(buf.Bytes()), "alice-ls", 1)
	if err != nil {
		t.Fatal(err)
	}
	if ist.Decisions != 2 || ist.Errors != 2 || ist.Skipped != 1 {
		t.Errorf("import stats %+v, want 2 decisions, 2 errors, 1 skipped (the cancelled one)", ist)
	}
	if err := queries.ReplaceReviewer(ctx, ws, "alice-ls", ds); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"sim-a", "sim-b"} {
		want, _, _ := queries.GetDecision(ctx, ws.Conn(), id, "alice")
		got, ok, err := queries.GetDecision(ctx, ws.Conn(), id, "alice-ls")
		if err != nil || !ok {
			t.Fatalf("%s not imported: %v", id, err)
		}
		if got.Outcome != want.Outcome || !reflect.DeepEqual(got.Errors, want.Errors) || got.LeadTime != want.LeadTime || !got.DecidedAt.Equal(want.DecidedAt) {
			t.Errorf("%s after the round trip:\n got  %+v\n want %+v", id, got, want)
		}
	}
	// Without --annotator, sim-a's two annotations are ambiguous.
	if _, _, err := ParseLabelStudio("ls.json", bytes.NewReader(buf.Bytes()), "x", 0); err == nil || !strings.Contains(err.Error(), "ls.json: task[0]: episode sim-a has 2 annotations") {
		t.Errorf("two annotations without --annotator: %v", err)
	}
}

func TestLabelStudioBadInputNamesTheTask(t *testing.T) {
	for name, c := range map[string]struct{ in, want string }{
		"not an array":   {`{"tasks": 1}`, "ls.json: not a Label Studio JSON export"},
		"no episode":     {`[{"data": {}}]`, "ls.json: task[0]: no data.simulation_id"},
		"unknown code":   {`[{"data": {"simulation_id": "s", "messages": [{"role":"user","text":"t","turn":0}]}, "annotations": [{"created_at": "2026-03-01T10:00:00Z", "result": [{"id":"o","from_name":"outcome","type":"choices","value":{"choices":["error"]}}, {"id":"e0","from_name":"error","type":"paragraphlabels","value":{"start":"0","end":"0","paragraphlabels":["<b>"]}}]}]}]`, `task[0]: region e0: code "<b>" is not in the codebook`},
		"region outside": {`[{"data": {"simulation_id": "s", "messages": []}, "annotations": [{"created_at": "2026-03-01T10:00:00Z", "result": [{"id":"o","from_name":"outcome","type":"choices","value":{"choices":["error"]}}, {"id":"e0","from_name":"error","type":"paragraphlabels","value":{"start":"3","end":"3","paragraphlabels":["other"]}}]}]}]`, "task[0]: region e0: paragraphs 3-3 are not messages"},
		"bad time":       {`[{"data": {"simulation_id": "s", "messages": []}, "annotations": [{"created_at": "yesterday", "result": []}]}]`, `task[0]: annotation time "yesterday"`},
	} {
		_, _, err := ParseLabelStudio("ls.json", strings.NewReader(c.in), "r", 0)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}

// TestArgillaRecords: one record an episode; human decisions are
// responses (a skip discarded), LLM reviews suggestions with their agent.
func TestArgillaRecords(t *testing.T) {
	ws := labelledWorkspace(t)
	defer ws.Close()
	var buf bytes.Buffer
	n, err := WriteArgilla(context.Background(), ws.Conn(), &buf, "")
	if err != nil || n != 3 {
		t.Fatalf("argilla: %d records, %v", n, err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	var a, c argillaRecord
	if err := errors.Join(json.Unmarshal([]byte(lines[0]), &a), json.Unmarshal([]byte(lines[2]), &c)); err != nil {
		t.Fatal(err)
	}
	want := []argillaResponse{{Value: "error", UserID: "alice", Status: "submitted"}, {Value: "no_error", UserID: "bob", Status: "submitted"}}
	if a.ID != "sim-a" || !reflect.DeepEqual(a.Responses["outcome"], want) || a.Status != "completed" {
		t.Errorf("sim-a responses %+v status %s", a.Responses["outcome"], a.Status)
	}
	if s := a.Suggestions["outcome"]; len(s) != 1 || s[0].Agent != "llm:r1" || s[0].Value != "error" {
		t.Errorf("sim-a suggestions %+v", s)
	}
	if e := a.Responses["errors"][0].Value; e != "turn 1: revealed_info_early (minor): id unasked\nepisode: other (critical_hindered): whole episode" {
		t.Errorf("sim-a alice's errors %q", e)
	}
	if r := c.Responses["outcome"]; c.ID != "sim-c" || len(r) != 1 || r[0].Status != "discarded" || c.Status != "pending" {
		t.Errorf("sim-c: %+v status %s", r, c.Status)
	}
}

// TestLabelStudioModelVersion: an LLM review imported with
// --reviewer-model is a prediction whose model_version is that model; a
// review whose model was not said keeps the reviewer's name.
func TestLabelStudioModelVersion(t *testing.T) {
	ctx := context.Background()
	ws := newWorkspace(t, "", reviewtest.Three(), "alice")
	defer ws.Close()
	f, err := ParseFile("testdata/tau2_user_only_review_critical.json", FileOptions{Reviewer: "llm:opus", Model: "claude-opus-4-5", At: time.Unix(0, 0).UTC()})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	// The fixture's simulations are not the workspace's episodes: review
	// sim-a as llm:opus too (with the model) and as llm:anon (without).
	ds := append(f.Decisions, queries.Decision{SimulationID: "sim-a", Reviewer: "llm:opus", Kind: queries.KindLLM, Outcome: queries.OutcomeNoError,
		Source: "x.json", DecidedAt: at, Model: "claude-opus-4-5"})
	if err := queries.ReplaceReviewer(ctx, ws, "llm:opus", ds); err != nil {
		t.Fatal(err)
	}
	if _, err := queries.SaveDecision(ctx, ws, queries.Decision{SimulationID: "sim-a", Reviewer: "llm:anon", Kind: queries.KindLLM,
		Outcome: queries.OutcomeNoError, Source: "y.json", DecidedAt: at}); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := WriteLabelStudio(ctx, ws.Conn(), &buf, ""); err != nil {
		t.Fatal(err)
	}
	var tasks []lsTask
	if err := json.Unmarshal(buf.Bytes(), &tasks); err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, tk := range tasks {
		for _, p := range tk.Predictions {
			got[tk.Data.SimulationID] = append(got[tk.Data.SimulationID], p.ModelVersion)
		}
	}
	want := map[string][]string{"sim-a": {"llm:anon", "claude-opus-4-5"}, "sal-1": {"claude-opus-4-5"}, "sal-2": {"claude-opus-4-5"},
		"bad-1": {"claude-opus-4-5"}, "ok-1": {"claude-opus-4-5"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("model versions %v, want %v", got, want)
	}
	// Argilla: the suggestions' agent is the same model (or the reviewer
	// without one), for the outcome and the codes alike.
	buf.Reset()
	if _, err := WriteArgilla(ctx, ws.Conn(), &buf, ""); err != nil {
		t.Fatal(err)
	}
	agents := map[string][]string{}
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var r argillaRecord
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		for _, s := range r.Suggestions["outcome"] {
			agents[r.ID] = append(agents[r.ID], s.Agent)
		}
		for i, s := range r.Suggestions["codes"] {
			if s.Agent != r.Suggestions["outcome"][i].Agent {
				t.Errorf("%s: codes suggested by %s, outcome by %s", r.ID, s.Agent, r.Suggestions["outcome"][i].Agent)
			}
		}
	}
	for id, w := range want {
		if g := agents[id]; len(g) != len(w) || !reflect.DeepEqual(sortedCopy(g), sortedCopy(w)) {
			t.Errorf("argilla agents of %s: %v, want %v", id, g, w)
		}
	}
}

func sortedCopy(s []string) []string { c := slices.Clone(s); slices.Sort(c); return c }

// TestLabelStudioEpisodeErrorRoundTrip: an error on the episode as a
// whole, on an episode with no messages and on one with a single
// message, leaves ub's export and comes back through ub's import as the
// same error with no turn. Before, the export wrote paragraphs 0-0, which
// the import refused on the empty episode ("not messages of the
// episode") and read as turn 0 on the one-message episode.
func TestLabelStudioEpisodeErrorRoundTrip(t *testing.T) {
	ctx := context.Background()
	eps := []reviewtest.Fixture{
		{ID: "sim-empty", Domain: "airline", TaskID: "1", Reward: 0, Reason: "r"},
		{ID: "sim-one", Domain: "airline", TaskID: "2", Reward: 0, Reason: "r", Messages: []reviewtest.Message{{Role: "user", Content: "Hello"}}},
	}
	ws := newWorkspace(t, "", eps, "alice")
	defer ws.Close()
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	for _, id := range []string{"sim-empty", "sim-one"} {
		d := queries.Decision{SimulationID: id, Reviewer: "alice", Kind: queries.KindHuman, Outcome: queries.OutcomeError, Batch: "b1", Source: "web", DecidedAt: at,
			Errors: []queries.ReviewError{{Code: "other", Severity: "critical_hindered", Note: "whole episode"}}}
		if _, err := queries.SaveDecision(ctx, ws, d); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if _, err := WriteLabelStudio(ctx, ws.Conn(), &buf, "b1"); err != nil {
		t.Fatal(err)
	}
	ds, _, err := ParseLabelStudio("ls.json", bytes.NewReader(buf.Bytes()), "alice-ls", 1)
	if err != nil {
		t.Fatalf("ub's import refuses ub's export: %v", err)
	}
	if len(ds) != 2 {
		t.Fatalf("%d decisions back, want 2", len(ds))
	}
	for _, d := range ds {
		if d.Outcome != queries.OutcomeError || len(d.Errors) != 1 || d.Errors[0].TurnIdx.Valid || d.Errors[0].Code != "other" ||
			d.Errors[0].Severity != "critical_hindered" || d.Errors[0].Note != "whole episode" {
			t.Errorf("%s after the round trip: %s %+v, want one critical_hindered error on the episode (no turn)", d.SimulationID, d.Outcome, d.Errors)
		}
	}
}
