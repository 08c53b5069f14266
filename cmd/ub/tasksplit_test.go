package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gradedSplitWorkspace is fidelityWorkspace with one accepted criterion of
// each family per task, grader g1's verdicts, and tau2 task splits: test
// is airline tasks 1 and 2 (and retail task 3, of a domain without
// episodes), train airline tasks 3 and 4. g1: cheap passes tasks 1-2,
// fails c1 on task 3, nothing applies on task 4; dear passes everything;
// orch (P0 on tasks 1-3) fails c2 on task 4.
func gradedSplitWorkspace(t *testing.T, dir string) string {
	t.Helper()
	db := filepath.Join(dir, "ub.duckdb")
	fidelityWorkspace(t, db)
	var rub, ver strings.Builder
	fams := map[string]string{"c1": "disclosure", "c2": "goal_deviation", "c3": "groundedness", "c4": "omitted_info"}
	modes := map[string]string{"c1": "volunteers_unasked_info", "c2": "accepts_forbidden_outcome", "c3": "unsupported_state", "c4": "withholds_asked_info"}
	for task := 1; task <= 4; task++ {
		quotes := map[string][2]string{"c1": {fmt.Sprintf("your user id is u_%d", task), "known_info"}, "c2": {"You do not accept a fee.", "task_instructions"},
			"c3": {"Disclose information progressively.", "guidelines"}, "c4": {fmt.Sprintf("change flight %d", task), "reason_for_call"}}
		for _, c := range []string{"c1", "c2", "c3", "c4"} {
			fmt.Fprintf(&rub, `{"task_id": "%d", "domain": "airline", "criterion_id": "a-%d-%s", "family": "%s", "mode": "%s", "quote": "%s", "quote_source": "%s", "text": "t"}`+"\n",
				task, task, c, fams[c], modes[c], quotes[c][0], quotes[c][1])
			for _, sim := range []string{"c", "d", "o"} {
				v := "pass"
				switch {
				case sim == "c" && task == 4:
					v = "na"
				case sim == "c" && task == 3 && c == "c1", sim == "o" && task == 4 && c == "c2":
					v = "fail"
				}
				turn := "null"
				if v == "fail" {
					turn = "3"
				}
				fmt.Fprintf(&ver, `{"simulation_id": "%s%d", "criterion_id": "a-%d-%s", "verdict": "%s", "turn_idx": %s, "reason": "r"}`+"\n", sim, task, task, c, v, turn)
			}
		}
	}
	rubrics, verdicts := filepath.Join(dir, "r.jsonl"), filepath.Join(dir, "g1.jsonl")
	os.WriteFile(rubrics, []byte(rub.String()), 0o644)
	os.WriteFile(verdicts, []byte(ver.String()), 0o644)
	if code, out, errs := runUB(t, "--db", db, "rubrics", "import", rubrics); code != 0 {
		t.Fatalf("rubrics import: %d\n%s%s", code, out, errs)
	}
	if code, out, errs := runUB(t, "--db", db, "verdicts", "import", "--grader", "g1", verdicts); code != 0 || !strings.Contains(out, "48 verdicts imported") {
		t.Fatalf("verdicts import: %d\n%s%s", code, out, errs)
	}
	return db
}

// addTaskSplits stores the task splits ub ingest --tasks reads from
// split_tasks.json (TestTau2TaskFolder covers that reading).
func addTaskSplits(t *testing.T, db string) {
	t.Helper()
	if code, _, errs := runUB(t, "--db", db, "sql", "--write", `INSERT INTO ep_task_splits VALUES
		('airline', 'test', '1', 's.json'), ('airline', 'test', '2', 's.json'), ('retail', 'test', '3', 'r.json'),
		('airline', 'train', '3', 's.json'), ('airline', 'train', '4', 's.json')`); code != 0 {
		t.Fatalf("insert splits: %d %s", code, errs)
	}
}

