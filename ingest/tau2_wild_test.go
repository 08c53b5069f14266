package ingest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// dirRun writes a small dir-format tau2 run under a temporary folder:
// results.json (info, one task, the index given, verbatim JSON or "" for
// none) and simulations/<id>.json of each id given. It returns the run's
// folder.
func dirRun(t *testing.T, index string, ids ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	if err := os.MkdirAll(filepath.Join(dir, "simulations"), 0o755); err != nil {
		t.Fatal(err)
	}
	meta := `{"timestamp": "2026-01-03T00:00:00", "info": {"git_commit": "fc0055d", "user_info": {"implementation": "user_simulator", "llm": "gpt-4.1"},
 "agent_info": {"implementation": "llm_agent", "llm": "gpt-4o"}, "environment_info": {"domain_name": "retail"}},
 "tasks": [{"id": "5"}]`
	if index != "" {
		meta += `, "simulation_index": ` + index
	}
	writeFile(t, filepath.Join(dir, "results.json"), meta+"}")
	for _, id := range ids {
		writeFile(t, filepath.Join(dir, "simulations", id+".json"), simJSON(id, ""))
	}
	return dir
}

// simJSON is a finished simulation of task 5 with id; more is added to its
// fields verbatim (", \"agent_cost\": null").
func simJSON(id, more string) string {
	return `{"id": "` + id + `", "task_id": "5", "trial": 0, "termination_reason": "user_stop", "reward_info": {"reward": 1.0}` + more + `,
 "messages": [{"role": "assistant", "content": "Hello."}, {"role": "user", "content": "Done. ###STOP###"}]}`
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestTau2DirSimulationNotARegularFile: a simulation file that is a
// symbolic link to /dev/zero, or a FIFO, is not read (the one would be read
// without end, the other blocks for ever): each is an error naming the file
// and what it is, and the run's other simulations land.
func TestTau2DirSimulationNotARegularFile(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Fatalf("this test needs /dev/zero: %v", err)
	}
	dir := dirRun(t, "", "a1")
	sims := filepath.Join(dir, "simulations")
	zero, fifo := filepath.Join(sims, "z1.json"), filepath.Join(sims, "f1.json")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	ws := memWorkspace(t)
	done := make(chan struct{})
	var st Stats
	var err error
	go func() {
		defer close(done)
		st, err = Run(context.Background(), ws, []string{dir}, Options{})
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		// The hung read is left blocked: let go, it would read /dev/zero.
		t.Fatal("ingest of a run with a FIFO and a link to /dev/zero did not return within 30 s")
	}
	if !errors.Is(err, ErrBadInput) {
		t.Fatalf("err = %v, want ErrBadInput", err)
	}
	want := map[string]string{fifo: "FIFO", zero: "symbolic link to /dev/zero, a character device"}
	if len(st.Errors) != len(want) {
		t.Fatalf("errors %q, want one for each of %v", st.Errors, want)
	}
	for _, e := range st.Errors {
		path := strings.SplitN(e, ": ", 2)[0]
		if w, ok := want[path]; !ok || !strings.Contains(e, "not a regular file") || !strings.Contains(e, w) {
			t.Errorf("error %q: want %q named as not a regular file (%q)", e, path, w)
		}
	}
	if n := count(t, ws, `SELECT count(*) FROM ep_episodes`); n != 1 {
		t.Errorf("%d episodes, want 1 (a1)", n)
	}
}

// TestTau2DirSimulationSizeBound: a simulation file larger than the bound
// is an error naming the file and the bound; it is not read.
func TestTau2DirSimulationSizeBound(t *testing.T) {
	defer func(n int64) { MaxTau2SimulationBytes = n }(MaxTau2SimulationBytes)
	dir := dirRun(t, "", "a1", "b1")
	MaxTau2SimulationBytes = int64(len(simJSON("a1", ""))) // b1's has the same length
	big := filepath.Join(dir, "simulations", "c1.json")
	writeFile(t, big, simJSON("c1", `, "duration": 12.5`))
	ws := memWorkspace(t)
	st, err := Run(context.Background(), ws, []string{dir}, Options{})
	if !errors.Is(err, ErrBadInput) || len(st.Errors) != 1 {
		t.Fatalf("err = %v, errors %q: want one", err, st.Errors)
	}
	if e := st.Errors[0]; !strings.HasPrefix(e, big+": ") || !strings.Contains(e, "larger than the limit") {
		t.Errorf("error %q does not name %s and the limit", e, big)
	}
	if n := count(t, ws, `SELECT count(*) FROM ep_episodes`); n != 2 {
		t.Errorf("%d episodes, want 2", n)
	}
}

