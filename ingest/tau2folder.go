package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/ub-bench/ub"
)

// tau2's own task folder, data/tau2/domains/<domain>/: tasks.json beside
// split_tasks.json (split name -> task ids) and the agent's policy
// (policy.md; telecom's is main_policy.md). The domain is the folder's
// name. Its other files (db.json, tasks_voice.json, manuals, ...) are no
// task file and are passed by.

// taskFolderKind names what a file of a task folder is for --tasks:
// "tasks" (a JSON array of tasks), "splits", "policy", or "" (pass it by).
func taskFolderKind(path string, head []byte) string {
	switch strings.ToLower(filepath.Base(path)) {
	case "split_tasks.json":
		return "splits"
	case "policy.md", "main_policy.md":
		return "policy"
	}
	if strings.EqualFold(filepath.Ext(path), ".json") && bytes.HasPrefix(bytes.TrimLeft(head, "\ufeff \t\r\n"), []byte("[")) {
		return "tasks"
	}
	return ""
}

// ParseSplitTasks reads a split_tasks.json: an object whose values are
// lists of task ids (strings or numbers), stored as the task splits of the
// folder's domain.
func ParseSplitTasks(path string, r io.Reader, sink EpisodeSink) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	if pe := syntaxCheck(path, data); pe != nil {
		sink.Error(pe)
		return nil
	}
	var splits map[string][]json.RawMessage
	if err := json.Unmarshal(data, &splits); err != nil {
		sink.Error(&ParseError{Path: path, Line: 1, Reason: "split_tasks.json: want an object of task id lists: " + err.Error()})
		return nil
	}
	domain := filepath.Base(filepath.Dir(path))
	f := &EpisodeFile{}
	f.Run.SourceFile, f.Run.Format = path, "splits"
	names := make([]string, 0, len(splits))
	for k := range splits {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		seen := map[string]bool{}
		for i, raw := range splits[name] {
			id, ok := idString(raw)
			if !ok {
				sink.Error(&ParseError{Path: path, Line: 1, Reason: fmt.Sprintf("split %q: entry %d is no task id", name, i)})
				return nil
			}
			if !seen[id] {
				seen[id] = true
				f.Splits = append(f.Splits, ub.TaskSplit{Domain: domain, Split: name, TaskID: id, SourceFile: path})
			}
		}
	}
	return sink.EpisodeFile(f)
}

// ParsePolicy reads a task folder's policy.md: the agent's policy of the
// folder's domain, stored with the domain. Its policy_sha is what a
// result file's info.environment_info.policy of the same text gets.
func ParsePolicy(path string, r io.Reader, sink EpisodeSink) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	if !utf8.Valid(data) {
		at := invalidAt(data)
		line := 1 + bytes.Count(data[:at], []byte("\n"))
		start := bytes.LastIndexByte(data[:at], '\n') + 1
		sink.Error(&ParseError{Path: path, Line: line, Reason: "policy: " + invalidUTF8(data[start:])})
		return nil
	}
	text := string(data)
	f := &EpisodeFile{}
	f.Run.SourceFile, f.Run.Format = path, "policy"
	f.Policy = &ub.DomainPolicy{Domain: filepath.Base(filepath.Dir(path)), Policy: text, PolicySHA: sha([]byte(text)), SourceFile: path}
	return sink.EpisodeFile(f)
}

// invalidUTF8 is the reason for a line that is not valid UTF-8: where its
// first bad byte is, counted from 1 at the start of the line.
func invalidUTF8(line []byte) string {
	return fmt.Sprintf("invalid UTF-8 (byte %d)", invalidAt(line)+1)
}

// invalidAt is the offset of the first byte of data that is not valid
// UTF-8, or len(data).
func invalidAt(data []byte) int {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(data)
}
