package ingest

import (
	"context"
	"path/filepath"
	"testing"
)

// tau2CorpusCounts are the per-file episode counts of corpus/tau2/README.md
// sections 1.1 (sims) and 1.2 (episodes): 459 tau2 simulations and 310
// tau-bench v1 episodes, 769 in all.
var tau2CorpusCounts = map[string]int{
	"results/airline__agent-gpt-4.1__user-gpt-4.1__20tasks.json":                    20,
	"results/retail__agent-gpt-4.1__user-gpt-4.1__40tasks.json":                     40,
	"results/telecom__agent-gpt-4.1__user-gpt-4.1__40tasks.json":                    40,
	"results/telecom__agent-gpt-4o__user-gpt-4o__20tasks.json":                      20,
	"results/airline__agent-claude-sonnet-4-5__user-gpt-4.1__50tasks.json":          50,
	"results/airline__agent-azure-gpt-4o__user-azure-gpt-4o__50tasks.json":          50,
	"results/airline__agent-gpt-oss-120b__user-gpt-oss-120b__50tasks.json":          50,
	"results/airline__agent-toolorchestra__user-gpt-4.1__50tasks.json":              50,
	"results/retail__agent-toolorchestra__user-gpt-4.1__114tasks.json":              114,
	"results/airline__agent-ironforge-gpt-5.4__user-gpt-4.1__7tasks.json":           7,
	"results/airline__agent-ironforge-claude-sonnet-4-6__user-gpt-4.1__7tasks.json": 7,
	"results/airline__agent-ironforge-o3__user-gpt-4.1__9tasks.json":                9,
	"results/airline__agent-gpt-4.1-mini__user-gpt-4.1-mini__1task.json":            1,
	"results/telecom__agent-gpt-4.1-mini__user-gpt-4.1-mini__1task.json":            1,
	"tau_trait/telecom__agent-gpt-5__user-trait-none.json":                          18,
	"tau_trait/telecom__agent-gpt-5__user-trait-confusion.json":                     18,
	"tau_trait/telecom__agent-gpt-5__user-trait-impatience.json":                    18,
	"tau_trait/telecom__agent-gpt-5__user-trait-incoherence.json":                   18,
	"tau_trait/telecom__agent-gpt-5__user-trait-skeptical.json":                     18,
	"tau_trait/telehealth__agent-gpt-5__user-trait-none.json":                       20,
	"tau_trait/telehealth__agent-gpt-5__user-trait-confusion.json":                  20,
	"tau_trait/telehealth__agent-gpt-5__user-trait-impatience.json":                 20,
	"tau_trait/telehealth__agent-gpt-5__user-trait-incoherence.json":                20,
	"tau_trait/telehealth__agent-gpt-5__user-trait-skeptical.json":                  20,
	"tau_trait/airline__agent-gpt-5__user-trait-confusion.json":                     60,
	"tau_trait/airline__agent-gpt-5__user-trait-impatience.json":                    60,
}

