// Package ingest reads recorded developer <-> coding-agent sessions into the
// workspace: one parser per source format (canonical JSONL, aider chat
// histories, Claude Code transcripts and markdown exports, Codex CLI
// rollouts, SpecStory markdown), identity rules for developers and
// repositories, and an idempotent, streaming, pipelined writer that bulk
// loads whole sessions with the DuckDB appender and records bad input as
// path:line: reason without losing the rest.
package ingest
