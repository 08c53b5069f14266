package main

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestSynthTrialsEndToEnd runs ub synth --trials 3 and ub report, as a
// user would, next to the single-trial study of the same seed, and reads
// both reports: every leaderboard setting counts 3 x 480 moments; the
// between-trial spread has a row for each with 3 trials and 480 points;
// the mean of the three per-trial accuracies equals the leaderboard's
// accuracy (the macro of each developer's mean over the trials is the
// mean over trials of the per-trial macros when every trial scores the
// same moments, as here: nothing failed or missing); trial 1 is the
// single-trial study (its accuracy is that study's leaderboard accuracy);
// and the trials disagree somewhere (the draws are fresh) but not
// everywhere. The single-trial report has no spread.
func TestSynthTrialsEndToEnd(t *testing.T) {
	dir := t.TempDir()
	report := func(name string, extra ...string) string {
		t.Helper()
		db := filepath.Join(dir, name+".duckdb")
		if code, o, e := runUB(t, append([]string{"--db", db, "synth", "--seed", "3"}, extra...)...); code != 0 {
			t.Fatalf("synth %v: exit %d\n%s%s", extra, code, o, e)
		}
		out := filepath.Join(dir, name)
		if code, o, e := runUB(t, "--db", db, "report", "--out", out); code != 0 {
			t.Fatalf("report: exit %d\n%s%s", code, o, e)
		}
		b, err := os.ReadFile(filepath.Join(out, "report.md"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	one, three := report("one"), report("three", "--trials", "3")
	if strings.Contains(one, "Between-trial spread") {
		t.Error("the single-trial report shows a between-trial spread")
	}
	cells := func(line string) []string {
		f := strings.Split(strings.Trim(line, "|"), "|")
		for i := range f {
			f[i] = strings.TrimSpace(f[i])
		}
		return f
	}
	num := func(s string) float64 {
		t.Helper()
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		return v
	}
	// leaderboard rows: rank | simulator | condition | accuracy | ... | developers | moments | ...
	board := func(md string) map[string][]string {
		out := map[string][]string{}
		sec := md[strings.Index(md, "## Leaderboard"):]
		sec = sec[:strings.Index(sec, "Files: [leaderboard.svg]")]
		for _, l := range strings.Split(sec, "\n") {
			if c := cells(l); strings.HasPrefix(l, "| ") && len(c) == 14 && (c[2] == "noprofile" || c[2] == "profile") {
				out[c[1]+"/"+c[2]] = c
			}
		}
		return out
	}
	b1, b3 := board(one), board(three)
	if len(b3) != 16 || len(b1) != 16 {
		t.Fatalf("leaderboard rows: %d with trials, %d without; want 8 simulators x 2 conditions", len(b3), len(b1))
	}
	spread := map[string][]string{}
	sec := three[strings.Index(three, "**Between-trial spread.**"):]
	sec = sec[:strings.Index(sec, "Files: [leaderboard.svg]")]
	for _, l := range strings.Split(sec, "\n") {
		if c := cells(l); strings.HasPrefix(l, "| ") && len(c) == 9 && c[2] == "3" {
			spread[c[0]+"/"+c[1]] = c
		}
	}
	if len(spread) != 16 {
		t.Fatalf("%d spread rows with 3 trials, want 16:\n%s", len(spread), sec)
	}
	for key, row := range b3 {
		if row[9] != "1440" {
			t.Errorf("%s: %s moments, want 3 trials x 480 points = 1440", key, row[9])
		}
		s := spread[key]
		if s[3] != "480" {
			t.Errorf("%s: %s points with two trials or more, want 480", key, s[3])
		}
		per := strings.Split(s[7], ", ")
		if len(per) != 3 {
			t.Fatalf("%s: per-trial accuracies %q", key, s[7])
		}
		mean := (num(per[0]) + num(per[1]) + num(per[2])) / 3
		// The per-trial accuracies are printed to 3 decimals: their mean
		// is within 0.0005 + rounding of the leaderboard's.
		if acc := num(row[3]); math.Abs(mean-acc) > 0.0011 {
			t.Errorf("%s: mean of the trials %s = %.4f, leaderboard accuracy %.3f", key, s[7], mean, acc)
		}
		if per[0] != b1[key][3] {
			t.Errorf("%s: trial 1 accuracy %s, the single-trial study's %s", key, per[0], b1[key][3])
		}
		differ := s[4][:strings.Index(s[4], "/")]
		if n := num(differ); n == 0 || n == 480 {
			t.Errorf("%s: moves differ at %s of 480 points; want fresh draws that sometimes agree", key, differ)
		}
	}
}
