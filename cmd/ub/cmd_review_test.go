package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ub-bench/ub/judge/review/reviewtest"
	"github.com/ub-bench/ub/queries"
)

// reviewEpisodes is the fixture's three episodes and three more without
// probes, in two domains.
func reviewEpisodes() []reviewtest.Fixture {
	eps := reviewtest.Three()
	for i, dom := range []string{"airline", "retail", "retail"} {
		eps = append(eps, reviewtest.Fixture{ID: "sim-plain-" + string(rune('a'+i)), Domain: dom, TaskID: "p" + string(rune('0'+i)), Reward: float64(i % 2),
			Reason: "Ask about your order.", Messages: []reviewtest.Message{{Role: "assistant", Content: "Hi"}, {Role: "user", Content: "Where is my order?"}}})
	}
	return eps
}

func reviewWorkspace(t *testing.T, db string) {
	t.Helper()
	ws, err := queries.Open(context.Background(), db, queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if err := reviewtest.Insert(context.Background(), ws, reviewEpisodes()); err != nil {
		t.Fatal(err)
	}
}

func ub(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb strings.Builder
	code := run(append([]string{"ub"}, args...), testStreams(&out, &errb))
	return code, out.String(), errb.String()
}

// TestReviewDemoStep: the demo's review step on a workspace with episodes
// records decisions, and its files are byte-identical across two runs;
// ub review stats then prints every table.
func TestReviewDemoStep(t *testing.T) {
	t.Parallel()
	var dirs []string
	for range 2 {
		dir := t.TempDir()
		db := filepath.Join(dir, "ub.duckdb")
		reviewWorkspace(t, db)
		ws, err := queries.Open(context.Background(), db, queries.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		if err := runReviewDemo(context.Background(), &streams{out: &out, err: io.Discard}, ws, dir); err != nil {
			t.Fatal(err)
		}
		ws.Close()
		if !strings.Contains(out.String(), "batch demo: 6 episodes") {
			t.Errorf("demo output:\n%s", out.String())
		}
		dirs = append(dirs, dir)
	}
	for _, f := range []string{"report.md", "review-error-share.svg", "review-error-share.png", "review-error-share.csv", "review-codes.svg", "review-codes.png", "review-codes.csv"} {
		a, errA := os.ReadFile(filepath.Join(dirs[0], "review", f))
		b, errB := os.ReadFile(filepath.Join(dirs[1], "review", f))
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			t.Errorf("%s: not byte-identical across runs (%v %v)", f, errA, errB)
		}
	}
	db := filepath.Join(dirs[0], "ub.duckdb")
	code, out, errs := ub(t, "--db", db, "review", "stats")
	if code != 0 {
		t.Fatalf("review stats: %d %s", code, errs)
	}
	for _, h := range []string{"## Error share and critical share", "## Errors by code", "## Agent failure against simulator error",
		"## Policies for episodes with a critical simulator error", "## Reviewer agreement and adjudication", "| demo-a (human) | demo-b (human) | 6 |",
		"| all | 6 |"} {
		if !strings.Contains(out, h) {
			t.Errorf("review stats lacks %q:\n%s", h, out)
		}
	}
	// Episodes with a probe (sim-a: reward 1, minor; sim-c: reward 0,
	// critical) are errors for both scripted reviewers; demo-b flips every
	// third episode of the batch, and the adjudicator sides with demo-a, so
	// the final decisions are demo-a's: 2 of 6 with an error, 1 critical.
	if !strings.Contains(out, "| all | 6 | 2/6 = 33.3%") || !strings.Contains(out, "1/6 = 16.7%") {
		t.Errorf("review stats overall row:\n%s", out)
	}
	code, out, _ = ub(t, "--db", db, "review", "export", "--rerun")
	if code != 0 || out != "telecom\t[mobile_data]\n" {
		t.Errorf("export --rerun: %d %q, want telecom's task of sim-c", code, out)
	}
	code, out, _ = ub(t, "--db", db, "review", "export")
	if code != 0 || strings.Count(out, "\n") < 12 {
		t.Fatalf("export: %d\n%s", code, out)
	}
	var first map[string]any
	if err := json.Unmarshal([]byte(strings.SplitN(out, "\n", 2)[0]), &first); err != nil || first["decided_at"] != "2026-01-01T12:00:00Z" {
		t.Errorf("export line: %v %v", first, err)
	}
	rdir := filepath.Join(t.TempDir(), "r")
	if code, out, errs := ub(t, "--db", db, "report", "--out", rdir); code != 0 {
		t.Fatalf("report: %d %s %s", code, out, errs)
	}
	md, _ := os.ReadFile(filepath.Join(rdir, "report.md"))
	if !strings.Contains(string(md), "## Simulator error rate (human review)") || !strings.Contains(string(md), "| all | 6 | 2/6 = 33.3%") {
		t.Errorf("report.md lacks the review section:\n%s", md)
	}
	code, out, _ = ub(t, "--db", db, "review", "stats", "--json", "--interval", "jeffreys")
	if code != 0 || !strings.Contains(out, `"Method": "jeffreys"`) {
		t.Errorf("stats --json: %d\n%.400s", code, out)
	}
}

func TestReviewCommandsRefuse(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "ub.duckdb")
	reviewWorkspace(t, db)
	if code, _, errs := ub(t, "--db", db, "review", "serve", "--addr", "0.0.0.0:0"); code != exitUsage || !strings.Contains(errs, "--allow-remote") {
		t.Errorf("serve on 0.0.0.0: %d %s", code, errs)
	}
	if code, _, errs := ub(t, "--db", db, "review", "serve"); code != exitNoData || !strings.Contains(errs, "ub review sample") {
		t.Errorf("serve without a batch: %d %s", code, errs)
	}
	if code, _, errs := ub(t, "--db", db, "review", "stats"); code != exitNoData {
		t.Errorf("stats without decisions: %d %s", code, errs)
	}
	if code, _, errs := ub(t, "--db", db, "review", "sample", "--n", "7"); code != exitUsage || !strings.Contains(errs, "7 episodes asked") {
		t.Errorf("sample too many: %d %s", code, errs)
	}
	if code, _, errs := ub(t, "--db", db, "review", "sample", "--n", "2", "--stratify", "colour"); code != exitUsage {
		t.Errorf("bad stratum: %d %s", code, errs)
	}
	bad := filepath.Join(t.TempDir(), "bad.csv")
	os.WriteFile(bad, []byte("simulation_id,has_error\nx,perhaps\n"), 0o644)
	if code, _, errs := ub(t, "--db", db, "review", "import", bad); code != exitBadInput || !strings.Contains(errs, "bad.csv:2: has_error") {
		t.Errorf("bad csv: %d %s", code, errs)
	}
	// A note that is not valid UTF-8: exit 3 naming its line, and nothing
	// of the file stored (the good row before it neither).
	os.WriteFile(bad, []byte("simulation_id,has_error,note\nsim-a,false,fine\nsim-b,true,caf\xe9 au lait\n"), 0o644)
	if code, _, errs := ub(t, "--db", db, "review", "import", bad); code != exitBadInput || !strings.Contains(errs, "bad.csv:3: note: not valid UTF-8") {
		t.Errorf("invalid UTF-8 note: %d %s", code, errs)
	}
	if _, out, _ := ub(t, "--db", db, "sql", "--format", "csv", "select count(*) as n from rv_decisions"); out != "n\n0\n" {
		t.Errorf("decisions stored from the refused file:\n%s", out)
	}
}

