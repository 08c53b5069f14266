// Package ingest reads recorded developer <-> coding-agent sessions into the
// workspace: one parser per source format (canonical JSONL, aider chat
// histories, Claude Code transcripts and markdown exports, Codex CLI
// rollouts, SpecStory markdown) and tau2-bench episodes (tau2 result files
// and run folders, tau-bench v1 trajectories, task folders), all parsed
// into the data model's types (ub.Session, ub.Episode); identity rules for
// developers and repositories; and an idempotent, streaming, pipelined
// writer that bulk loads whole sessions and episodes through
// queries.RowWriter and records bad input as path:line: reason without
// losing the rest. The probes run on each episode added through the Prober
// the caller gives (Options.NewProber); ingest does not know them.
package ingest
