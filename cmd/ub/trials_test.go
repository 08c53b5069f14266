package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRepeatedTrialsPassK makes a result file with three trials per task
// from a shared tau2 file (the gpt-4.1 user against claude-sonnet-4-5 on 50
// airline tasks, every episode scored), with the verdicts of its episodes
// copied to each trial, and checks the report's pass^k against an
// enumeration of every k-subset of each task's trials (an estimator-free
// computation of "the chance that k trials drawn from the n all succeed").
// Trial k of task i keeps the recorded reward unless (i + k) % 3 == 0,
// where it is flipped.
func TestRepeatedTrialsPassK(t *testing.T) {
	const stem = "airline__agent-claude-sonnet-4-5__user-gpt-4.1__50tasks"
	corpus := filepath.Join(sharedCorpus(), "tau2")
	raw, err := os.ReadFile(filepath.Join(corpus, "results", stem+".json"))
	if err != nil {
		t.Fatalf("shared corpus: %v", err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	sims := doc["simulations"].([]any)
	var out []any
	rewards := map[string][]float64{} // task -> reward per trial
	newIDs := map[string][]string{}   // original id -> the trials' ids
	for i, s := range sims {
		sm := s.(map[string]any)
		id := sm["id"].(string)
		task := fmt.Sprint(sm["task_id"])
		r0 := sm["reward_info"].(map[string]any)["reward"].(float64)
		for k := range 3 {
			c := map[string]any{}
			b, _ := json.Marshal(sm)
			if err := json.Unmarshal(b, &c); err != nil {
				t.Fatal(err)
			}
			r := r0
			if (i+k)%3 == 0 {
				r = 1 - r0
			}
			nid := fmt.Sprintf("%s-t%d", id, k)
			c["id"], c["trial"] = nid, k
			c["reward_info"].(map[string]any)["reward"] = r
			out = append(out, c)
			rewards[task] = append(rewards[task], r)
			newIDs[id] = append(newIDs[id], nid)
		}
	}
	doc["simulations"] = out
	dir := t.TempDir()
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, stem+"_3trials.json")
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	vin, err := os.Open(filepath.Join(corpus, "fidelity", "verdicts", stem+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer vin.Close()
	var vout strings.Builder
	sc := bufio.NewScanner(vin)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var v map[string]any
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		for _, nid := range newIDs[v["simulation_id"].(string)] {
			v["simulation_id"] = nid
			line, _ := json.Marshal(v)
			vout.Write(line)
			vout.WriteByte('\n')
		}
	}
	vfile := filepath.Join(dir, "verdicts.jsonl")
	if err := os.WriteFile(vfile, []byte(vout.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "ub.duckdb")
	for _, args := range [][]string{
		{"ingest", file},
		{"rubrics", "import", filepath.Join(corpus, "fidelity", "rubrics.jsonl")},
		{"verdicts", "import", vfile},
		{"report", "--out", filepath.Join(dir, "rep")},
	} {
		if code, o, e := runUB(t, append([]string{"--db", db}, args...)...); code != 0 {
			t.Fatalf("%v: %d\n%s\n%s", args, code, o, e)
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, "rep", "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	// pass^k by enumeration: the share of k-subsets of a task's 3 trials
	// that are all successes, averaged over the 50 tasks.
	subsets := map[int][][]int{1: {{0}, {1}, {2}}, 2: {{0, 1}, {0, 2}, {1, 2}}, 3: {{0, 1, 2}}}
	want := `| user\_simulator:gpt-4.1@t0 | 50 | 3 |` // the name as report.md escapes it
	for k := 1; k <= 3; k++ {
		var sum float64
		for _, rs := range rewards {
			all := 0
			for _, sub := range subsets[k] {
				ok := true
				for _, j := range sub {
					ok = ok && rs[j] == 1
				}
				if ok {
					all++
				}
			}
			sum += float64(all) / float64(len(subsets[k]))
		}
		want += fmt.Sprintf(" %.3f (50) |", sum/float64(len(rewards)))
	}
	if len(rewards) != 50 || !strings.Contains(string(md), want) {
		i := strings.Index(string(md), "### Trials")
		t.Errorf("report.md lacks %q; trials section:\n%s", want, string(md)[i:min(len(md), i+1200)])
	}
	if !strings.Contains(string(md), "pass^k = C(c, k) / C(n, k) per task") {
		t.Error("report.md does not define pass^k")
	}
	// pass^k is in two tables, over two sets of episodes: each caption
	// says which, and names the other.
	for _, w := range []string{
		`"Trials: pass^k and UFS^k" below counts the scored episodes only.`,
		`Over the scored episodes only (graded, not flagged P0, with an applicable criterion; of the simulators and tasks shown), so that pass^k stands beside UFS^k on the same episodes; "Trials: pass^k from the rewards" above counts every episode with a reward, scored or not.`,
	} {
		if !strings.Contains(string(md), w) {
			t.Errorf("report.md lacks %q", w)
		}
	}
}

// TestTauTraitVarianceDecomposition: the tau-Trait files (one agent, five
// trait simulators on the same 18 telecom and 20 telehealth tasks, two on 60
// airline tasks, one trial each) give a task / simulator / residual
// decomposition of R, and the report says that one trial leaves trial and
// interaction together. The values come from this independent script (the
// balanced two-way ANOVA written out by hand in plain Python), run in
// ../shared/corpus/tau2/tau_trait:
//
//	import json, glob
//	from statistics import mean
//	for dom in ['telecom', 'telehealth', 'airline']:
//	    y = {}
//	    for f in sorted(glob.glob(dom + '__*.json')):
//	        sim = f.split('user-')[1][:-5]
//	        for e in json.load(open(f)):
//	            y.setdefault(str(e['task_id']), {})[sim] = e['reward']
//	    sims = sorted({s for t in y.values() for s in t})
//	    tasks = sorted(t for t in y if len(y[t]) == len(sims))
//	    a, b = len(tasks), len(sims)
//	    g = mean(y[t][s] for t in tasks for s in sims)
//	    rm = {t: mean(y[t][s] for s in sims) for t in tasks}
//	    cm = {s: mean(y[t][s] for t in tasks) for s in sims}
//	    msa = b * sum((rm[t] - g)**2 for t in tasks) / (a - 1)
//	    msb = a * sum((cm[s] - g)**2 for s in sims) / (b - 1)
//	    mse = sum((y[t][s] - rm[t] - cm[s] + g)**2 for t in tasks for s in sims) / ((a - 1) * (b - 1))
//	    vt = max(0, (msa - mse) / b); vs = max(0, (msb - mse) / a); tot = vt + vs + mse
//	    print(dom, a, b, vt, vs, mse, vt / tot, vs / tot, mse / tot)
//
// which prints telecom 18 5 0.086928 0.007516 0.153595 (shares .3505 .0303
// .6192), telehealth 20 5 0.057632 0.006316 0.088684 (.3776 .0414 .5810),
// airline 60 2 0.094915 0 0.151977 (.3844 0 .6156).
func TestTauTraitVarianceDecomposition(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(sharedCorpus(), "tau2", "tau_trait", "*.json"))
	if err != nil || len(files) != 12 {
		t.Fatalf("shared corpus: %d files, %v", len(files), err)
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "ub.duckdb")
	if code, o, e := runUB(t, append([]string{"--db", db, "ingest"}, files...)...); code != 0 {
		t.Fatalf("ingest: %d\n%s\n%s", code, o, e)
	}
	if code, o, e := runUB(t, "--db", db, "report", "--out", filepath.Join(dir, "rep")); code != 0 {
		t.Fatalf("report: %d\n%s\n%s", code, o, e)
	}
	md, err := os.ReadFile(filepath.Join(dir, "rep", "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{
		"| tau-bench v1 | airline | tau1\\_agent:gpt-5 | 2 | 60 | 1 | 0.384 (0.0949) | 0.000 (0.0000) |  |  | 0.616 (0.1520) |  |",
		"| tau-bench v1 | telecom | tau1\\_agent:gpt-5 | 5 | 18 | 1 | 0.350 (0.0869) | 0.030 (0.0075) |  |  | 0.619 (0.1536) |  |",
		"| tau-bench v1 | telehealth | tau1\\_agent:gpt-5 | 5 | 20 | 1 | 0.378 (0.0576) | 0.041 (0.0063) |  |  | 0.581 (0.0887) |  |",
		"one trial cannot tell them apart",
	} {
		if !strings.Contains(string(md), w) {
			t.Errorf("report.md lacks %q", w)
		}
	}
}
