package graph

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// Edge records that a developer has sessions in a repository.
//
// An empty Repo records a developer with sessions outside any known
// repository: the developer becomes a node, with no edge, and the sessions
// count towards their component. Likewise an empty Developer records a
// repository node alone. An Edge with neither is ignored. Edges may repeat;
// their session counts add up.
type Edge struct {
	Developer string
	Repo      string
	Sessions  int // sessions of Developer in Repo; weighs splits made by sessions
}

// Component is one connected component of the developer <-> repository graph.
type Component struct {
	// ID is the component's position in the order Components returns,
	// starting at 0 for the largest.
	ID         int
	Developers []string // sorted bytewise; may be empty for a lone repository
	Repos      []string // sorted bytewise; empty for a developer without repositories
	Sessions   int      // sum of the Sessions of the component's edges
}

// compareComponents is the canonical component order: most developers
// first, then most repositories, then by smallest developer name, then by
// smallest repository name. Components are disjoint, so their smallest
// members differ and the order is total.
func compareComponents(a, b *Component) int {
	if c := cmp.Compare(len(b.Developers), len(a.Developers)); c != 0 {
		return c
	}
	if c := cmp.Compare(len(b.Repos), len(a.Repos)); c != 0 {
		return c
	}
	if c := strings.Compare(first(a.Developers), first(b.Developers)); c != 0 {
		return c
	}
	return strings.Compare(first(a.Repos), first(b.Repos))
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// Graph is a bipartite developer <-> repository graph under construction.
// The zero value is an empty graph ready to use. A Graph is not safe for
// concurrent use.
//
// Developers and repositories live in separate name spaces: a developer and a
// repository with the same name are different nodes.
type Graph struct {
	devs  map[string]int32 // developer name -> node
	repos map[string]int32 // repository name -> node

	// Per node, indexed by node id in order of first appearance.
	parent   []int32 // union-find forest
	size     []int32 // nodes under a root; meaningful for roots only
	name     []string
	isRepo   []bool
	sessions []int

	lastDev   string // the developer of the previous Add, "" at first
	lastDevID int32
}

// Add adds an edge, and its developer and repository nodes if they are new.
// It panics if the graph would exceed math.MaxInt32 nodes.
func (g *Graph) Add(e Edge) {
	d, r := int32(-1), int32(-1)
	switch {
	case e.Developer == "":
	case e.Developer == g.lastDev: // edges usually come grouped by developer
		d = g.lastDevID
	default:
		d = g.node(&g.devs, e.Developer, false)
		g.lastDev, g.lastDevID = e.Developer, d
	}
	if e.Repo != "" {
		r = g.node(&g.repos, e.Repo, true)
	}
	switch {
	case d >= 0:
		g.sessions[d] += e.Sessions
		if r >= 0 {
			g.union(d, r)
		}
	case r >= 0:
		g.sessions[r] += e.Sessions
	}
}

// Grow makes room for about developers and repos more nodes, so that adding
// them does not rehash. It is never needed for correctness. The name maps
// can only be sized when they are created, so call Grow before the first
// Add.
func (g *Graph) Grow(developers, repos int) {
	developers, repos = max(developers, 0), max(repos, 0)
	if g.devs == nil {
		g.devs = make(map[string]int32, developers)
	}
	if g.repos == nil {
		g.repos = make(map[string]int32, repos)
	}
	n := len(g.parent) + developers + repos
	g.parent = slices.Grow(g.parent, n-len(g.parent))
	g.size = slices.Grow(g.size, n-len(g.size))
	g.name = slices.Grow(g.name, n-len(g.name))
	g.isRepo = slices.Grow(g.isRepo, n-len(g.isRepo))
	g.sessions = slices.Grow(g.sessions, n-len(g.sessions))
}

// node returns the id of the named node in m, adding it if it is new.
func (g *Graph) node(m *map[string]int32, name string, isRepo bool) int32 {
	if id, ok := (*m)[name]; ok {
		return id
	}
	if *m == nil {
		*m = make(map[string]int32)
	}
	if len(g.parent) == math.MaxInt32 {
		panic("graph: more than math.MaxInt32 nodes")
	}
	id := int32(len(g.parent))
	(*m)[name] = id
	g.parent = append(g.parent, id)
	g.size = append(g.size, 1)
	g.name = append(g.name, name)
	g.isRepo = append(g.isRepo, isRepo)
	g.sessions = append(g.sessions, 0)
	return id
}

// find returns the root of x's tree and points every node on the way
// straight at it (path compression, two passes, no recursion).
func (g *Graph) find(x int32) int32 {
	root := x
	for g.parent[root] != root {
		root = g.parent[root]
	}
	for g.parent[x] != root {
		next := g.parent[x]
		g.parent[x] = root
		x = next
	}
	return root
}

// union merges the trees of a and b, hanging the smaller under the larger
// (union by size), which keeps trees O(log n) deep even before compression.
func (g *Graph) union(a, b int32) {
	a, b = g.find(a), g.find(b)
	if a == b {
		return
	}
	if g.size[a] < g.size[b] {
		a, b = b, a
	}
	g.parent[b] = a
	g.size[a] += g.size[b]
}

// Components returns the connected components of g in canonical order: most
// developers first, then most repositories, then by smallest developer name,
// then by smallest repository name. Component IDs are assigned in that
// order, starting at 0. Members are sorted bytewise. A node without edges is
// a component of its own. The result does not depend on the order in which
// edges were added.
//
// The cost is near-linear in the number of edges and nodes for the
// union-find, plus a sort of each component's members and one of the
// components.
func (g *Graph) Components() []Component {
	n := len(g.parent)
	if n == 0 {
		return nil
	}

	// Number the roots, and count each component's members and sessions.
	compOf := make([]int32, n) // node -> component index, in root discovery order
	index := make([]int32, n)  // root -> component index, -1 until seen
	for i := range index {
		index[i] = -1
	}
	type tally struct {
		devs, repos int32
		sessions    int
	}
	var tallies []tally
	nDevs := 0
	for v := range int32(n) {
		r := g.find(v)
		c := index[r]
		if c < 0 {
			c = int32(len(tallies))
			index[r] = c
			tallies = append(tallies, tally{})
		}
		compOf[v] = c
		t := &tallies[c]
		if g.isRepo[v] {
			t.repos++
		} else {
			t.devs++
			nDevs++
		}
		t.sessions += g.sessions[v]
	}

	// Distribute the names into one backing array per kind, then sort
	// each component's members: most components are tiny, so this costs
	// far less than sorting all names at once.
	comps := make([]Component, len(tallies))
	devNames := make([]string, nDevs)
	repoNames := make([]string, n-nDevs)
	devAt, repoAt := 0, 0
	for c, t := range tallies {
		comps[c] = Component{
			Developers: devNames[devAt : devAt : devAt+int(t.devs)],
			Repos:      repoNames[repoAt : repoAt : repoAt+int(t.repos)],
			Sessions:   t.sessions,
		}
		devAt += int(t.devs)
		repoAt += int(t.repos)
	}
	for v := range n {
		c := &comps[compOf[v]]
		if g.isRepo[v] {
			c.Repos = append(c.Repos, g.name[v])
		} else {
			c.Developers = append(c.Developers, g.name[v])
		}
	}
	for i := range comps {
		if c := &comps[i]; len(c.Developers) > 1 {
			slices.Sort(c.Developers)
		}
		if c := &comps[i]; len(c.Repos) > 1 {
			slices.Sort(c.Repos)
		}
	}

	slices.SortFunc(comps, func(a, b Component) int { return compareComponents(&a, &b) })
	for i := range comps {
		comps[i].ID = i
	}
	return comps
}

// Components returns the connected components of the graph made of edges,
// as [Graph.Components] does.
func Components(edges []Edge) []Component {
	var g Graph
	g.Grow(len(edges)/2, len(edges)/2)
	for _, e := range edges {
		g.Add(e)
	}
	return g.Components()
}

// Summary describes a set of components for the split report.
type Summary struct {
	Components int // number of components
	Developers int // developers over all components
	Repos      int // repositories over all components
	Sessions   int // sessions over all components

	// Largest is the first component in canonical order (most developers,
	// then most repositories); the zero Component when there are none.
	Largest Component

	// DeveloperSizes and RepoSizes are the component size distributions:
	// how many components have each number of developers (repositories),
	// by ascending size. Sizes no component has are left out.
	DeveloperSizes []SizeCount
	RepoSizes      []SizeCount
}

// SizeCount is one bar of a size distribution: Components components have
// Size members.
type SizeCount struct {
	Size       int
	Components int
}

// Summarize counts comps, finds the largest and the size distributions. The
// result does not depend on the order of comps.
func Summarize(comps []Component) Summary {
	s := Summary{Components: len(comps)}
	devSizes := map[int]int{}
	repoSizes := map[int]int{}
	for i := range comps {
		c := &comps[i]
		s.Developers += len(c.Developers)
		s.Repos += len(c.Repos)
		s.Sessions += c.Sessions
		devSizes[len(c.Developers)]++
		repoSizes[len(c.Repos)]++
		if i == 0 || compareComponents(c, &s.Largest) < 0 {
			s.Largest = *c
		}
	}
	s.DeveloperSizes = sizeCounts(devSizes)
	s.RepoSizes = sizeCounts(repoSizes)
	return s
}

func sizeCounts(m map[int]int) []SizeCount {
	if len(m) == 0 {
		return nil
	}
	out := make([]SizeCount, 0, len(m))
	for size, n := range m {
		out = append(out, SizeCount{Size: size, Components: n})
	}
	slices.SortFunc(out, func(a, b SizeCount) int { return cmp.Compare(a.Size, b.Size) })
	return out
}
