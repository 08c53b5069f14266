// Package view renders the evidence behind the report's numbers as HTML
// pages: the report itself, each leaderboard row's developers, a
// developer's moments, one moment with every simulator's generation, a
// user simulator's episodes and one episode with its verdicts, and (live
// only) a search over every message, a bounded window of rows a page.
// The same renderers serve ub view (Server: a read-only, token-guarded
// local server) and write ub publish's static site (WriteSite: relative
// links, no script, byte-identical on every run). It reads the workspace
// through queries and never writes it; nothing else in ub imports it.
package view
