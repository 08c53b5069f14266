package graph

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// singletons returns n one-developer, one-repo edges d000-r000, ...
func singletons(prefix string, n, sessions int) []Edge {
	edges := make([]Edge, n)
	for i := range edges {
		edges[i] = Edge{fmt.Sprintf("%sd%03d", prefix, i), fmt.Sprintf("%sr%03d", prefix, i), sessions}
	}
	return edges
}

// team returns edges making k developers share one repo.
func team(name string, k, sessionsEach int) []Edge {
	edges := make([]Edge, k)
	for i := range edges {
		edges[i] = Edge{fmt.Sprintf("%s-d%02d", name, i), name, sessionsEach}
	}
	return edges
}

// splitCounts returns developers per split, in split order.
func splitCounts(a Assignment) []int {
	out := make([]int, len(a.Splits))
	for i, s := range a.Splits {
		out[i] = s.Developers
	}
	return out
}

func mustAssign(t *testing.T, comps []Component, opts SplitOptions) Assignment {
	t.Helper()
	a, err := Assign(comps, opts)
	if err != nil {
		t.Fatalf("Assign(%+v): %v", opts, err)
	}
	return a
}

func TestAssignKeepsSharedDevelopersTogether(t *testing.T) {
	// d1 spans r1 and r2; d2 shares r2. Fifty singletons give the seed room
	// to move them around.
	edges := append([]Edge{{"d1", "r1", 1}, {"d1", "r2", 1}, {"d2", "r2", 1}}, singletons("s", 50, 1)...)
	comps := Components(edges)
	seen := map[string]int{}
	for seed := range int64(100) {
		a := mustAssign(t, comps, SplitOptions{Seed: seed})
		devs, repos := a.NodeSplits(comps)
		s := devs["d1"]
		if devs["d2"] != s || repos["r1"] != s || repos["r2"] != s {
			t.Fatalf("seed %d: d1 in %q, d2 in %q, r1 in %q, r2 in %q; want one split",
				seed, s, devs["d2"], repos["r1"], repos["r2"])
		}
		if err := Audit(edges, devs, repos); err != nil {
			t.Fatalf("seed %d: Audit: %v", seed, err)
		}
		seen[s]++
	}
	// The pair, the largest component, fits in every split of 52
	// developers, so the seed sends it to each of them (train about 70
	// times in 100, val 10, test 20), not always to train.
	if len(seen) != 3 {
		t.Errorf("over 100 seeds the pair went to %v, want all three splits", seen)
	}
	t.Logf("the pair's splits over 100 seeds: %v", seen)
}

