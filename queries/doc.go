// Package queries owns the workspace: one DuckDB file with its schema applied
// by numbered, embedded migrations (schema/), and one embedded .sql file per
// query (sql/), each wrapped by a typed Go function. It is a leaf: it knows
// SQL and plain rows, nothing of parsers, simulators, judges or statistics.
package queries
