// Package splits makes the leak-free split of a workspace and freezes the
// points every simulator is scored on (SPEC section 2): graph's algorithms
// over queries' tables. ub split, ub points, ub demo and ub synth call the
// same two functions, so a split and a point set are made, stored and
// hashed one way. It lives under graph, which owns split assignment, and
// not in graph itself, which stays a leaf (no SQL, no queries).
package splits
