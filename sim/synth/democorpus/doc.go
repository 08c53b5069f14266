// Package democorpus writes the corpus ub demo runs the whole pipeline
// on, offline: developer sessions in every format ub reads, each developer
// message written as a known move (Move reads it back, a known answer
// only a made-up corpus has); a small tau2 sample for the probes and the
// review; and the user-fidelity study's tau2 results, rubrics and
// verdicts. It writes files only: ub demo ingests them as a user's files
// are ingested.
package democorpus
