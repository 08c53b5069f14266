package judge

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// labelsDir returns ../shared/corpus/labels beside the repository, or
// $UB_CORPUS/labels. The corpus is part of the test contract (as in ingest),
// so a missing corpus fails rather than skips.
func labelsDir(t testing.TB) string {
	t.Helper()
	root := os.Getenv("UB_CORPUS")
	if root == "" {
		root = filepath.Join("..", "..", "shared", "corpus")
	}
	dir := filepath.Join(root, "labels")
	if _, err := os.Stat(filepath.Join(dir, "labels.jsonl")); err != nil {
		t.Fatalf("labels corpus not found at %s (set UB_CORPUS): %v", dir, err)
	}
	return dir
}

// Thresholds of the held-back test, from measurements made outside this
// code (never from its own earlier output):
//   - keywordKappa: the corpus README states that a keyword judge reaches
//     about kappa 0.3 on these messages; the built-in judge must beat it
//     with its whole 95% interval.
//   - priorUnseenKappa: issue 14 reports that the built-in judge measured
//     on developers it never saw agreed at kappa 0.53-0.65 with the careful
//     labels; the shipped judge must not fall below the bottom of that range.
const (
	keywordKappa     = 0.30
	priorUnseenKappa = 0.53
)

func formatAgreement(ag Agreement, a, b string) string {
	var sb strings.Builder
	ag.Format(&sb, a, b)
	return sb.String()
}

func TestHeldBackKappa(t *testing.T) {
	exs, err := LoadCorpus(labelsDir(t))
	if err != nil {
		t.Fatal(err)
	}
	tune, held, isHeld := Split(exs, SplitSalt, HeldShare)
	var heldRepos int
	for range isHeld {
		heldRepos++
	}
	t.Logf("split: %d tune messages, %d held back (%d developers)", len(tune), len(held), heldRepos)
	b := builtin(t)
	ag, res, err := Evaluate(b, held)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("held-back part, model labels (rows) against the built-in judge (columns):\n%s", formatAgreement(ag, "labels", "builtin"))
	fine, nfine := 0, 0
	for i, e := range held {
		if e.Fine.Valid() && res[i].Fine.Valid() {
			nfine++
			if e.Fine == res[i].Fine {
				fine++
			}
		}
	}
	t.Logf("7-way agreement on the held-back part: %d of %d (%.3f)", fine, nfine, float64(fine)/float64(nfine))
	tag, _, err := Evaluate(b, tune)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("tune part (trained on; optimistic): kappa %.3f [%.3f, %.3f], p_o %.3f", tag.Kappa, tag.Lo, tag.Hi, tag.Observed)
	if ag.Lo <= keywordKappa {
		t.Errorf("held-back kappa %.3f [%.3f, %.3f]: the interval reaches the keyword judge's %.2f", ag.Kappa, ag.Lo, ag.Hi, keywordKappa)
	}
	if ag.Kappa < priorUnseenKappa {
		t.Errorf("held-back kappa %.3f below %.2f, the bottom of the earlier measurement on unseen developers", ag.Kappa, priorUnseenKappa)
	}
}

// TestDoubleLabelCeiling measures the agreement of the two independent model
// labelling passes in double.jsonl: no judge can be expected to agree with
// one pass much better than the other pass does. The README states 57 of 60
// equal and kappa 0.92.
func TestDoubleLabelCeiling(t *testing.T) {
	ds, err := LoadDouble(labelsDir(t))
	if err != nil {
		t.Fatal(err)
	}
	a := make([]Move, len(ds))
	b := make([]Move, len(ds))
	for i, d := range ds {
		a[i], b[i] = d.A, d.B
	}
	ag, err := Agree(a, b)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("double-labelled items:\n%s", formatAgreement(ag, "pass A", "pass B"))
	if ag.N != 60 || ag.Confusion[0][0]+ag.Confusion[1][1]+ag.Confusion[2][2]+ag.Confusion[3][3]+ag.Confusion[4][4] != 57 {
		t.Errorf("n=%d, p_o=%.3f: README says 57 of 60 equal", ag.N, ag.Observed)
	}
	if ag.Kappa < 0.915 || ag.Kappa > 0.925 {
		t.Errorf("kappa %.4f, README says 0.92", ag.Kappa)
	}
}

// TestShippedFilesMatchCorpus checks that the shipped weights and their
// measurement were made from the labels corpus the tests read (the SHA-256
// of messages.jsonl and labels.jsonl, computed here), so that the numbers
// in builtin_measure.json describe this corpus.
func TestShippedFilesMatchCorpus(t *testing.T) {
	dir := labelsDir(t)
	h := sha256.New()
	for _, name := range []string{"messages.jsonl", "labels.jsonl"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		h.Write(b)
	}
	want := hex.EncodeToString(h.Sum(nil))
	b := builtin(t)
	if b.model.Meta.CorpusSHA256 != want {
		t.Errorf("weights trained on corpus %s, the corpus is %s: run go generate ./judge", b.model.Meta.CorpusSHA256, want)
	}
	if b.model.Calibration == nil {
		t.Error("shipped weights have no calibration")
	}
	m, err := BuiltinMeasurement()
	if err != nil {
		t.Fatal(err)
	}
	if m.CorpusSHA256 != want || m.All.N != 700 || len(m.Coverage) != len(StandardCoverages) {
		t.Errorf("measurement of corpus %s (n %d, %d coverage points), want %s, n 700, %d points", m.CorpusSHA256, m.All.N, len(m.Coverage), want, len(StandardCoverages))
	}
}