// TestIngestTau2Corpus ingests results/ and tau_trait/ and checks every
// file's episode count against the corpus README, the mean reward of a few
// files against the README's R column, user tool calls of telecom files
// against README 1.1 (433 and 104 user tool-call messages), identities, and
// that a second run adds nothing.
func TestIngestTau2Corpus(t *testing.T) {
	root := corpusDir(t, "tau2")
	ws := memWorkspace(t)
	ctx := context.Background()
	paths := []string{filepath.Join(root, "results"), filepath.Join(root, "tau_trait")}
	st, err := Run(ctx, ws, paths, Options{})
	if err != nil {
		t.Fatalf("ingest: %v (%v)", err, st.Errors)
	}
	if st.Files != 26 || st.Episodes != 769 || st.ErrorCount != 0 {
		t.Errorf("files %d, episodes %d, errors %d; want 26, 769, 0", st.Files, st.Episodes, st.ErrorCount)
	}
	for rel, want := range tau2CorpusCounts {
		p := filepath.Join(root, rel)
		if got := count(t, ws, `SELECT count(*) FROM episodes WHERE source_file = ?`, p); got != want {
			t.Errorf("%s: %d episodes, README lists %d", rel, got, want)
		}
	}
	if got := count(t, ws, `SELECT count(*) FROM episodes`); got != 769 {
		t.Errorf("episodes view: %d rows, want 769", got)
	}
	// README 1.1 R column: 0.50, 0.45, 0.38 (gpt-oss), 0.842 (retail toolorchestra: 96/114).
	for rel, want := range map[string]float64{
		"results/airline__agent-gpt-4.1__user-gpt-4.1__20tasks.json":           0.50,
		"results/telecom__agent-gpt-4.1__user-gpt-4.1__40tasks.json":           0.45,
		"results/airline__agent-gpt-oss-120b__user-gpt-oss-120b__50tasks.json": 0.38,
		"tau_trait/telehealth__agent-gpt-5__user-trait-impatience.json":        0.35,
	} {
		var got float64
		if err := ws.Conn().QueryRowContext(ctx, `SELECT avg(reward) FROM episodes WHERE source_file = ?`, filepath.Join(root, rel)).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got < want-0.005 || got > want+0.005 {
			t.Errorf("%s: mean R %.3f, README %.3f", rel, got, want)
		}
	}
	for rel, want := range map[string]int{
		"results/telecom__agent-gpt-4.1__user-gpt-4.1__40tasks.json":         433,
		"results/telecom__agent-gpt-4o__user-gpt-4o__20tasks.json":           104,
		"results/telecom__agent-gpt-4.1-mini__user-gpt-4.1-mini__1task.json": 8,
	} {
		got := count(t, ws, `SELECT count(*) FROM episode_messages m JOIN episodes e USING (simulation_id)
			WHERE e.source_file = ? AND m.role = 'user' AND m.n_tool_calls > 0`, filepath.Join(root, rel))
		if got != want {
			t.Errorf("%s: %d user tool-call messages, README %d", rel, got, want)
		}
	}
	var sim, agent string
	err = ws.Conn().QueryRowContext(ctx, `SELECT DISTINCT user_sim, agent FROM episodes WHERE source_file = ?`,
		filepath.Join(root, "results/airline__agent-gpt-oss-120b__user-gpt-oss-120b__50tasks.json")).Scan(&sim, &agent)
	if err != nil {
		t.Fatal(err)
	}
	if sim != "user_simulator:openai/gpt-oss-120b@t0" || agent != "langchain_agent:openai/gpt-oss-120b@t0" {
		t.Errorf("identities %q, %q", sim, agent)
	}
	// Every tau2 episode finds its embedded task; every task content once.
	if got := count(t, ws, `SELECT count(*) FROM episodes WHERE task_key IS NULL`); got != 0 {
		t.Errorf("%d episodes without a task", got)
	}
	if got := count(t, ws, `SELECT count(*) FROM (SELECT task_key FROM ep_tasks GROUP BY 1 HAVING count(*) > 1)`); got != 0 {
		t.Errorf("%d task keys stored twice", got)
	}
	// toolorchestra files record no user_cost: unknown, never 0.
	if got := count(t, ws, `SELECT count(*) FROM episodes WHERE source_file LIKE '%toolorchestra%' AND user_cost IS NOT NULL`); got != 0 {
		t.Errorf("%d toolorchestra episodes with a cost", got)
	}
	before := count(t, ws, `SELECT count(*) FROM ep_messages`)
	st2, err := Run(ctx, ws, paths, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st2.Episodes != 0 || st2.EpisodesReplaced != 0 || st2.EpisodesUnchanged != 769 || st2.Tasks != 0 {
		t.Errorf("second run: %d added, %d replaced, %d unchanged, %d tasks", st2.Episodes, st2.EpisodesReplaced, st2.EpisodesUnchanged, st2.Tasks)
	}
	if after := count(t, ws, `SELECT count(*) FROM ep_messages`); after != before {
		t.Errorf("messages %d -> %d after a second run", before, after)
	}
}
