package ingest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/ub-bench/ub/queries"
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
	Run      EpRun
	Tasks    []*EpTask
	Episodes []*Episode
	// Continued: more episodes of a run whose first part an earlier
	// EpisodeFile of the same source file brought (a dir-format run is
	// given in parts, so that memory holds a part, not the run).
	Continued bool
	// Splits and Policy come from a tau2 task folder (split_tasks.json,
	// policy.md beside tasks.json); nil when it has none.
	Splits []queries.NewEpTaskSplit
	Policy *queries.NewEpDomain
}

// EpRun is one result file's configuration (ep_runs): the row as the
// table holds it, one type for both.
type EpRun = queries.NewEpRun

// EpTask is one task definition with its gold actions and env assertions.
// Its ep_tasks row is the embedded queries.NewEpTask, as the table holds it.
type EpTask struct {
	queries.NewEpTask
	Actions    []EpAction
	Assertions []EpAssertion
}

// EpAction is a gold action; Requestor is "assistant" or "user".
type EpAction struct {
	ActionID               *string
	Requestor, Name        string
	Arguments, CompareArgs json.RawMessage
	Info                   *string
}

// EpAssertion is an env assertion of a task.
type EpAssertion struct {
	EnvType, FuncName string
	Arguments         json.RawMessage
	AssertValue       *bool
	Message           *string
}

// Episode is one simulation with its messages, tool calls and reward
// checks. Its ep_episodes row is the embedded queries.NewEpisode, as the
// table holds it (NMessages is set when written, from Messages). TaskRef is
// the embedded task it ran (nil: not found).
type Episode struct {
	queries.NewEpisode
	Messages []EpMessage
	Calls    []EpCall
	Checks   []EpCheck
	Line     int     // where the simulation starts in its file
	TaskRef  *EpTask // the task of TaskKey, as parsed (nil: none)
	// Attempts is the attempt ledger of the episode's task and trial
	// (tau2 records hallucination retries); nil when nothing was retried
	// or failed.
	Attempts []queries.NewEpAttempt
	// NoUser: the episode's run has no simulated user (EpRun.NoUser).
	NoUser bool
}

// infraError is the termination_reason of the placeholder tau2 writes for
// a simulation that never ran (a lost worker, retries exhausted): no
// messages, no reward; tau2 keeps it out of every metric.
const infraError = "infrastructure_error"

// noRun reports whether e is such a placeholder.
func (e *Episode) noRun() bool {
	return e.TerminationReason != nil && *e.TerminationReason == infraError
}

// EpMessage is one message of an episode.
type EpMessage struct {
	Idx, TurnIdx                   int
	Role                           string
	Content, ToolCallID, Requestor *string
	ToolError                      *bool
	NToolCalls                     int
	PromptTokens, CompletionTokens *int64
	Cost                           *float64
	TS                             *string
	TickID                         *int // full-duplex: the tick it was built from
}

// EpCall is one tool call made in a message.
type EpCall struct {
	MsgIdx, CallIdx int
	CallID          *string
	Requestor, Name string
	Arguments       json.RawMessage
}

// EpCheck is one item of the reward evaluation.
type EpCheck struct {
	Kind      string
	Idx       int
	Name      *string
	Requestor *string
	Met       *bool
	Reward    *float64
	Detail    json.RawMessage
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

// canonical re-encodes JSON with sorted keys and no spacing, so the same
// content hashes the same whatever the file's layout.
func canonical(raw json.RawMessage) []byte {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return raw
	}
	b, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return b
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