func TestAssignCounts(t *testing.T) {
	tests := []struct {
		name         string
		edges        []Edge
		opts         SplitOptions
		wantDevs     []int    // developers per split
		wantSessions []int    // sessions per split; nil skips
		wantWarnings []string // substrings, one per warning, in order
	}{
		{
			name:         "hundred singletons meet 0.7/0.1/0.2 exactly",
			edges:        singletons("", 100, 1),
			wantDevs:     []int{70, 10, 20},
			wantWarnings: nil,
		},
		{
			// Targets 7, 1, 2 developers. The 8-developer team fits nowhere
			// and overshoots train; the 2-developer team fits only test.
			name:     "one huge component makes the ratios unreachable and is reported",
			edges:    append(team("big", 8, 1), team("pair", 2, 1)...),
			wantDevs: []int{8, 0, 2},
			wantWarnings: []string{
				`component 0 (8 developers, 1 repos, developer "big-d00" ...) holds 80.0% of developers, more than the 70.0% target of split "train": the ratios cannot be met`,
				`split "val" received no components (target 10.0% of developers)`,
			},
		},
		{
			// Targets 7 and 3: the two singletons can only go to test.
			name:     "a huge component overshoots train and the rest fill test",
			edges:    append(team("big", 8, 1), singletons("", 2, 1)...),
			opts:     SplitOptions{Ratios: []Ratio{{"train", 0.7}, {"test", 0.3}}},
			wantDevs: []int{8, 2},
			wantWarnings: []string{
				`component 0 (8 developers, 1 repos, developer "big-d00" ...) holds 80.0% of developers, more than the 70.0% target of split "train"`,
			},
		},
		{
			name:     "a single component leaves two splits empty, all reported",
			edges:    team("all", 5, 1),
			wantDevs: []int{5, 0, 0},
			wantWarnings: []string{
				`component 0 (5 developers, 1 repos, developer "all-d00" ...) holds 100.0% of developers, more than the 70.0% target of split "train"`,
				`split "val" received no components (target 10.0% of developers)`,
				`split "test" received no components (target 20.0% of developers)`,
			},
		},
		{
			// 100 sessions: heavy (70) fills train's target exactly, the
			// thirty 1-session developers split 10 / 20.
			name:         "by sessions a heavy developer fills train alone",
			edges:        append([]Edge{{"heavy", "hr", 70}}, singletons("", 30, 1)...),
			opts:         SplitOptions{By: BySessions},
			wantDevs:     []int{1, 10, 20},
			wantSessions: []int{70, 10, 20},
		},
		{
			// Same graph by developers: targets 21.7, 3.1, 6.2 of 31.
			name:         "by developers the heavy developer counts as one",
			edges:        append([]Edge{{"heavy", "hr", 70}}, singletons("", 30, 1)...),
			wantDevs:     []int{22, 3, 6},
			wantSessions: nil,
		},
		{
			name:     "a split with ratio 0 receives nothing and is not warned about",
			edges:    singletons("", 10, 1),
			opts:     SplitOptions{Ratios: []Ratio{{"train", 0.5}, {"val", 0}, {"test", 0.5}}},
			wantDevs: []int{5, 0, 5},
		},
		{
			name:  "without developers components are counted instead",
			edges: []Edge{{Repo: "a"}, {Repo: "b"}, {Repo: "c"}, {Repo: "d"}},
			opts:  SplitOptions{Ratios: []Ratio{{"train", 0.75}, {"test", 0.25}}},
			// wantDevs is all zeros; the components split 3 / 1.
			wantDevs: []int{0, 0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			comps := Components(tt.edges)
			a := mustAssign(t, comps, tt.opts)
			if got := splitCounts(a); !slices.Equal(got, tt.wantDevs) {
				t.Errorf("developers per split: got %v, want %v", got, tt.wantDevs)
			}
			if tt.wantSessions != nil {
				got := make([]int, len(a.Splits))
				for i, s := range a.Splits {
					got[i] = s.Sessions
				}
				if !slices.Equal(got, tt.wantSessions) {
					t.Errorf("sessions per split: got %v, want %v", got, tt.wantSessions)
				}
			}
			if len(a.Warnings) != len(tt.wantWarnings) {
				t.Fatalf("warnings: got %q, want %d matching %q", a.Warnings, len(tt.wantWarnings), tt.wantWarnings)
			}
			for i, w := range tt.wantWarnings {
				if !strings.Contains(a.Warnings[i], w) {
					t.Errorf("warning %d: got %q, want it to contain %q", i, a.Warnings[i], w)
				}
			}
			checkAssignment(t, tt.edges, comps, a)
		})
	}
}

func TestAssignComponentFallbackSplitsComponents(t *testing.T) {
	comps := Components([]Edge{{Repo: "a"}, {Repo: "b"}, {Repo: "c"}, {Repo: "d"}})
	a := mustAssign(t, comps, SplitOptions{Ratios: []Ratio{{"train", 0.75}, {"test", 0.25}}})
	if a.Splits[0].Components != 3 || a.Splits[1].Components != 1 {
		t.Errorf("components per split: got %d, %d; want 3, 1", a.Splits[0].Components, a.Splits[1].Components)
	}
	if a.Splits[0].Achieved != 0.75 {
		t.Errorf("train achieved %v of components, want 0.75", a.Splits[0].Achieved)
	}
}

func TestAssignEqualComponentsWithinOneComponent(t *testing.T) {
	ratioSets := [][]Ratio{
		DefaultRatios(),
		{{"train", 0.8}, {"val", 0.1}, {"test", 0.1}},
		{{"train", 0.6}, {"val", 0.2}, {"test", 0.2}},
		{{"a", 0.55}, {"b", 0.45}},
		{{"a", 0.33}, {"b", 0.33}, {"c", 0.34}},
	}
	for _, size := range []int{1, 3, 7} {
		for _, n := range []int{10, 37, 100, 333} {
			name := fmt.Sprintf("%d components of size %d land within %d developers of every target", n, size, size)
			t.Run(name, func(t *testing.T) {
				var edges []Edge
				for i := range n {
					edges = append(edges, team(fmt.Sprintf("t%03d", i), size, 1)...)
				}
				comps := Components(edges)
				for _, rs := range ratioSets {
					for seed := range int64(5) {
						a := mustAssign(t, comps, SplitOptions{Seed: seed, Ratios: rs})
						for _, s := range a.Splits {
							target := s.Target * float64(n*size)
							if d := math.Abs(float64(s.Developers) - target); d > float64(size)+1e-9 {
								t.Errorf("%s, seed %d: split %s has %d developers, target %.2f: off by %.2f > %d",
									FormatRatios(rs), seed, s.Name, s.Developers, target, d, size)
							}
						}
					}
				}
			})
		}
	}
}

