package graph

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// sameComponents reports whether got and want hold the same components in
// the same order, treating nil and empty member lists alike.
func sameComponents(got, want []Component) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.ID != w.ID || g.Sessions != w.Sessions ||
			!slices.Equal(g.Developers, w.Developers) || !slices.Equal(g.Repos, w.Repos) {
			return false
		}
	}
	return true
}

func TestComponents(t *testing.T) {
	tests := []struct {
		name  string
		edges []Edge
		want  []Component
	}{
		{
			name:  "no edges give no components",
			edges: nil,
			want:  nil,
		},
		{
			name:  "an empty edge is ignored",
			edges: []Edge{{Sessions: 4}},
			want:  nil,
		},
		{
			name: "developer on two repos joins the developer sharing one of them",
			edges: []Edge{
				{"d1", "r1", 2}, {"d1", "r2", 1}, {"d2", "r2", 5}, {"d3", "r3", 1},
			},
			want: []Component{
				{ID: 0, Developers: []string{"d1", "d2"}, Repos: []string{"r1", "r2"}, Sessions: 8},
				{ID: 1, Developers: []string{"d3"}, Repos: []string{"r3"}, Sessions: 1},
			},
		},
		{
			name: "chain d1-r1-d2-r2-d3-r3-d4 is one component whatever the edge order",
			edges: []Edge{
				{"d4", "r3", 1}, {"d1", "r1", 1}, {"d3", "r3", 1},
				{"d2", "r2", 1}, {"d2", "r1", 1}, {"d3", "r2", 1},
			},
			want: []Component{
				{ID: 0, Developers: []string{"d1", "d2", "d3", "d4"}, Repos: []string{"r1", "r2", "r3"}, Sessions: 6},
			},
		},
		{
			name: "isolated developer and isolated repo are components of their own",
			edges: []Edge{
				{Developer: "loner", Sessions: 3}, {Repo: "orphan"}, {"d1", "r1", 1},
			},
			want: []Component{
				{ID: 0, Developers: []string{"d1"}, Repos: []string{"r1"}, Sessions: 1},
				{ID: 1, Developers: []string{"loner"}, Sessions: 3},
				{ID: 2, Repos: []string{"orphan"}},
			},
		},
		{
			name: "developer with sessions with and without a repo counts them all",
			edges: []Edge{
				{Developer: "d1", Sessions: 2}, {"d1", "r1", 3},
			},
			want: []Component{
				{ID: 0, Developers: []string{"d1"}, Repos: []string{"r1"}, Sessions: 5},
			},
		},
		{
			name: "repeated edges add their sessions",
			edges: []Edge{
				{"d1", "r1", 2}, {"d1", "r1", 3},
			},
			want: []Component{
				{ID: 0, Developers: []string{"d1"}, Repos: []string{"r1"}, Sessions: 5},
			},
		},
		{
			name: "a developer and a repo with the same name are different nodes",
			edges: []Edge{
				{"x", "y", 1}, {"y", "x", 1},
			},
			want: []Component{
				{ID: 0, Developers: []string{"x"}, Repos: []string{"y"}, Sessions: 1},
				{ID: 1, Developers: []string{"y"}, Repos: []string{"x"}, Sessions: 1},
			},
		},
		{
			name: "order is most developers, then most repos, then smallest name",
			edges: []Edge{
				{"a", "ra", 1},
				{"b", "rb1", 1}, {"b", "rb2", 1},
				{"c", "rc", 1}, {"c2", "rc", 1},
				{"0", "r0", 1},
			},
			want: []Component{
				{ID: 0, Developers: []string{"c", "c2"}, Repos: []string{"rc"}, Sessions: 2},
				{ID: 1, Developers: []string{"b"}, Repos: []string{"rb1", "rb2"}, Sessions: 2},
				{ID: 2, Developers: []string{"0"}, Repos: []string{"r0"}, Sessions: 1},
				{ID: 3, Developers: []string{"a"}, Repos: []string{"ra"}, Sessions: 1},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Components(tt.edges)
			if !sameComponents(got, tt.want) {
				t.Fatalf("Components:\n got %+v\nwant %+v", got, tt.want)
			}
			// Every edge order gives the same answer.
			r := rand.New(rand.NewPCG(1, 2))
			for range 20 {
				edges := slices.Clone(tt.edges)
				r.Shuffle(len(edges), func(i, j int) { edges[i], edges[j] = edges[j], edges[i] })
				if got := Components(edges); !sameComponents(got, tt.want) {
					t.Fatalf("Components(%v):\n got %+v\nwant %+v", edges, got, tt.want)
				}
			}
		})
	}
}

func TestGraphZeroValueAndReuse(t *testing.T) {
	var g Graph
	if got := g.Components(); got != nil {
		t.Fatalf("empty graph: got %v, want nil", got)
	}
	g.Add(Edge{"d1", "r1", 1})
	g.Add(Edge{"d2", "r2", 1})
	if got := len(g.Components()); got != 2 {
		t.Fatalf("after two separate edges: %d components, want 2", got)
	}
	// Adding after Components keeps working: the bridge merges the two.
	g.Add(Edge{"d2", "r1", 1})
	want := []Component{{ID: 0, Developers: []string{"d1", "d2"}, Repos: []string{"r1", "r2"}, Sessions: 3}}
	if got := g.Components(); !sameComponents(got, want) {
		t.Fatalf("after bridging edge:\n got %+v\nwant %+v", got, want)
	}
}

func TestSummarize(t *testing.T) {
	comps := Components([]Edge{
		{"a", "r1", 1}, {"b", "r1", 2}, {"c", "r1", 3}, {"c", "r2", 1}, // 3 developers, 2 repos
		{"d", "r3", 4}, {"e", "r4", 5}, // two 1x1
		{Developer: "f", Sessions: 1}, // 1x0
	})
	got := Summarize(comps)
	// Summarize must not depend on the order of comps.
	rev := slices.Clone(comps)
	slices.Reverse(rev)
	if r := Summarize(rev); r.Largest.ID != got.Largest.ID {
		t.Fatalf("reversed input: largest is component %d, want %d", r.Largest.ID, got.Largest.ID)
	}
	if got.Components != 4 || got.Developers != 6 || got.Repos != 4 || got.Sessions != 17 {
		t.Errorf("totals: got %d components, %d developers, %d repos, %d sessions; want 4, 6, 4, 17",
			got.Components, got.Developers, got.Repos, got.Sessions)
	}
	if !slices.Equal(got.Largest.Developers, []string{"a", "b", "c"}) || !slices.Equal(got.Largest.Repos, []string{"r1", "r2"}) {
		t.Errorf("largest: got %+v, want developers a b c, repos r1 r2", got.Largest)
	}
	wantDev := []SizeCount{{1, 3}, {3, 1}}
	wantRepo := []SizeCount{{0, 1}, {1, 2}, {2, 1}}
	if !slices.Equal(got.DeveloperSizes, wantDev) {
		t.Errorf("developer sizes: got %v, want %v", got.DeveloperSizes, wantDev)
	}
	if !slices.Equal(got.RepoSizes, wantRepo) {
		t.Errorf("repo sizes: got %v, want %v", got.RepoSizes, wantRepo)
	}
	if empty := Summarize(nil); empty.Components != 0 || empty.Largest.Developers != nil || empty.DeveloperSizes != nil {
		t.Errorf("no components: got %+v, want the zero Summary", empty)
	}
}
