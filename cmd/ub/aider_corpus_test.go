package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryEligibleAiderDeveloperGetsEveryGeneration runs the pipeline on the
// real aider chat histories of ../shared/corpus/aider (ingest, split, points,
// generate with both built-in simulators under both conditions) and checks,
// for every eligible developer and every one of their frozen points, that
// each built-in simulator made exactly one generation with text and no error
// per condition. A developer the built-ins cannot serve (an empty profile
// pool, a point without a previous agent turn) would show here as a missing
// or failed cell.
func TestEveryEligibleAiderDeveloperGetsEveryGeneration(t *testing.T) {
	t.Parallel()
	corpus := filepath.Join(sharedCorpus(), "aider")
	if _, err := os.Stat(corpus); err != nil {
		t.Fatalf("corpus not found at %s (set UB_CORPUS): %v", corpus, err)
	}
	db := filepath.Join(t.TempDir(), "ub.duckdb")
	for _, args := range [][]string{
		{"ingest", corpus},
		{"split"},
		{"points"},
		{"generate", "--sim", "mix,retrieve", "--conditions", "profile,noprofile"},
	} {
		if code, _, errs := runUB(t, append([]string{"--db", db}, args...)...); code != 0 {
			t.Fatalf("ub %s: exit %d: %s", args[0], code, errs)
		}
	}
	sql := func(q string) []string {
		t.Helper()
		code, out, errs := runUB(t, "--db", db, "sql", "--format", "csv", q)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", q, code, errs)
		}
		return strings.Split(strings.TrimSpace(out), "\n")[1:] // without the header
	}
	eligible := sql(`select developer from eligibility where eligible order by developer`)
	if len(eligible) == 0 {
		t.Fatal("no eligible developer in the aider corpus: nothing is checked")
	}
	// One row per eligible developer x simulator x condition, with the
	// developer's number of points and the generations that have text and
	// no error; a cell with no generation at all counts 0 through the
	// left join.
	cells := sql(`with cells as (
			select e.developer, s.sim, c.cond
			from eligibility e,
				(values ('mix'), ('retrieve')) s(sim),
				(values ('profile'), ('noprofile')) c(cond)
			where e.eligible)
		select cells.developer, cells.sim, cells.cond,
			(select count(*) from points p where p.developer = cells.developer) as points,
			count(g.point_id) filter (where g.error is null and g.text is not null) as ok,
			count(g.point_id) as rows
		from cells
		left join points p on p.developer = cells.developer
		left join generations g on g.point_id = p.id and g.simulator = cells.sim
			and g.condition = cells.cond and g.window_n = 14 and g.history_k = 0
		group by all order by 1, 2, 3`)
	if len(cells) != 4*len(eligible) {
		t.Fatalf("%d cells for %d eligible developers, want %d: %v", len(cells), len(eligible), 4*len(eligible), cells)
	}
	for _, c := range cells {
		f := strings.Split(c, ",")
		if len(f) != 6 || f[3] == "0" || f[4] != f[3] || f[5] != f[3] {
			t.Errorf("developer,simulator,condition,points,ok,rows = %s: want one generation with text per point", c)
		}
	}
}

// sharedCorpus is the shared corpus the tests read: UB_CORPUS, else
// ../shared/corpus beside the repository.
func sharedCorpus() string {
	if root := os.Getenv("UB_CORPUS"); root != "" {
		return root
	}
	return filepath.Join("..", "..", "..", "shared", "corpus")
}
