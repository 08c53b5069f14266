// Package queries owns the workspace: one DuckDB file with its schema applied
// by numbered, embedded migrations (schema/), and one embedded .sql file per
// query (sql/), each wrapped by a typed Go function; it stores and loads the
// data model's types (package ub) and names a row type for what it is
// where a table's shape differs (SessionRow, TurnRow). Its internals are
// the bulk appender (internal/appender) and the streaming reader's chunk
// decoding (internal/chunk). It imports nothing of ub but the data model:
// it knows SQL and plain rows, nothing of parsers, simulators, judges or
// statistics.
package queries
