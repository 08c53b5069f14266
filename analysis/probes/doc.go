// Package probes owns the judge-free probes of SPEC 6.3: deterministic
// checks that catch a user simulator breaking its contract from the
// trajectory alone (P0 a task mismatch, P1 an unprompted disclosure, ...).
// Each probe lives in its own file and registers itself (Names, ByName,
// Range); Run runs them on the probes' View of one episode. Prober runs
// them on parsed episodes, for ingest (which is handed one and does not
// know the probes); RunStored on every stored episode, for ub probes; both
// give the same rows.
package probes
