// Package review is the human review workbench of SPEC section 7: it
// samples review batches of episodes (seeded, stratified), and serves a
// local web page on which reviewers record simulator errors, one episode
// at a time, with the keyboard.
//
// The server is the workspace's one writer (DuckDB allows one writing
// process): every decision is committed before the response that
// acknowledges it, so a killed server loses nothing it acknowledged.
// Security: the page is meant for loopback; every request needs the
// reviewer's session (from the one-time token URL the server prints), the
// Host header must name the server (no DNS rebinding), every write is a
// POST with a CSRF token and a same-origin check, and the
// Content-Security-Policy allows no inline script. Conversation text is
// hostile input and is only ever rendered escaped, as text.
package review
