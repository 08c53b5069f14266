// Package appender is the workspace's bulk writer: rows appended to a
// DuckDB table through its C appender, values written straight into the
// data chunk's memory (unsafe, and checked: see Appender). Only queries
// uses it; everything else writes through queries.RowWriter.
package appender
