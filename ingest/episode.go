package ingest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/ub-bench/ub"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Episode formats (SPEC 6.1): a tau2-bench result file (one object with
// info, tasks, simulations) and a tau-bench v1 trajectory array.
const (
	FormatTau2 = "tau2"
	FormatTau1 = "tau1"
)

// EpisodeFile is what one result file holds, ready to be written: the run
// (the file's info), the tasks it embeds, and its episodes. Rows keep nil
// for JSON null or a missing field.
type EpisodeFile struct {
	Run      ub.Run
	Tasks    []*ub.Task
	Episodes []*ub.Episode
	// Continued: more episodes of a run whose first part an earlier
	// EpisodeFile of the same source file brought (a dir-format run is
	// given in parts, so that memory holds a part, not the run).
	Continued bool
	// Splits and Policy come from a tau2 task folder (split_tasks.json,
	// policy.md beside tasks.json); nil when it has none.
	Splits []ub.TaskSplit
	Policy *ub.DomainPolicy
}

// DetectEpisodes names the episode format of a file from its first bytes:
// "tau2" for a JSON object whose top-level keys include "info" and either
// "tasks" or "simulations" (or, when the info object is longer than the head,
// whose head names "user_info" and "agent_info"); "tau1" for a JSON array
// whose first element has "task_id" and "traj" or "info"; "" otherwise.
func DetectEpisodes(head []byte) string {
	trimmed := bytes.TrimLeft(head, "\ufeff \t\r\n")
	switch {
	case bytes.HasPrefix(trimmed, []byte("{")):
		keys := jsonKeys(trimmed)
		if keys["info"] && (keys["tasks"] || keys["simulations"]) {
			return FormatTau2
		}
		if keys["info"] && bytes.Contains(head, []byte(`"user_info"`)) && bytes.Contains(head, []byte(`"agent_info"`)) {
			return FormatTau2
		}
	case bytes.HasPrefix(trimmed, []byte("[")):
		rest := bytes.TrimLeft(trimmed[1:], " \t\r\n")
		if !bytes.HasPrefix(rest, []byte("{")) {
			return ""
		}
		keys := jsonKeys(rest)
		if keys["task_id"] && (keys["traj"] || keys["info"]) {
			return FormatTau1
		}
	}
	return ""
}

func sha(parts ...[]byte) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:", len(p))
		h.Write(p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TaskKey is sha256 over domain, task id and the canonical JSON of the task.
func TaskKey(domain, taskID string, raw json.RawMessage) string {
	return sha([]byte(domain), []byte(taskID), canonical(raw))
}

// taskKeyFunc computes a task's key (TaskKey).
type taskKeyFunc func(domain, taskID string, raw json.RawMessage) string

// sinkTaskKey returns the sink's taskKey when it has one (writer, which
// remembers the keys of a run: every result file of a domain embeds the
// same tasks, and a key re-encodes its whole task), else TaskKey.
func sinkTaskKey(sink EpisodeSink) taskKeyFunc {
	if k, ok := sink.(interface {
		taskKey(domain, taskID string, raw json.RawMessage) string
	}); ok {
		return k.taskKey
	}
	return TaskKey
}

// sinkTaskSeen returns the sink's tau2 tasks made so far when it keeps
// them (writer), else nil. The parsers copy a task they find there.
func sinkTaskSeen(sink EpisodeSink) seenTasks {
	if k, ok := sink.(interface{ taskSeen() seenTasks }); ok {
		return k.taskSeen()
	}
	return nil
}

// idString reads a task id written as a string or a number.
func idString(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, s != ""
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String(), true
	}
	return "", false
}

func nullRaw(raw json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || string(t) == "null" {
		return nil
	}
	return t
}

// Identity names a simulator or agent readably: implementation:model@params,
// params being t<temperature> and other scalar settings k=v in key order;
// endpoints and credentials (base_url, api_key, anything naming a key,
// token or secret) are never part of a name. user_simulator:gpt-4.1@t0.
func IdentityName(impl, model string, args json.RawMessage) string {
	name := impl
	if model != "" {
		if name != "" {
			name += ":"
		}
		name += model
	}
	if name == "" {
		name = "unknown"
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil || len(m) == 0 {
		return name
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var params []string
	if t, ok := m["temperature"]; ok {
		var f float64
		if json.Unmarshal(t, &f) == nil {
			params = append(params, "t"+strconv.FormatFloat(f, 'g', -1, 64))
		}
	}
	for _, k := range keys {
		lk := strings.ToLower(k)
		if k == "temperature" || strings.Contains(lk, "key") || strings.Contains(lk, "token") ||
			strings.Contains(lk, "secret") || strings.Contains(lk, "url") || strings.Contains(lk, "base") ||
			strings.Contains(lk, "header") {
			continue
		}
		var v any
		if json.Unmarshal(m[k], &v) != nil {
			continue
		}
		switch x := v.(type) {
		case string:
			params = append(params, k+"="+x)
		case float64:
			params = append(params, k+"="+strconv.FormatFloat(x, 'g', -1, 64))
		case bool:
			params = append(params, k+"="+strconv.FormatBool(x))
		}
	}
	if len(params) > 0 {
		name += "@" + strings.Join(params, ",")
	}
	return name
}

// fileStem is the base name without .json.
func fileStem(path string) string {
	return strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
}

// nameDomain reads the domain from a corpus-style file name
// <domain>__agent-<agent>__user-<user>...; "" when it does not follow it.
func nameDomain(path string) string {
	parts := strings.Split(fileStem(path), "__")
	if len(parts) >= 2 && parts[0] != "" && !strings.ContainsAny(parts[0], " .") {
		return parts[0]
	}
	return ""
}

// namePart returns the part of a corpus-style file name after prefix
// ("agent-", "user-"), or "".
func namePart(path, prefix string) string {
	for _, p := range strings.Split(fileStem(path), "__") {
		if strings.HasPrefix(p, prefix) && len(p) > len(prefix) {
			return strings.TrimPrefix(p, prefix)
		}
	}
	return ""
}

func strp(s string) *string { return &s }

// EpisodeSink receives parsed episode files and task files.
type EpisodeSink interface {
	EpisodeFile(f *EpisodeFile) error
	Error(e *ParseError)
}
