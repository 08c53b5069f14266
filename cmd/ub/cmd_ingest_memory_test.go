package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ub-bench/ub/queries"
)

// writeSessionsJSONL writes canonical session JSONL of about mb megabytes:
// sessions of 6-30 turns of realistic length, the same for the same size.
func writeSessionsJSONL(t *testing.T, path string, mb int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	bw := bufio.NewWriter(f)
	r := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("the parser cache retry loop fails when input is empty please add tests for config loader why does it crash on large files refactor into smaller functions looks good commit")
	roles := []string{"developer", "agent", "tool", "agent"}
	type turn struct {
		Role string `json:"role"`
		Text string `json:"text"`
	}
	var size int
	for i := 0; size < mb<<20; i++ {
		s := struct {
			ID        string `json:"id"`
			Developer string `json:"developer"`
			Repo      string `json:"repo"`
			Turns     []turn `json:"turns"`
		}{ID: fmt.Sprintf("s%07d", i), Developer: fmt.Sprintf("dev%d", i%500), Repo: fmt.Sprintf("org/repo%d", i%700)}
		for j := 0; j < 6+r.IntN(25); j++ {
			n := 5 + r.IntN(40)
			if roles[j%4] == "tool" {
				n = 20 + r.IntN(200)
			}
			var sb strings.Builder
			for k := 0; k < n; k++ {
				sb.WriteString(words[r.IntN(len(words))])
				sb.WriteByte(' ')
			}
			s.Turns = append(s.Turns, turn{roles[j%4], sb.String()})
		}
		line, _ := json.Marshal(s)
		bw.Write(line)
		bw.WriteByte('\n')
		size += len(line) + 1
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// ingestPeakRSS runs ub ingest of path into a new workspace in a child
// process and returns its peak resident set size in KiB.
func ingestPeakRSS(t *testing.T, path string, args ...string) int64 {
	t.Helper()
	return ingestChild(t, filepath.Join(t.TempDir(), "ub.duckdb"), path, args...)
}

// ingestChild runs ub ingest of path into the workspace db in a child
// process and returns its peak resident set size in KiB, as the child
// reads it (VmHWM: childPeakRSS). The child's rusage would count the
// test process's own resident set when it started the child, and that
// grows as the test writes its inputs.
func ingestChild(t *testing.T, db, path string, args ...string) int64 {
	t.Helper()
	code, out, kib := childPeakRSS(t, append(append([]string{"--db", db}, args...), "ingest", path)...)
	if code != 0 {
		t.Fatalf("ub ingest %s: exit %d\n%s", path, code, out)
	}
	return kib
}

// TestIngestMemoryBounded: the peak RSS of ub ingest grows far less than
// its input. Batches of sessions are bounded in Go (sessBatchBytes, and
// ParseJSONL's chunks of 1 MiB) and DuckDB by its memory limit
// (IngestMemoryShare of --memory-limit, at least IngestMemoryFloor); of an
// open transaction DuckDB holds at most one row group a table (122,880 rows,
// about 30 MB of turn text here) past what it has written. Both inputs are
// past that row group: with --memory-limit 64MiB, 60 MB peaked at 249-273
// MiB and 180 MB at 299-330 MiB (1.10-1.33x, six runs); 20 MB, within one
// row group, at 199-213 MiB. Later, 16 runs gave 240-273 MiB and 284-343
// MiB, 1.13-1.42x (one run in a full make test failed the bound of 1.4
// then in force): the peak of one run varies by some 50 MiB, so the bound
// is 1.5x, where memory that grew with the input would be 2-3x. What
// still grows, slowly (447 MiB at 1.6 GB at the default limit), is not
// traced yet.
func TestIngestMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("ingests 240 MB of sessions")
	}
	dir := t.TempDir()
	small, large := filepath.Join(dir, "small.jsonl"), filepath.Join(dir, "large.jsonl")
	writeSessionsJSONL(t, small, 60)
	writeSessionsJSONL(t, large, 180)
	limit := []string{"--memory-limit", "64MiB"}
	rs, rl := ingestPeakRSS(t, small, limit...), ingestPeakRSS(t, large, limit...)
	t.Logf("peak RSS: %d MiB at 60 MB, %d MiB at 180 MB", rs>>10, rl>>10)
	if float64(rl) > 1.5*float64(rs) {
		t.Errorf("peak RSS %d MiB at 180 MB is more than 1.5x the %d MiB at 60 MB", rl>>10, rs>>10)
	}
}

