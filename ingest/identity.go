package ingest

import (
	"path/filepath"
	"regexp"
	"strings"

	"github.com/ub-bench/ub"
)

// Identity is a developer and a repository name.
type Identity struct {
	Developer string
	Repo      string
}

// knownSuffixes are stripped from a file name before it is read as
// <owner>__<repo>.
var knownSuffixes = []string{".aider.chat.history.md", ".jsonl", ".json", ".md"}

// formatTags are the leading parts of corpus sample names
// <format>__<owner>__<repo>__<id>.
var formatTags = map[string]bool{
	"claude-code-jsonl": true, "claude-export-md": true, "codex-rollout": true,
	"specstory": true, "aider": true, "jsonl": true,
}

// NameHint reads an identity from a path by the naming convention of the
// corpus: a file named <owner>__<repo><suffix> or <format>__<owner>__<repo>__<id><suffix>,
// or else the nearest directory named <owner>__<repo>. Repo is "owner/repo".
// ok is false when no part of the path follows the convention.
func NameHint(path string) (owner, repo string, ok bool) {
	base := filepath.Base(path)
	for _, s := range knownSuffixes {
		if strings.HasSuffix(base, s) {
			base = strings.TrimSuffix(base, s)
			break
		}
	}
	parts := strings.Split(base, "__")
	switch {
	case len(parts) >= 3 && formatTags[parts[0]] && parts[1] != "" && parts[2] != "":
		return parts[1], parts[1] + "/" + parts[2], true
	case len(parts) == 2 && parts[0] != "" && parts[1] != "":
		return parts[0], parts[0] + "/" + parts[1], true
	}
	dir := filepath.Dir(path)
	for dir != "." && dir != "/" && dir != "" {
		p := strings.Split(filepath.Base(dir), "__")
		if len(p) == 2 && p[0] != "" && p[1] != "" {
			return p[0], p[0] + "/" + p[1], true
		}
		next := filepath.Dir(dir)
		if next == dir {
			break
		}
		dir = next
	}
	return "", "", false
}

var homeRE = regexp.MustCompile(`^(?:/home|/Users|C:\\Users)[/\\]([^/\\]+)`)

// Resolve fills a session's developer and repository by the identity rules,
// first match wins:
//
// Developer: the --developer flag; the developer named by the data (canonical
// JSONL); the owner from the file or directory name (NameHint); the user of the
// home folder the session ran in (/home/<user>/..., from a working directory
// recorded as the repo); else "unknown".
//
// Repo: the --repo flag; the repository named by the data (canonical JSONL) or
// the session's working directory (Claude Code, Codex); "owner/repo" from the
// file or directory name; the name of the directory holding the file; else
// "unknown".
func Resolve(s *ub.Session, flags Identity) {
	owner, repo, hinted := NameHint(s.SourceFile)
	switch {
	case flags.Developer != "":
		s.Developer = flags.Developer
	case s.Developer != "":
	case hinted:
		s.Developer = owner
	default:
		if m := homeRE.FindStringSubmatch(s.Repo); m != nil {
			s.Developer = m[1]
		} else {
			s.Developer = "unknown"
		}
	}
	switch {
	case flags.Repo != "":
		s.Repo = flags.Repo
	case s.Repo != "":
	case hinted:
		s.Repo = repo
	default:
		d := filepath.Base(filepath.Dir(s.SourceFile))
		if d == "." || d == "/" || d == "" || s.SourceFile == "-" {
			d = "unknown"
		}
		s.Repo = d
	}
}