// TestReviewServeHoldsWorkspace runs ub review serve as its own process:
// the CLI says clearly that the server holds the workspace; a decision the
// server acknowledged is there after the server is killed.
func TestReviewServeHoldsWorkspace(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "ub.duckdb")
	reviewWorkspace(t, db)
	if code, out, errs := ub(t, "--db", db, "review", "sample", "--n", "4", "--seed", "7", "--stratify", "domain,success", "--reviewers", "ann,ben", "--name", "b"); code != 0 {
		t.Fatalf("sample: %d %s %s", code, out, errs)
	}
	a, _ := json.Marshal([]string{"--db", db, "review", "serve"})
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "UB_TEST_MAIN_ARGS="+string(a))
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	br := bufio.NewReader(stdout)
	urls := map[string]string{}
	for len(urls) < 2 {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("serve output: %v", err)
		}
		if f := strings.Fields(line); len(f) == 2 && strings.HasPrefix(f[1], "http://") {
			urls[f[0]] = f[1]
		}
	}
	code, _, errs := ub(t, "--db", db, "review", "stats")
	if code != exitLocked || !strings.Contains(errs, "ub review serve (pid "+strconv.Itoa(cmd.Process.Pid)+")") {
		t.Errorf("stats while serving: %d %s", code, errs)
	}
	// Any writer, not only the review commands, names the server.
	verdicts := filepath.Join(t.TempDir(), "v.jsonl")
	os.WriteFile(verdicts, []byte(`{"simulation_id":"x","criterion_id":"c","verdict":"pass","grader":"g"}`+"\n"), 0o644)
	for _, a := range [][]string{{"verdicts", "import", verdicts}, {"ingest", "../../ingest/testdata/jsonl/good.jsonl"}, {"view"}} {
		code, _, errs = ub(t, append([]string{"--db", db}, a...)...)
		if code != exitLocked || !strings.Contains(errs, "ub review serve (pid "+strconv.Itoa(cmd.Process.Pid)+")") {
			t.Errorf("%s while serving: %d %s", a[0], code, errs)
		}
	}
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 10 * time.Second}
	resp, err := c.Get(urls["ben"])
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	u, _ := url.Parse(urls["ben"])
	base := "http://" + u.Host
	i := strings.Index(string(page), `href="/episode?id=`)
	if i < 0 {
		t.Fatalf("queue page:\n%s", page)
	}
	rest := string(page)[i+len(`href="/episode?id=`):]
	id := rest[:strings.Index(rest, `"`)]
	resp, err = c.Get(base + "/episode?id=" + id)
	if err != nil {
		t.Fatal(err)
	}
	ep, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	j := strings.Index(string(ep), `name="csrf" value="`)
	csrf := string(ep)[j+len(`name="csrf" value="`):]
	csrf = csrf[:strings.Index(csrf, `"`)]
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err = c.PostForm(base+"/decision", url.Values{"csrf": {csrf}, "id": {id}, "outcome": {"no_error"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("save: %d", resp.StatusCode)
	}
	cmd.Process.Kill()
	cmd.Wait()
	code, out, errs := ub(t, "--db", db, "review", "stats", "--reviewer", "ben")
	if code != 0 || !strings.Contains(out, "| all | 1 | 0/1 = 0.0%") {
		t.Errorf("stats after kill: %d %s\n%s", code, errs, out)
	}
}

// TestReviewServeStopsOnSignal: Ctrl-C (SIGINT) and SIGTERM are how a
// review server ends: exit 0, with a line saying every decision is saved.
// (Before, SIGINT exited 130 "interrupted" and SIGTERM killed it silently.)
func TestReviewServeStopsOnSignal(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "ub.duckdb")
	reviewWorkspace(t, db)
	if code, out, errs := ub(t, "--db", db, "review", "sample", "--n", "2", "--seed", "7", "--reviewers", "ann", "--name", "b"); code != 0 {
		t.Fatalf("sample: %d %s %s", code, out, errs)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		a, _ := json.Marshal([]string{"--db", db, "review", "serve"})
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "UB_TEST_MAIN_ARGS="+string(a))
		stdout, _ := cmd.StdoutPipe()
		var errb strings.Builder
		cmd.Stderr = &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReader(stdout)
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				cmd.Process.Kill()
				t.Fatalf("%v: serve output: %v", sig, err)
			}
			if strings.Contains(line, "ann ") && strings.Contains(line, "token=") {
				break
			}
		}
		cmd.Process.Signal(sig)
		err := cmd.Wait()
		if err != nil {
			t.Errorf("%v: serve ended with %v, want exit 0 (stderr %s)", sig, err, errb.String())
		}
		if !strings.Contains(errb.String(), "stopped; every decision is saved in "+db) {
			t.Errorf("%v: stderr %q, want the line saying every decision is saved", sig, errb.String())
		}
	}
}

