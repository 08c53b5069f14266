package graph

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// generateEdges returns n edges over 0.3n developers and 0.4n repositories,
// the proportions of the benchmark in issue 3 (1,000,000 edges over about
// 300,000 developers and 400,000 repositories). Every developer and every
// repository has at least one edge; the remaining edges pick both ends from
// Zipf laws, so a few developers touch many repositories and a few
// repositories have many developers, while most have one or two: a
// power-law degree, as on public code hosts.
func generateEdges(n int, seed uint64) []Edge {
	r := rand.New(rand.NewPCG(seed, 0))
	nDev, nRepo := n*3/10, n*4/10
	devs := make([]string, nDev)
	for i := range devs {
		devs[i] = fmt.Sprintf("dev-%07d", i)
	}
	repos := make([]string, nRepo)
	for i := range repos {
		repos[i] = fmt.Sprintf("org-%05d/repo-%07d", i%50000, i)
	}
	// s = 1.5 and v = 20 give a heavy tail without one node taking a large
	// share of all edges.
	devZipf := rand.NewZipf(r, 1.5, 20, uint64(nDev-1))
	repoZipf := rand.NewZipf(r, 1.5, 20, uint64(nRepo-1))
	devPerm, repoPerm := r.Perm(nDev), r.Perm(nRepo)
	edges := make([]Edge, n)
	for i := range edges {
		d := devPerm[devZipf.Uint64()]
		if i < nDev {
			d = i
		}
		rp := repoPerm[repoZipf.Uint64()]
		if i < nRepo {
			rp = repoPerm[i]
		}
		edges[i] = Edge{Developer: devs[d], Repo: repos[rp], Sessions: 1 + r.IntN(20)}
	}
	return edges
}

func TestGeneratedGraphShape(t *testing.T) {
	if testing.Short() {
		t.Skip("generates 100,000 edges")
	}
	s := Summarize(Components(generateEdges(100_000, 1)))
	t.Logf("%d components, %d developers, %d repos, largest %d developers x %d repos",
		s.Components, s.Developers, s.Repos, len(s.Largest.Developers), len(s.Largest.Repos))
	if s.Developers != 30_000 || s.Repos != 40_000 {
		t.Errorf("got %d developers and %d repos, want 30000 and 40000", s.Developers, s.Repos)
	}
}

func BenchmarkComponentsAndAssign(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprintf("edges=%d", n), func(b *testing.B) {
			edges := generateEdges(n, 1) // before the loop: b.Loop resets the timer
			b.ReportAllocs()
			for b.Loop() {
				comps := Components(edges)
				if _, err := Assign(comps, SplitOptions{Seed: 1}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