// TestIngestCompressesTurnText: the workspace of an ingest of sessions
// holds their text compressed. 60 MB of canonical JSONL (56 MB of turn
// text in 206,000 turns, more than one DuckDB row group) makes a workspace
// file of 19 MB; when the last commit's checkpoint left out FSST it was 38
// MB (the turns that checkpoint wrote were stored uncompressed). With a
// commit every 32 MiB of text besides, 100 MB of JSONL made a file of 79
// MB instead of 30, and 400 MB one of 407 MB instead of 97.
func TestIngestCompressesTurnText(t *testing.T) {
	dir := t.TempDir()
	path, db := filepath.Join(dir, "s.jsonl"), filepath.Join(dir, "ub.duckdb")
	writeSessionsJSONL(t, path, 60)
	ingestChild(t, db, path)
	ws, err := queries.Open(context.Background(), db, queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var text, turns int64
	err = ws.Conn().QueryRowContext(context.Background(), "SELECT sum(length(text)), count(*) FROM turns").Scan(&text, &turns)
	ws.Close()
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(db)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d turns, %.1f MB of text, workspace file %.1f MB", turns, float64(text)/1e6, float64(fi.Size())/1e6)
	if turns < 150000 {
		t.Fatalf("%d turns: the input should span more than one row group", turns)
	}
	if float64(fi.Size()) > 0.6*float64(text) {
		t.Errorf("workspace file %d bytes for %d bytes of turn text: the text is not compressed", fi.Size(), text)
	}
}

// copyTau2Results writes n copies of the shared corpus's tau2 result files
// into dir, copy k's simulation ids suffixed with -k so that every copy's
// episodes are new to the workspace.
func copyTau2Results(t *testing.T, dir string, n int) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(sharedCorpus(), "tau2", "results", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no tau2 result files under %s (set UB_CORPUS): %v", sharedCorpus(), err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		sims, _ := doc["simulations"].([]any)
		ids := make([]any, len(sims))
		for i, s := range sims {
			ids[i] = s.(map[string]any)["id"]
		}
		for k := 0; k < n; k++ {
			for i, s := range sims {
				s.(map[string]any)["id"] = fmt.Sprintf("%v-%d", ids[i], k)
			}
			out, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			sub := filepath.Join(dir, fmt.Sprintf("copy%d", k))
			if err := os.MkdirAll(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(sub, filepath.Base(f)), out, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestEpisodeIngestMemoryBounded: the same for tau2 episodes: one and four
// copies of corpus/tau2/results (about 20 and 80 MB, distinct simulation
// ids) at --memory-limit 64MiB peaked at 162-170 and 186-191 MiB
// (1.10-1.18x, three runs).
func TestEpisodeIngestMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("ingests 100 MB of episodes")
	}
	small, large := filepath.Join(t.TempDir(), "one"), filepath.Join(t.TempDir(), "four")
	copyTau2Results(t, small, 1)
	copyTau2Results(t, large, 4)
	limit := []string{"--memory-limit", "64MiB"}
	rs, rl := ingestPeakRSS(t, small, limit...), ingestPeakRSS(t, large, limit...)
	t.Logf("peak RSS: %d MiB for one copy, %d MiB for four", rs>>10, rl>>10)
	if float64(rl) > 1.3*float64(rs) {
		t.Errorf("peak RSS %d MiB for four copies is more than 1.3x the %d MiB for one", rl>>10, rs>>10)
	}
}
