package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ub-bench/ub/queries"
)

// fidelityWorkspace writes a workspace with three user simulators on four
// airline tasks: cheap (recorded cost 0.01), dear (cost estimated from
// tokens: (10000 x $1 + 5000 x $2) / 1e6 = $0.02) and orch (no cost; its
// episodes of tasks 1-3 flagged P0).
func fidelityWorkspace(t *testing.T, db string) {
	t.Helper()
	ctx := context.Background()
	ws, err := queries.Open(ctx, db, queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	stmts := []string{
		`INSERT INTO ep_prices VALUES ('mD', 1.0, 2.0, '2026-08-01', 'prices.toml')`,
		`INSERT INTO ep_runs (run_id, source_file, format, domain, user_sim, agent, user_model, guidelines) VALUES
		 ('rC', 'c.json', 'tau2', 'airline', 'cheap', 'ag', 'mC', 'Disclose information progressively. Wait for the agent to ask.'),
		 ('rD', 'd.json', 'tau2', 'airline', 'dear', 'ag', 'mD', 'Disclose information progressively. Wait for the agent to ask.'),
		 ('rO', 'o.json', 'tau2', 'airline', 'orch', 'ag', 'mO', NULL)`,
	}
	for task := 1; task <= 4; task++ {
		stmts = append(stmts, fmt.Sprintf(`INSERT INTO ep_tasks (task_key, domain, task_id, format, reason_for_call, known_info, task_instructions, raw, source_file)
			VALUES ('k%d', 'airline', '%d', 'tau2', 'You want to change flight %d.', 'Your user id is u_%d.', 'You do not accept a fee.', '{}', 'c.json')`, task, task, task, task))
		for _, run := range []string{"C", "D", "O"} {
			cost, tin, tout := "0.01", "NULL", "NULL"
			switch run {
			case "D":
				cost, tin, tout = "0", "10000", "5000"
			case "O":
				cost = "NULL"
			}
			stmts = append(stmts, fmt.Sprintf(`INSERT INTO ep_episodes (simulation_id, run_id, source_file, source_index, content_hash, domain, task_id, reward, user_cost, user_tokens_in, user_tokens_out, n_messages)
				VALUES ('%s%d', 'r%s', '%s.json', %d, 'h', 'airline', '%d', 1, %s, %s, %s, 2)`, strings.ToLower(run), task, run, run, task, task, cost, tin, tout))
		}
		// Each episode: the agent's greeting (turn 0), then user, agent, user.
		for _, run := range []string{"c", "d", "o"} {
			stmts = append(stmts, fmt.Sprintf(`INSERT INTO ep_messages (simulation_id, idx, turn_idx, role, content, n_tool_calls) VALUES
				('%[1]s%[2]d', 0, 0, 'assistant', 'Hi!', 0), ('%[1]s%[2]d', 1, 1, 'user', 'hello', 0),
				('%[1]s%[2]d', 2, 2, 'assistant', 'How can I help?', 0), ('%[1]s%[2]d', 3, 3, 'user', 'change my flight', 0)`, run, task))
		}
		if task <= 3 {
			stmts = append(stmts, fmt.Sprintf(`INSERT INTO ep_probe_findings (simulation_id, probe, evidence) VALUES ('o%d', 'P0', 'user id zed_9')`, task))
		}
	}
	for _, s := range stmts {
		if _, err := ws.Conn().ExecContext(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

func TestFidelityEndToEnd(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "ub.duckdb")
	fidelityWorkspace(t, db)
	var rub strings.Builder
	crit := func(task int, c, family, mode, quote, source string) {
		fmt.Fprintf(&rub, `{"task_id": "%d", "domain": "airline", "criterion_id": "a-%d-%s", "family": "%s", "mode": "%s", "quote": "%s", "quote_source": "%s", "text": "t"}`+"\n",
			task, task, c, family, mode, quote, source)
	}
	for task := 1; task <= 4; task++ {
		crit(task, "c1", "disclosure", "volunteers_unasked_info", fmt.Sprintf("your user id is u_%d", task), "known_info")
		crit(task, "c2", "goal_deviation", "accepts_forbidden_outcome", "You do not accept a fee.", "task_instructions")
		crit(task, "c3", "groundedness", "unsupported_state", "Disclose information progressively.", "guidelines")
		crit(task, "c4", "omitted_info", "withholds_asked_info", fmt.Sprintf("change flight %d", task), "reason_for_call")
	}
	crit(1, "c5", "disclosure", "volunteers_unasked_info", "your user id is u_2", "known_info") // line 17: another task's id
	rubrics := filepath.Join(dir, "r.jsonl")
	os.WriteFile(rubrics, []byte(rub.String()), 0o644)
	code, out, errs := runUB(t, "--db", db, "rubrics", "import", rubrics)
	if code != exitBadInput || !strings.Contains(errs, "r.jsonl:17: criterion a-1-c5: quote") || !strings.Contains(out, "16 criteria of 4 tasks imported") {
		t.Fatalf("rubrics import: %d\n%s\n%s", code, out, errs)
	}
	if code, out, _ := runUB(t, "--db", db, "rubrics", "show", "3"); code != 0 || !strings.Contains(out, "a-3-c4  airline/3  omitted_info.withholds_asked_info  [accepted]") {
		t.Fatalf("rubrics show: %d %s", code, out)
	}

	// Grader g1: cheap passes tasks 1-2, fails c1 on task 3, nothing
	// applies on task 4; dear passes everything; orch fails c2 on task 4
	// (its tasks 1-3 are P0). Grader g2 agrees except on cheap's task 3.
	var g1, g2 strings.Builder
	verdict := func(b *strings.Builder, sim string, task int, c, v string) {
		turn := "null"
		if v == "fail" {
			turn = "3"
		}
		fmt.Fprintf(b, `{"simulation_id": "%s%d", "criterion_id": "a-%d-%s", "verdict": "%s", "turn_idx": %s, "reason": "r"}`+"\n", sim, task, task, c, v, turn)
	}
	for task := 1; task <= 4; task++ {
		for _, c := range []string{"c1", "c2", "c3", "c4"} {
			vc := "pass"
			switch {
			case task == 4:
				vc = "na"
			case task == 3 && c == "c1":
				vc = "fail"
			}
			verdict(&g1, "c", task, c, vc)
			if task == 3 && c == "c1" {
				vc = "pass"
			}
			verdict(&g2, "c", task, c, vc)
			verdict(&g1, "d", task, c, "pass")
			vo := "pass"
			if task == 4 && c == "c2" {
				vo = "fail"
			}
			verdict(&g1, "o", task, c, vo)
		}
	}
	fmt.Fprintln(&g1, `{"simulation_id": "c1", "criterion_id": "a-2-c1", "verdict": "pass", "turn_idx": null, "reason": "r"}`)
	v1, v2 := filepath.Join(dir, "g1.jsonl"), filepath.Join(dir, "g2.jsonl")
	os.WriteFile(v1, []byte(g1.String()), 0o644)
	os.WriteFile(v2, []byte(g2.String()), 0o644)
	code, out, errs = runUB(t, "--db", db, "verdicts", "import", "--grader", "g1", v1)
	if code != exitBadInput || !strings.Contains(errs, "g1.jsonl:49: criterion a-2-c1 is of task airline/2, simulation c1 of task airline/1") || !strings.Contains(out, "48 verdicts imported (grader g1)") {
		t.Fatalf("verdicts import g1: %d\n%s\n%s", code, out, errs)
	}
	if code, out, errs := runUB(t, "--db", db, "verdicts", "import", "--grader", "g2", v2); code != 0 || !strings.Contains(out, "16 verdicts imported") {
		t.Fatalf("verdicts import g2: %d\n%s\n%s", code, out, errs)
	}
	// The view: orch's P0 episodes have a null f.
	code, out, _ = runUB(t, "--db", db, "sql", "--format", "csv", "SELECT simulation_id, applicable, failed, p0, f FROM episode_fidelity WHERE grader = 'g1' AND simulation_id LIKE 'o%' ORDER BY simulation_id")
	if code != 0 || out != "simulation_id,applicable,failed,p0,f\no1,4,0,true,\no2,4,0,true,\no3,4,0,true,\no4,4,1,false,0\n" {
		t.Fatalf("episode_fidelity: %d\n%s", code, out)
	}

	rep := filepath.Join(dir, "rep")
	if d := os.Getenv("UB_KEEP_REPORT"); d != "" {
		rep = d
	}
	code, out, errs = runUB(t, "--db", db, "report", "--q", "0.5,0.7,0.9", "--out", rep)
	if code != 0 {
		t.Fatalf("report: %d\n%s\n%s", code, out, errs)
	}
	f, err := os.Open(filepath.Join(rep, "ufs-frontier.csv"))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	// Hand: cheap UFS 2/3 (tasks 1, 2 pass, 3 fails, 4 excluded), cost
	// 0.01; dear 1, 0.02 estimated; orch 0 on its one scored episode, 3
	// excluded (P0), cost unknown. q .5 -> cheap (2 feasible: orch has no
	// cost); .7 and .9 -> dear. Epoch at q .5: 1000 x 64 x 0.01 = 640.
	// The bootstrap bounds: dear has f = 1 and R = 1 on every scored
	// episode and orch f = 0, R = 1 on its one, so every replicate gives the
	// same value and the interval is that point; cheap's must hold 0.667.
	want := [][]string{
		{"simulator", "episodes_scored", "episodes_excluded", "excluded_p0", "excluded_no_criteria", "ufs", "ufs_lo", "ufs_hi", "mean_reward", "mean_reward_lo", "mean_reward_hi",
			"cost_per_sim", "cost_estimated", "cost_known_episodes", "dominated", "dominated_by", "chosen_at_q"},
		{"cheap", "3", "1", "0", "1", "0.667", "*", "*", "1.000", "1.000", "1.000", "0.01000", "false", "4", "false", "", "0.50"},
		{"dear", "4", "0", "0", "0", "1.000", "1.000", "1.000", "1.000", "1.000", "1.000", "0.02000", "true", "4", "false", "", "0.70 0.90"},
		{"orch", "1", "3", "3", "0", "0.000", "0.000", "0.000", "1.000", "1.000", "1.000", "", "", "0", "false", "", ""},
	}
	cheapLo := math.NaN()
	if len(recs) == len(want) && len(recs[1]) == len(want[1]) {
		lo, _ := strconv.ParseFloat(recs[1][6], 64)
		cheapLo = lo
		hi, _ := strconv.ParseFloat(recs[1][7], 64)
		if !(lo <= 0.667 && 0.667 <= hi && lo >= 0 && hi <= 1) {
			t.Errorf("cheap's UFS interval [%v, %v] does not hold 0.667", lo, hi)
		}
		recs[1][6], recs[1][7] = "*", "*"
	}
	if fmt.Sprint(recs) != fmt.Sprint(want) {
		t.Errorf("ufs-frontier.csv:\n got %v\nwant %v", recs, want)
	}
	md, _ := os.ReadFile(filepath.Join(rep, "report.md"))
	// Kappa by hand over cheap's 16 pairs: g1 pass 11 fail 1 na 4, g2 pass
	// 12 na 4, 15 equal: p_o = 15/16, p_e = (11*12 + 4*4)/256 = 148/256,
	// kappa = (0.9375 - 0.578125) / 0.421875 = 0.852.
	for _, w := range []string{"## User fidelity score (UFS)", "| all | 16 | 15 | 0.852 |", "| 0.50 | cheap | 0.667 | 0.01000 | 2 | 640.00 |", "mD at $1 in / $2 out per million tokens (read 2026-08-01, prices.toml)", "![ufs-frontier](ufs-frontier.png)"} {
		if !strings.Contains(string(md), w) {
			t.Errorf("report.md lacks %q", w)
		}
	}
	// Byte for byte the same a second time.
	rep2 := filepath.Join(dir, "rep2")
	if code, _, errs := runUB(t, "--db", db, "report", "--q", "0.5,0.7,0.9", "--out", rep2); code != 0 {
		t.Fatalf("report 2: %s", errs)
	}
	ents, _ := os.ReadDir(rep)
	for _, e := range ents {
		a, _ := os.ReadFile(filepath.Join(rep, e.Name()))
		b, _ := os.ReadFile(filepath.Join(rep2, e.Name()))
		if string(a) != string(b) {
			t.Errorf("%s differs between runs", e.Name())
		}
	}
	if code, out, _ := runUB(t, "--db", db, "report", "--figure", "failure-families", "--out", filepath.Join(dir, "one")); code != 0 || !strings.Contains(out, "failure-families.svg") {
		t.Errorf("report --figure: %d %s", code, out)
	}
	if code, _, errs := runUB(t, "--db", db, "report", "--q", "2", "--out", rep2); code != exitUsage || !strings.Contains(errs, "--q") {
		t.Errorf("bad --q: %d %s", code, errs)
	}
	// A fail must name a user turn of its episode (turns 0-3, the user's 1
	// and 3): null, past the end and the agent's greeting are refused with
	// their line, and nothing of those lines is stored.
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"simulation_id": "c1", "criterion_id": "a-1-c1", "verdict": "fail", "turn_idx": null, "reason": "r"}
{"simulation_id": "c1", "criterion_id": "a-1-c2", "verdict": "fail", "turn_idx": 9999, "reason": "r"}
{"simulation_id": "c1", "criterion_id": "a-1-c3", "verdict": "fail", "turn_idx": 0, "reason": "r"}
{"simulation_id": "c1", "criterion_id": "a-1-c4", "verdict": "fail", "turn_idx": 2, "reason": "r"}
{"simulation_id": "c2", "criterion_id": "a-2-c4", "verdict": "fail", "turn_idx": 1, "reason": "r"}
{"simulation_id": "c1", "criterion_id": "a-1-c1", "verdict": "fail"}
`), 0o644)
	code, out, errs = runUB(t, "--db", db, "verdicts", "import", "--grader", "g3", bad)
	for _, w := range []string{"bad.jsonl:1: a fail without its turn_idx", "bad.jsonl:2: turn_idx 9999 is past the end of simulation c1 (its last turn is 3)",
		"bad.jsonl:3: turn_idx 0 of simulation c1 is not a user turn", "bad.jsonl:4: turn_idx 2 of simulation c1 is not a user turn", "bad.jsonl:6: a fail without its turn_idx"} {
		if !strings.Contains(errs, w) {
			t.Errorf("verdicts import bad.jsonl lacks %q:\n%s", w, errs)
		}
	}
	if code != exitBadInput || !strings.Contains(out, "1 verdicts imported (grader g3)") {
		t.Fatalf("verdicts import bad.jsonl: %d\n%s\n%s", code, out, errs)
	}
	if _, out, _ := runUB(t, "--db", db, "sql", "--format", "csv", "SELECT criterion_id, turn_idx FROM ep_verdicts WHERE grader = 'g3' ORDER BY 1"); out != "criterion_id,turn_idx\na-2-c4,1\n" {
		t.Fatalf("stored of bad.jsonl:\n%s", out)
	}
	if code, _, errs := runUB(t, "--db", db, "report", "--frontier-rule", "median", "--out", rep2); code != exitUsage || !strings.Contains(errs, "--frontier-rule") {
		t.Errorf("bad --frontier-rule: %d %s", code, errs)
	}
	// On the lower bound, cheap (3 scored episodes, 2 faithful) is feasible
	// at q = .5 only if its lower bound reaches .5; dear's is 1.
	rep3 := filepath.Join(dir, "rep3")
	if code, _, errs := runUB(t, "--db", db, "report", "--q", "0.5", "--frontier-rule", "lower", "--out", rep3); code != 0 {
		t.Fatalf("report --frontier-rule lower: %s", errs)
	}
	md3, _ := os.ReadFile(filepath.Join(rep3, "report.md"))
	if !strings.Contains(string(md3), "U*(q) chosen on the lower bound of the UFS 95% interval") || !strings.Contains(string(md3), "on the lower bound of the UFS 95% bootstrap interval") {
		t.Errorf("report.md does not state the lower rule")
	}
	wantChoice := "| 0.50 | dear | 1.000 |"
	if cheapLo >= 0.5 {
		wantChoice = "| 0.50 | cheap | 0.667 |"
	}
	if !strings.Contains(string(md3), wantChoice) {
		t.Errorf("lower rule (cheap's lower bound %v): report.md lacks %q", cheapLo, wantChoice)
	}
}