// TestReviewImportChecksTurns: every import of review data checks its
// errors' turns as verdicts import does. sim-plain-a has two messages,
// turns 0 and 1 (reviewEpisodes). A CSV label at turn 9001, salvaged LLM
// errors at turns 9999 and -7, and a Label Studio annotation on a message
// whose turn says 9001 are each refused naming the file and the line or
// record, and nothing of the file is stored; before, they were stored at
// turns the episode does not have. A turn of an episode ub has not read
// cannot be checked and is refused too.
func TestReviewImportChecksTurns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "ub.duckdb")
	reviewWorkspace(t, db)
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	salvaged := func(resp string) string {
		b, _ := json.Marshal("Failed to parse LLM response: severity. Response: " + resp)
		return `{"user_error": false, "errors": [{"turn_idx": -1, "error_tags": ["parse_error"], "severity": "minor", "reasoning": ` + string(b) + `}]}`
	}
	ls := `[{"data": {"simulation_id": "sim-plain-a", "messages": [{"role": "assistant", "text": "Hi", "turn": 0}, {"role": "user", "text": "Where is my order?", "turn": 9001}]},
	  "annotations": [{"completed_by": 1, "created_at": "2026-01-01T12:00:00Z", "result": [
	    {"id": "outcome", "from_name": "outcome", "to_name": "dialogue", "type": "choices", "value": {"choices": ["error"]}},
	    {"id": "e0", "from_name": "error", "to_name": "dialogue", "type": "paragraphlabels", "value": {"start": "1", "end": "1", "paragraphlabels": ["hallucination"]}}]}]}]`
	for _, c := range []struct {
		name, format, body string
		want               []string
	}{
		{"labels.csv", "", "simulation_id,has_error,turn_idx\nsim-plain-b,true,1\nsim-plain-a,true,9001\nsim-nowhere,true,0\n", []string{
			"labels.csv:3: turn_idx 9001 is past the end of simulation sim-plain-a (its last turn is 1)",
			"labels.csv:4: turn_idx 0 of simulation sim-nowhere cannot be checked: the simulation is not in the workspace"}},
		{"salvaged.json", "tau2", `{"simulations": [
		  {"id": "sim-plain-a", "user_only_review": ` + salvaged(`{"errors": [{"turn_idx": 9999, "error_tags": ["hallucination"], "severity": "minor"}]}`) + `},
		  {"id": "sim-plain-b", "user_only_review": ` + salvaged(`{"errors": [{"turn_idx": -7, "error_tags": ["hallucination"], "severity": "minor"}]}`) + `}]}`, []string{
			"salvaged.json: simulations[0] (salvaged from the raw response): turn_idx 9999 is past the end of simulation sim-plain-a (its last turn is 1)",
			"salvaged.json: simulations[1] (salvaged from the raw response): turn_idx -7 of simulation sim-plain-b: turns count from 0"}},
		{"ls.json", "label-studio", ls, []string{"ls.json: task[0]: turn_idx 9001 is past the end of simulation sim-plain-a (its last turn is 1)"}},
	} {
		p := write(c.name, c.body)
		args := []string{"--db", db, "review", "import"}
		if c.format != "" {
			args = append(args, "--format", c.format)
		}
		code, _, errs := ub(t, append(args, p)...)
		if code != exitBadInput {
			t.Errorf("%s: exit %d, want %d (%s)", c.name, code, exitBadInput, errs)
		}
		for _, w := range c.want {
			if !strings.Contains(errs, filepath.Join(dir, w)) {
				t.Errorf("%s: stderr lacks %q:\n%s", c.name, w, errs)
			}
		}
	}
	if _, out, _ := ub(t, "--db", db, "sql", "--format", "csv", "select count(*) as n from rv_decisions"); out != "n\n0\n" {
		t.Errorf("decisions stored from the refused files:\n%s", out)
	}
	// The same CSV without the bad rows imports, its turn kept.
	p := write("good.csv", "simulation_id,has_error,turn_idx\nsim-plain-b,true,1\n")
	if code, _, errs := ub(t, "--db", db, "review", "import", p); code != 0 {
		t.Fatalf("good csv: %d %s", code, errs)
	}
	if _, out, _ := ub(t, "--db", db, "sql", "--format", "csv", "select turn_idx from rv_errors"); out != "turn_idx\n1\n" {
		t.Errorf("stored turns:\n%s", out)
	}
}
