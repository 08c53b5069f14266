// Package chunk reads the rows of a DuckDB data chunk as the database/sql
// driver would give them, straight from the chunk's vectors (unsafe, for
// the workspace's streaming reader, queries.Workspace.Adhoc, which ub sql
// runs). Only queries uses it.
package chunk
