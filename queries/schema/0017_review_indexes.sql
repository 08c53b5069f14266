-- 0017: indexes for the review workbench's point queries. DuckDB uses an
-- index only for an equality on one indexed column (a compound primary key
-- such as rv_decisions' (simulation_id, reviewer) is not used for lookups),
-- so each table a page reads by episode gets an index on simulation_id, and
-- the page's queries filter on it alone before the reviewer (see
-- queries/sql/review_decision_get.sql). These tables grow with the
-- decisions made, one row at a time, so the index costs little to keep.
-- The conversation tables (ep_messages, ep_tool_calls, ep_probe_findings)
-- get none: they are written in bulk at ingest, where an index triples the
-- time to append.
CREATE INDEX IF NOT EXISTS rv_decisions_sim ON rv_decisions (simulation_id);
CREATE INDEX IF NOT EXISTS rv_errors_sim ON rv_errors (simulation_id);
CREATE INDEX IF NOT EXISTS rv_revisions_sim ON rv_revisions (simulation_id);
CREATE INDEX IF NOT EXISTS rv_revision_errors_sim ON rv_revision_errors (simulation_id);