// TestTau2DirNullIndexReadsEveryFile: "simulation_index": null is no
// index (tau2 checks the files against it only when it is not null): every
// simulations/*.json is read, by name.
func TestTau2DirNullIndexReadsEveryFile(t *testing.T) {
	for name, index := range map[string]string{"null": "null", "absent": ""} {
		t.Run(name, func(t *testing.T) {
			dir := dirRun(t, index, "b1", "a1", "c1")
			ws := memWorkspace(t)
			st, err := Run(context.Background(), ws, []string{dir}, Options{})
			if err != nil {
				t.Fatalf("ingest: %v %q", err, st.Errors)
			}
			if got := strings.Join(tableDump(t, ws, "(SELECT simulation_id, source_index FROM ep_episodes)"), " "); got != "simulation_id=a1|source_index=0| simulation_id=b1|source_index=1| simulation_id=c1|source_index=2|" {
				t.Errorf("episodes: %s", got)
			}
			files, err := Tau2DirFiles(filepath.Join(dir, "results.json"))
			if err != nil || len(files) != 3 {
				t.Errorf("Tau2DirFiles = %v, %v; want the 3 files", files, err)
			}
		})
	}
}

// TestTau2AgentCostFromUsage: a voice simulation's agent_cost null with an
// agent_usage record (newer tau2) takes the record's cost; a cost nobody
// knows (both null, or neither there) stays NULL, never 0; a recorded
// agent_cost is kept as it is.
func TestTau2AgentCostFromUsage(t *testing.T) {
	dir := dirRun(t, "", "a1")
	sims := filepath.Join(dir, "simulations")
	for id, more := range map[string]string{
		"u1": `, "agent_cost": null, "agent_usage": {"records": [{"provider": "openai", "model": "gpt-realtime", "input_tokens": 900}], "cost": 0.0123, "pricing_version": "2026-01-01", "num_raw_records": 3}`,
		"u2": `, "agent_cost": null, "agent_usage": {"records": [{"provider": "xai", "model": "grok-voice"}], "cost": null}`,
		"u3": `, "agent_cost": null`,
		"u4": `, "agent_cost": 0.5, "agent_usage": {"cost": 0.7}`,
	} {
		writeFile(t, filepath.Join(sims, id+".json"), simJSON(id, more))
	}
	ws, _ := ingestOne(t, dir)
	got := strings.Join(tableDump(t, ws, "(SELECT simulation_id, agent_cost FROM ep_episodes)"), " ")
	want := "simulation_id=a1|agent_cost=<nil>| simulation_id=u1|agent_cost=0.0123| simulation_id=u2|agent_cost=<nil>| simulation_id=u3|agent_cost=<nil>| simulation_id=u4|agent_cost=0.5|"
	if got != want {
		t.Errorf("agent costs:\n got %s\nwant %s", got, want)
	}
}

// TestTau2RepeatedTickRefused: two ticks of a full-duplex simulation with
// the same tick_id are an error naming the file, its line, the simulation
// and both ticks; the file's other simulations land.
func TestTau2RepeatedTickRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "voice.json")
	writeFile(t, path, `{"timestamp": "2026-01-06T09:00:00",
 "info": {"user_info": {"implementation": "voice_user", "llm": "gpt-realtime"}, "agent_info": {"implementation": "voice_agent", "llm": "gpt-realtime"}, "environment_info": {"domain_name": "retail"}},
 "tasks": [{"id": "5"}],
 "simulations": [
`+simJSON("m1", "")+`,
{"id": "v1", "task_id": "5", "trial": 0, "messages": null, "mode": "full_duplex",
 "ticks": [{"tick_id": 0, "timestamp": "t0", "agent_chunk": {"role": "assistant", "content": "Hello.", "timestamp": "t0"}},
           {"tick_id": 1, "timestamp": "t1", "user_chunk": {"role": "user", "content": "Refund please.", "timestamp": "t1"}},
           {"tick_id": 1, "timestamp": "t2", "agent_chunk": {"role": "assistant", "content": "One moment.", "timestamp": "t2"}}]}]}
`)
	ws := memWorkspace(t)
	st, err := Run(context.Background(), ws, []string{path}, Options{})
	if !errors.Is(err, ErrBadInput) || len(st.Errors) != 1 {
		t.Fatalf("err = %v, errors %q: want one", err, st.Errors)
	}
	if e, want := st.Errors[0], path+":7: simulation 1 (id v1): tick 2: tick_id 1 repeats that of tick 1"; e != want {
		t.Errorf("error\n got %q\nwant %q", e, want)
	}
	if n := count(t, ws, `SELECT count(*) FROM ep_episodes`); n != 1 {
		t.Errorf("%d episodes, want 1 (m1)", n)
	}
}