func TestAssignHash(t *testing.T) {
	comps := Components(singletons("", 200, 1))
	hashes := map[string]int64{}
	for seed := range int64(20) {
		a := mustAssign(t, comps, SplitOptions{Seed: seed})
		b := mustAssign(t, comps, SplitOptions{Seed: seed})
		if a.Hash != b.Hash || !slices.Equal(a.ComponentSplits, b.ComponentSplits) {
			t.Fatalf("seed %d: two runs differ: %s vs %s", seed, a.Hash, b.Hash)
		}
		if other, ok := hashes[a.Hash]; ok {
			t.Fatalf("seeds %d and %d give the same hash %s", other, seed, a.Hash)
		}
		hashes[a.Hash] = seed
	}

	t.Run("same seed on reordered components gives the same hash", func(t *testing.T) {
		want := mustAssign(t, comps, SplitOptions{Seed: 7}).Hash
		shuffled := slices.Clone(comps)
		r := rand.New(rand.NewPCG(3, 4))
		r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		if got := mustAssign(t, shuffled, SplitOptions{Seed: 7}).Hash; got != want {
			t.Errorf("hash %s, want %s", got, want)
		}
	})

	t.Run("hash is the SHA-256 of the documented text", func(t *testing.T) {
		// Targets 2.1, 0.3, 0.6 developers: the pair fits only train; zed
		// fits nowhere and goes to the largest deficit, test's 0.6. Names
		// with a tab, a newline and a backslash are escaped.
		comps := Components([]Edge{
			{"zed", "rb", 1}, {"zed", "ra", 1},
			{"b\tob", `r\1`, 1}, {"al\nice", `r\1`, 1},
		})
		a := mustAssign(t, comps, SplitOptions{})
		text := "developer\tal\\nice\ttrain\n" +
			"developer\tb\\tob\ttrain\n" +
			"repo\tr\\\\1\ttrain\n" +
			"developer\tzed\ttest\n" +
			"repo\tra\ttest\n" +
			"repo\trb\ttest\n"
		sum := sha256.Sum256([]byte(text))
		if want := hex.EncodeToString(sum[:]); a.Hash != want {
			t.Errorf("hash %s, want %s (sha256 of %q)", a.Hash, want, text)
		}
	})

	t.Run("pinned hash does not move between Go releases", func(t *testing.T) {
		// Computed once with this package; a change means every stored
		// split in every workspace changes its hash. Only the shuffle and
		// the PCG generator can move it.
		a := mustAssign(t, Components(singletons("", 20, 1)), SplitOptions{Seed: 42})
		const want = "111f30551f146fa9733a86180d43e19810c45b0ac7a8da32e533864eafe18ba8"
		if a.Hash != want {
			t.Errorf("hash %s, want %s (splits %v)", a.Hash, want, a.ComponentSplits)
		}
	})
}

