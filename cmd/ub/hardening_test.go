package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestPointsImportRefusesTamperedConstantDose is part of defect 10 of
// issue 9: points import silently recomputed a constant_dose that
// contradicts prior_turns; a published set is imported exactly or refused.
func TestPointsImportRefusesTamperedConstantDose(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "d", "ub.duckdb")
	demoDir(t, filepath.Join(dir, "d"))
	good := filepath.Join(dir, "p.jsonl")
	if code, _, errs := runUB(t, "--db", db, "points", "export", "--out", good); code != 0 {
		t.Fatalf("points export: %s", errs)
	}
	b, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	tampered := -1
	for i, l := range lines {
		if strings.Contains(l, `"constant_dose":false`) {
			lines[i] = strings.Replace(l, `"constant_dose":false`, `"constant_dose":true`, 1)
			tampered = i + 1
			break
		}
	}
	if tampered < 0 {
		t.Fatalf("no point with constant_dose false in %s", b)
	}
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	code, _, errs := runUB(t, "--db", db, "points", "import", bad)
	if code != exitBadInput || !strings.Contains(errs, "constant_dose true, but a point with") {
		t.Errorf("tampered import: exit %d, stderr %q; want %d naming constant_dose", code, errs, exitBadInput)
	}
	if !strings.Contains(errs, "bad.jsonl:"+strconv.Itoa(tampered)+":") {
		t.Errorf("stderr %q does not name line %d", errs, tampered)
	}
	if code, _, errs := runUB(t, "--db", db, "points", "import", good); code != 0 {
		t.Errorf("the exported set: exit %d: %s", code, errs)
	}
}
