// Package graph builds the bipartite developer <-> repository graph, finds its
// connected components and assigns whole components to train, val and test
// splits (SPEC section 2).
//
// A simulator scored on a developer or a repository it was tuned on measures
// recall, not simulation. A component is a developer, every repository they
// touched and every other developer on those repositories, transitively, so
// putting each component into exactly one split keeps every developer and
// every repository on one side of the line. [Audit] checks that property
// against the edges.
//
// The package is pure: it reads no files and runs no SQL. Callers turn the
// workspace's sessions into [Edge] values (one per developer and repository,
// with a session count), call [Components], then [Assign] with a seed:
//
//	comps := graph.Components(edges)
//	a, err := graph.Assign(comps, graph.SplitOptions{Seed: 1})
//	// a.SplitName(i) is the split of comps[i]; a.Hash identifies the result.
//
// Everything is deterministic: the same edges (in any order) and the same
// seed give the same components, the same assignment and the same hash, on
// every platform and Go release. Randomness comes only from a PCG generator
// seeded from [SplitOptions.Seed].
package graph