func TestAssignErrors(t *testing.T) {
	comps := Components(singletons("", 3, 1))
	tests := []struct {
		name    string
		comps   []Component
		opts    SplitOptions
		wantErr string
	}{
		{"ratios not summing to 1 are rejected", comps,
			SplitOptions{Ratios: []Ratio{{"train", 0.7}, {"test", 0.2}}}, "ratios sum to 0.9"},
		{"a negative ratio is rejected", comps,
			SplitOptions{Ratios: []Ratio{{"train", 1.2}, {"test", -0.2}}}, "not in [0, 1]"},
		{"a repeated split is rejected", comps,
			SplitOptions{Ratios: []Ratio{{"train", 0.5}, {"train", 0.5}}}, `split "train" appears twice`},
		{"an unnamed split is rejected", comps,
			SplitOptions{Ratios: []Ratio{{"", 1}}}, "has no name"},
		{"a NaN ratio is rejected", comps,
			SplitOptions{Ratios: []Ratio{{"train", math.NaN()}}}, "not in [0, 1]"},
		{"an unknown measure is rejected", comps,
			SplitOptions{By: "repos"}, `unknown measure "repos"`},
		{"a negative session count is rejected",
			[]Component{{ID: 4, Developers: []string{"d"}, Sessions: -1}},
			SplitOptions{}, `component 4 (1 developers, 0 repos, developer "d"): negative session count -1`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Assign(tt.comps, tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("got error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestAssignNoComponents(t *testing.T) {
	a := mustAssign(t, nil, SplitOptions{})
	if len(a.Splits) != 3 || a.By != ByDevelopers {
		t.Fatalf("got %+v, want three empty default splits by developers", a)
	}
	sum := sha256.Sum256(nil)
	if a.Hash != hex.EncodeToString(sum[:]) {
		t.Errorf("hash %s, want the SHA-256 of the empty text", a.Hash)
	}
}

func TestParseRatios(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []Ratio
		wantErr string
	}{
		{"the default set parses", "train=0.7,val=0.1,test=0.2", DefaultRatios(), ""},
		{"spaces are ignored", " train = 0.5 , test=0.5", []Ratio{{"train", 0.5}, {"test", 0.5}}, ""},
		{"a field without = is rejected", "train=0.7,val", nil, `"val" is not name=value`},
		{"a non-number is rejected", "train=x,test=1", nil, `train: "x" is not a number`},
		{"a bad sum is rejected", "train=0.7,test=0.2", nil, "ratios sum to 0.9"},
		{"an empty string is rejected", "", nil, "is not name=value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseRatios(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %v, %v; want error containing %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Fatalf("got %v, %v; want %v", got, err, tt.want)
			}
			if back, err := ParseRatios(FormatRatios(got)); err != nil || !slices.Equal(back, got) {
				t.Errorf("round trip via %q: got %v, %v", FormatRatios(got), back, err)
			}
		})
	}
}

func TestAudit(t *testing.T) {
	edges := []Edge{{"d1", "r1", 1}, {"d2", "r1", 1}, {"d3", "r2", 1}, {Developer: "d4"}}
	tests := []struct {
		name    string
		devs    map[string]string
		repos   map[string]string
		wantErr string
	}{
		{"a clean split passes",
			map[string]string{"d1": "train", "d2": "train", "d3": "test", "d4": "val"},
			map[string]string{"r1": "train", "r2": "test"}, ""},
		{"a developer split from their repo is a leak",
			map[string]string{"d1": "train", "d2": "test", "d3": "test", "d4": "val"},
			map[string]string{"r1": "train", "r2": "test"},
			`edge 1: developer "d2" is in "test" but their repo "r1" is in "train"`},
		{"a developer without a split is reported",
			map[string]string{"d1": "train", "d2": "train", "d3": "test"},
			map[string]string{"r1": "train", "r2": "test"}, `edge 3: developer "d4" has no split`},
		{"every offender is counted",
			map[string]string{"d1": "val", "d2": "val", "d3": "test", "d4": "val"},
			map[string]string{"r1": "train"},
			`edge 0: developer "d1" is in "val" but their repo "r1" is in "train" (and 2 more offending edges)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Audit(edges, tt.devs, tt.repos)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Audit: %v", err)
				}
				return
			}
			if err == nil || err.Error() != tt.wantErr {
				t.Fatalf("Audit: got %v, want %q", err, tt.wantErr)
			}
		})
	}
}

// checkAssignment checks the invariants every assignment must keep: every
// node of the edges is in exactly one split, no edge crosses splits, the
// per-split totals add up, and every split is within the heaviest
// component of its target.
func checkAssignment(t *testing.T, edges []Edge, comps []Component, a Assignment) {
	t.Helper()
	if len(a.ComponentSplits) != len(comps) {
		t.Fatalf("%d component splits for %d components", len(a.ComponentSplits), len(comps))
	}
	devIn := map[string][]string{}
	repoIn := map[string][]string{}
	for i, c := range comps {
		s := a.SplitName(i)
		for _, d := range c.Developers {
			devIn[d] = append(devIn[d], s)
		}
		for _, r := range c.Repos {
			repoIn[r] = append(repoIn[r], s)
		}
	}
	for _, e := range edges {
		if e.Developer != "" && len(devIn[e.Developer]) != 1 {
			t.Fatalf("developer %q is in splits %v, want exactly one", e.Developer, devIn[e.Developer])
		}
		if e.Repo != "" && len(repoIn[e.Repo]) != 1 {
			t.Fatalf("repo %q is in splits %v, want exactly one", e.Repo, repoIn[e.Repo])
		}
	}
	devs, repos := a.NodeSplits(comps)
	if err := Audit(edges, devs, repos); err != nil {
		t.Fatalf("Audit: %v", err)
	}

	var total, heaviest, nComps, nDevs int
	for _, c := range comps {
		w := len(c.Developers)
		if a.By == BySessions {
			w = c.Sessions
		}
		total += w
		heaviest = max(heaviest, w)
	}
	if total == 0 {
		total, heaviest = len(comps), 1
	}
	for _, s := range a.Splits {
		nComps += s.Components
		nDevs += s.Developers
		load := s.Achieved * float64(total)
		target := s.Target * float64(total)
		if d := math.Abs(load - target); d > float64(heaviest)+1e-6 {
			t.Errorf("split %s: load %.1f, target %.1f: off by more than the heaviest component (%d)",
				s.Name, load, target, heaviest)
		}
	}
	if nComps != len(comps) || nDevs != len(devs) {
		t.Errorf("splits hold %d components and %d developers, want %d and %d", nComps, nDevs, len(comps), len(devs))
	}
}

// TestAssignProperties checks, on random graphs, that Components finds the
// same partition as a breadth-first search and that every assignment keeps
// the invariants of checkAssignment and is reproducible.
func TestAssignProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(2024, 11))
	for iter := range 300 {
		nDev, nRepo := 1+r.IntN(60), 1+r.IntN(60)
		var edges []Edge
		for range r.IntN(120) {
			e := Edge{Sessions: r.IntN(5)}
			if r.IntN(20) > 0 {
				e.Developer = fmt.Sprintf("d%d", r.IntN(nDev))
			}
			if r.IntN(20) > 0 {
				e.Repo = fmt.Sprintf("r%d", r.IntN(nRepo))
			}
			edges = append(edges, e)
		}
		comps := Components(edges)
		if want := bfsPartition(edges); !slices.Equal(partitionOf(comps), want) {
			t.Fatalf("graph %d: Components partition\n%v\nwant (BFS)\n%v", iter, partitionOf(comps), want)
		}
		var rs []Ratio
		switch r.IntN(3) {
		case 0: // default
		case 1:
			rs = []Ratio{{"train", 0.8}, {"val", 0.1}, {"test", 0.1}}
		case 2:
			rs = []Ratio{{"a", 0.5}, {"b", 0.25}, {"c", 0.125}, {"d", 0.125}}
		}
		by := []Measure{"", ByDevelopers, BySessions}[r.IntN(3)]
		opts := SplitOptions{Seed: r.Int64(), Ratios: rs, By: by}
		a := mustAssign(t, comps, opts)
		checkAssignment(t, edges, comps, a)
		if b := mustAssign(t, comps, opts); b.Hash != a.Hash || !slices.Equal(b.Warnings, a.Warnings) {
			t.Fatalf("graph %d: a second run differs", iter)
		}
	}
}

// partitionOf renders comps as sorted "d:x r:y" strings, one per component.
func partitionOf(comps []Component) []string {
	var out []string
	for _, c := range comps {
		var parts []string
		for _, d := range c.Developers {
			parts = append(parts, "d:"+d)
		}
		for _, r := range c.Repos {
			parts = append(parts, "r:"+r)
		}
		slices.Sort(parts)
		out = append(out, strings.Join(parts, " "))
	}
	slices.Sort(out)
	return out
}

// bfsPartition finds the components of edges by breadth-first search, an
// implementation independent of the union-find under test.
func bfsPartition(edges []Edge) []string {
	adj := map[string][]string{}
	for _, e := range edges {
		d, r := "d:"+e.Developer, "r:"+e.Repo
		switch {
		case e.Developer != "" && e.Repo != "":
			adj[d] = append(adj[d], r)
			adj[r] = append(adj[r], d)
		case e.Developer != "":
			adj[d] = append(adj[d], [](string){}...)
		case e.Repo != "":
			adj[r] = append(adj[r], [](string){}...)
		}
	}
	seen := map[string]bool{}
	var out []string
	for start := range adj {
		if seen[start] {
			continue
		}
		seen[start] = true
		queue := []string{start}
		var parts []string
		for len(queue) > 0 {
			v := queue[0]
			queue = queue[1:]
			parts = append(parts, v)
			for _, w := range adj[v] {
				if !seen[w] {
					seen[w] = true
					queue = append(queue, w)
				}
			}
		}
		slices.Sort(parts)
		out = append(out, strings.Join(parts, " "))
	}
	slices.Sort(out)
	return out
}
