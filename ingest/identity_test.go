package ingest

import "github.com/ub-bench/ub"
import "testing"

func TestNameHint(t *testing.T) {
	tests := []struct {
		name, path, owner, repo string
		ok                      bool
	}{
		{"aider file name", "corpus/aider/alice__tool.aider.chat.history.md", "alice", "alice/tool", true},
		{"format sample name", "formats/codex-rollout__bob__lotto__2025-11-06T15-44-45.jsonl", "bob", "bob/lotto", true},
		{"nearest owner__repo directory", "x/carol__backup/projects/-home-c-p/1234.jsonl", "carol", "carol/backup", true},
		{"no convention", "logs/session.jsonl", "", "", false},
		{"three plain parts is not a convention", "a__b__c.md", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, r, ok := NameHint(tt.path)
			if o != tt.owner || r != tt.repo || ok != tt.ok {
				t.Errorf("NameHint(%q) = %q, %q, %v; want %q, %q, %v", tt.path, o, r, ok, tt.owner, tt.repo, tt.ok)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	tests := []struct {
		name    string
		s       ub.Session
		flags   Identity
		dev, rp string
	}{
		{"flags win", ub.Session{SourceFile: "a__b.aider.chat.history.md", Developer: "d", Repo: "r"}, Identity{"F", "G"}, "F", "G"},
		{"data wins over file name", ub.Session{SourceFile: "a__b.jsonl", Developer: "d", Repo: "r"}, Identity{}, "d", "r"},
		{"aider developer is the repo owner", ub.Session{SourceFile: "dir/a__b.aider.chat.history.md"}, Identity{}, "a", "a/b"},
		{"working directory repo keeps, owner from dir", ub.Session{SourceFile: "o__bk/projects/p/1.jsonl", Repo: "/home/u/p"}, Identity{}, "o", "/home/u/p"},
		{"home folder user when no name convention", ub.Session{SourceFile: "p/1.jsonl", Repo: "/home/u/p"}, Identity{}, "u", "/home/u/p"},
		{"directory name as repo", ub.Session{SourceFile: "work/proj/.aider.chat.history.md"}, Identity{}, "unknown", "proj"},
		{"stdin", ub.Session{SourceFile: "-"}, Identity{}, "unknown", "unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.s
			Resolve(&s, tt.flags)
			if s.Developer != tt.dev || s.Repo != tt.rp {
				t.Errorf("got %q %q; want %q %q", s.Developer, s.Repo, tt.dev, tt.rp)
			}
		})
	}
}
