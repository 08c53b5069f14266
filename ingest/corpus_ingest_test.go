package ingest

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestIngestAiderCorpusMatchesManifest ingests all of ../shared/corpus/aider
// with its manifest into a workspace and compares, repository by repository,
// the stored sessions with sessions_with_user_msgs and the logged developer
// messages (developer turns of every kind, plus confirmation prompts, which
// aider logs as developer lines; see ParseAider) with user_messages_strict.
// The only deviations are aiderKnownDeviations. A second ingest adds 0 rows.
func TestIngestAiderCorpusMatchesManifest(t *testing.T) {
	dir := corpusDir(t, "aider")
	ws := memWorkspace(t)
	ctx := context.Background()
	man := filepath.Join(dir, "manifest.jsonl")
	st, err := Run(ctx, ws, []string{dir}, Options{Manifest: man})
	if err != nil {
		t.Fatalf("ingest: %v (%v)", err, st.Errors)
	}
	if st.Files != 26 || st.FilesSkipped != 2 { // README.md and manifest.jsonl are passed by
		t.Errorf("files %d read, %d passed by; want 26 and 2", st.Files, st.FilesSkipped)
	}
	type mline struct {
		Repo                 string   `json:"repo"`
		SessionsWithUserMsgs int      `json:"sessions_with_user_msgs"`
		UserMessagesStrict   int      `json:"user_messages_strict"`
		Authors              []string `json:"authors"`
	}
	f, err := os.Open(man)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		var m mline
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		n++
		t.Run(m.Repo, func(t *testing.T) {
			sessions := count(t, ws, `SELECT count(*) FROM sessions WHERE repo = ?`, m.Repo)
			if sessions != m.SessionsWithUserMsgs {
				t.Errorf("sessions = %d, manifest sessions_with_user_msgs = %d", sessions, m.SessionsWithUserMsgs)
			}
			logged := count(t, ws, `SELECT count(*) FROM turns t JOIN sessions s ON s.id = t.session_id
				WHERE s.repo = ? AND (t.role = 'developer' OR t.role = 'tool' AND (t.meta->>'kind') = 'confirm')`, m.Repo)
			dev := aiderKnownDeviations[m.Repo]
			if want := m.UserMessagesStrict + dev.commandSplits + dev.contiguousPairs; logged != want {
				t.Errorf("logged developer messages = %d, want %d (user_messages_strict %d + known deviations %+v)",
					logged, want, m.UserMessagesStrict, dev)
			}
			// Identity: the developer of every session is the repository owner,
			// and every author is a developer who touched the repository.
			owner := m.Repo[:len(m.Repo)-len(filepath.Base(m.Repo))-1]
			if c := count(t, ws, `SELECT count(*) FROM sessions WHERE repo = ? AND developer <> ?`, m.Repo, owner); c != 0 {
				t.Errorf("%d sessions with a developer other than the owner %s", c, owner)
			}
			for _, a := range m.Authors {
				if c := count(t, ws, `SELECT count(*) FROM developer_repos WHERE developer = ? AND repo = ? AND source = 'manifest'`, a, m.Repo); c != 1 {
					t.Errorf("no manifest edge for author %q", a)
				}
			}
		})
	}
	if n != 26 {
		t.Errorf("manifest has %d lines, want 26", n)
	}
	before := count(t, ws, `SELECT (SELECT count(*) FROM sessions) + (SELECT count(*) FROM turns) + (SELECT count(*) FROM developer_repos)`)
	st, err = Run(ctx, ws, []string{dir}, Options{Manifest: man})
	if err != nil {
		t.Fatal(err)
	}
	after := count(t, ws, `SELECT (SELECT count(*) FROM sessions) + (SELECT count(*) FROM turns) + (SELECT count(*) FROM developer_repos)`)
	if st.Sessions != 0 || st.Turns != 0 || after != before {
		t.Errorf("second ingest added %d sessions, %d turns, %d rows", st.Sessions, st.Turns, after-before)
	}
}

// TestIngestClaudeCodeBackupIsOneDeveloperSixRepos: the Claude Code backup is
// one developer (the owner in the backup's folder name) with one repository
// per working folder.
func TestIngestClaudeCodeBackupIsOneDeveloperSixRepos(t *testing.T) {
	dir := corpusDir(t, "claude-code")
	ws := memWorkspace(t)
	st, err := Run(context.Background(), ws, []string{dir}, Options{NewProber: testProber})
	if err != nil {
		t.Fatalf("ingest: %v (%v)", err, st.Errors)
	}
	if st.Sessions != 18 {
		t.Errorf("sessions = %d, want 18", st.Sessions)
	}
	if got := count(t, ws, `SELECT count(DISTINCT developer) FROM sessions`); got != 1 {
		t.Errorf("developers = %d, want 1", got)
	}
	if got := count(t, ws, `SELECT count(*) FROM sessions WHERE developer = 'hannibal8856'`); got != 18 {
		t.Errorf("sessions of hannibal8856 = %d, want 18", got)
	}
	if got := count(t, ws, `SELECT count(DISTINCT repo) FROM sessions`); got != 6 {
		t.Errorf("repos = %d, want 6", got)
	}
	// The manifest's 98 developer prompts: developer turns that are not commands.
	if got := count(t, ws, `SELECT count(*) FROM turns WHERE role = 'developer' AND NOT is_command`); got != 98 {
		t.Errorf("developer prompts = %d, want 98", got)
	}
}

// TestIngestFormatsCorpus: every sample file of every other format ingests
// without an error.
func TestIngestFormatsCorpus(t *testing.T) {
	dir := corpusDir(t, "formats")
	ws := memWorkspace(t)
	st, err := Run(context.Background(), ws, []string{dir}, Options{NewProber: testProber})
	if err != nil {
		t.Fatalf("ingest: %v (%v)", err, st.Errors)
	}
	// 10 files; the two SpecStory exports of one session keep the longer copy.
	if st.Files != 10 || st.FilesSkipped != 1 || st.Sessions != 9 || st.Superseded+st.Replaced != 1 {
		t.Errorf("stats = %+v; want 10 files read and README.md passed by, 9 sessions, 1 copy superseded", st)
	}
	if got := count(t, ws, `SELECT count(DISTINCT source_format) FROM sessions`); got != 4 {
		t.Errorf("formats = %d, want 4 (claude-code, claude-export, codex, specstory)", got)
	}
}