// frontierRows reads ufs-frontier.csv of a report: simulator -> (scored,
// excluded, ufs).
func frontierRows(t *testing.T, rep string) map[string][3]string {
	t.Helper()
	f, err := os.Open(filepath.Join(rep, "ufs-frontier.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][3]string{}
	for _, r := range recs[1:] {
		out[r[0]] = [3]string{r[1], r[2], r[5]}
	}
	return out
}

// TestReportTaskSplit: ub report --task-split keeps only the episodes of
// the split's tasks (by domain and task: retail task 3 of split test does
// not bring airline task 3 in) and says which split it covers; ub compare
// --task-split compares on those tasks only; an unknown split is a usage
// error naming the splits known, and so is a split in a workspace without
// splits.
func TestReportTaskSplit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := gradedSplitWorkspace(t, dir)

	rep := filepath.Join(dir, "rep")
	if code, _, errs := runUB(t, "--db", db, "report", "--task-split", "test", "--out", rep); code != exitUsage ||
		!strings.Contains(errs, "--task-split test: this workspace holds no task splits") {
		t.Errorf("split before any is stored: exit %d %s", code, errs)
	}
	// A grader the workspace does not hold: one "report:" before the
	// message, not two (the message was wrapped twice).
	if code, _, errs := runUB(t, "--db", db, "report", "--grader", "nosuch", "--out", rep); code != exitUsage ||
		!strings.Contains(errs, `ub: report: --grader "nosuch" gave no verdicts (graders: "`) {
		t.Errorf("unknown grader: exit %d %s", code, errs)
	}
	addTaskSplits(t, db)
	if code, _, errs := runUB(t, "--db", db, "report", "--task-split", "dev", "--out", rep); code != exitUsage ||
		!strings.Contains(errs, `--task-split "dev": no domain has that split (splits: "test", "train")`) {
		t.Errorf("unknown split: exit %d %s", code, errs)
	}
	if code, _, errs := runUB(t, "--db", db, "compare", "--task-split", "dev", "cheap", "dear"); code != exitUsage || !strings.Contains(errs, `(splits: "test", "train")`) {
		t.Errorf("compare unknown split: exit %d %s", code, errs)
	}

	// Every task (hand, as TestFidelityEndToEnd): cheap 3 scored, 1
	// excluded (task 4: nothing applies), UFS 2/3; dear 4, 0, 1; orch 1, 3
	// (P0), 0.
	if code, _, errs := runUB(t, "--db", db, "report", "--out", rep); code != 0 {
		t.Fatalf("report: %d %s", code, errs)
	}
	all := map[string][3]string{"cheap": {"3", "1", "0.667"}, "dear": {"4", "0", "1.000"}, "orch": {"1", "3", "0.000"}}
	if got := frontierRows(t, rep); fmt.Sprint(got) != fmt.Sprint(all) {
		t.Errorf("every task: %v, want %v", got, all)
	}
	md, _ := os.ReadFile(filepath.Join(rep, "report.md"))
	if strings.Contains(string(md), "task split") {
		t.Errorf("a report of every task names a task split")
	}
	// Split test, airline tasks 1 and 2: cheap 2 scored, UFS 1; dear 2, 1;
	// orch's two episodes are P0: 0 scored, 2 excluded, no UFS.
	repTest := filepath.Join(dir, "rep-test")
	if code, _, errs := runUB(t, "--db", db, "report", "--task-split", "test", "--out", repTest); code != 0 {
		t.Fatalf("report --task-split test: %d %s", code, errs)
	}
	test := map[string][3]string{"cheap": {"2", "0", "1.000"}, "dear": {"2", "0", "1.000"}, "orch": {"0", "2", ""}}
	if got := frontierRows(t, repTest); fmt.Sprint(got) != fmt.Sprint(test) {
		t.Errorf("split test: %v, want %v", got, test)
	}
	md, _ = os.ReadFile(filepath.Join(repTest, "report.md"))
	for _, w := range []string{"over 6 episodes graded by `g1`: 4 scored, 2 excluded",
		"Only the tasks of task split `test` (tau2's split_tasks.json): 3 tasks of airline, retail;"} {
		if !strings.Contains(string(md), w) {
			t.Errorf("report.md of split test lacks %q", w)
		}
	}

	// compare on split train (tasks 3, 4): cheap is scored on task 3 only
	// (task 4 excluded), dear on both: one common task, one pair; on every
	// task three of each.
	type doc struct {
		Study     string `json:"study"`
		Tasks     int    `json:"tasks"`
		Pairs     int    `json:"paired_episodes"`
		TaskSplit string `json:"task_split"`
	}
	cmpDoc := func(args ...string) doc {
		t.Helper()
		code, out, errs := runUB(t, append([]string{"--db", db, "compare", "--json"}, args...)...)
		var d doc
		if err := json.Unmarshal([]byte(out), &d); err != nil || code != 0 {
			t.Fatalf("compare %v: exit %d, %v %s%s", args, code, err, out, errs)
		}
		return d
	}
	if d := cmpDoc("--task-split", "train", "cheap", "dear"); d != (doc{"fidelity", 1, 1, "train"}) {
		t.Errorf("compare on train: %+v", d)
	}
	if d := cmpDoc("cheap", "dear"); d != (doc{"fidelity", 3, 3, ""}) {
		t.Errorf("compare on every task: %+v", d)
	}
	if code, out, _ := runUB(t, "--db", db, "compare", "--task-split", "train", "cheap", "dear"); code != 0 || !strings.Contains(out, "only the tasks of task split train\n") {
		t.Errorf("compare text on train: %d\n%s", code, out)
	}
}
