package democorpus

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ub-bench/ub"
)

// The demo corpus: invented developers and repositories, written in every
// format ub reads, so that the whole pipeline can run offline on data no one
// owns. Each developer has a move mix of their own (how often they approve,
// report a fault, direct or ask), which the later stages should recover.

type demoDev struct {
	name   string
	repos  []string
	format string     // source format of their sessions
	mix    [4]float64 // approve, critical, directive, inquiry
}

var demoDevs = []demoDev{
	{"mara", []string{"atlas", "quill"}, "aider", [4]float64{.15, .25, .45, .15}},
	{"ivo", []string{"forge"}, "aider", [4]float64{.35, .15, .35, .15}},
	{"tomas", []string{"relay"}, "claude-code", [4]float64{.10, .40, .35, .15}},
	{"lena", []string{"pager"}, "codex", [4]float64{.20, .20, .30, .30}},
	{"ravi", []string{"ledger"}, "specstory", [4]float64{.25, .20, .40, .15}},
	{"noor", []string{"sketch"}, "claude-export", [4]float64{.10, .20, .30, .40}},
}

// jsonl developers, added to demoDevs at generation time; some share
// repositories so the developer <-> repository graph has components of
// several sizes.
var demoJSONLNames = []string{"ada", "bea", "cai", "dov", "eli", "fay", "gus", "hal", "ines", "jon", "kim", "lou", "moe", "nia", "oli", "pia"}

var demoNouns = []string{"the parser", "the retry loop", "the cache", "the login form", "the CSV export", "the config loader",
	"the migration", "the rate limiter", "the search box", "the test suite", "the build script", "the API client"}

var demoMoves = [4][]string{
	{"looks good, go ahead", "yes", "great, commit it", "ok", "perfect, thanks", "lgtm", "sounds right, proceed"},
	{"that broke %s, the tests fail now", "no, %s still crashes on empty input", "this is wrong: %s ignores the timeout",
		"thanks, but %s still returns 500", "you changed %s, I did not ask for that", "%s throws a nil pointer panic"},
	{"now add logging to %s", "refactor %s into smaller functions", "write tests for %s", "rename the options in %s",
		"move %s into its own package", "also handle unicode in %s", "make %s configurable with a flag"},
	{"why does %s need a lock?", "what does %s do when the file is missing?", "how long does %s take on big inputs?",
		"which version of %s are we on?", "is %s safe to call twice?", "where is %s configured?"},
}

var demoAgent = []string{"I updated %s and ran the tests; all pass.", "Here is the change to %s. It keeps the old behaviour for existing callers.",
	"I looked into %s: the problem is an off-by-one in the loop bound.", "Done. %s now reads its settings from the environment.",
	"I could not reproduce the failure in %s; can you share the error output?", "The edit to %s is applied and committed."}

// demoMoveNames are the moves of demoMoves, in order (the judge's names).
var demoMoveNames = [4]string{"approve", "critical", "directive", "inquiry"}

// Move returns the move the demo corpus wrote a developer message as
// (approve, critical, directive or inquiry): the move of the template the
// message was made from, a label known by construction. ok is false for a
// text no demo template makes (a command, or any other text).
func Move(text string) (move string, ok bool) {
	t := strings.TrimSpace(text)
	for m, tpls := range demoMoves {
		for _, tpl := range tpls {
			if !strings.Contains(tpl, "%s") {
				if t == tpl {
					return demoMoveNames[m], true
				}
				continue
			}
			for _, n := range demoNouns {
				if t == fmt.Sprintf(tpl, n) {
					return demoMoveNames[m], true
				}
			}
		}
	}
	return "", false
}

type demoTurn struct {
	role    ub.Role
	text    string
	command bool
}

func demoPickMove(r *rand.Rand, mix [4]float64) int {
	u := r.Float64()
	for i, p := range mix {
		if u < p {
			return i
		}
		u -= p
	}
	return 3
}

// demoSession makes one conversation: an opening request, then rounds of
// agent reply (sometimes with a tool call) and developer reaction.
func demoSession(r *rand.Rand, d demoDev) []demoTurn {
	noun := demoNouns[r.IntN(len(demoNouns))]
	ts := []demoTurn{{ub.RoleDeveloper, fmt.Sprintf(demoMoves[2][r.IntN(len(demoMoves[2]))], noun), false}}
	if r.IntN(4) == 0 {
		ts = append(ts, demoTurn{ub.RoleDeveloper, "/add " + strings.ReplaceAll(noun[4:], " ", "_") + ".go", true})
	}
	rounds := 4 + r.IntN(6)
	for i := 0; i < rounds; i++ {
		ts = append(ts, demoTurn{ub.RoleAgent, fmt.Sprintf(demoAgent[r.IntN(len(demoAgent))], noun), false})
		if r.IntN(3) == 0 {
			ts = append(ts, demoTurn{ub.RoleTool, "go test ./...\nok  \t" + d.repos[0] + "\t0.41s", false})
		}
		m := demoPickMove(r, d.mix)
		tpl := demoMoves[m][r.IntN(len(demoMoves[m]))]
		if strings.Contains(tpl, "%s") {
			if r.IntN(3) == 0 {
				noun = demoNouns[r.IntN(len(demoNouns))]
			}
			tpl = fmt.Sprintf(tpl, noun)
		}
		ts = append(ts, demoTurn{ub.RoleDeveloper, tpl, false})
	}
	return ts
}

// WriteSessions writes the demo corpus under dir, deterministically from
// seed, and returns the paths to ingest and the manifest path.
func WriteSessions(dir string, seed uint64) (paths []string, manifest string, err error) {
	r := rand.New(rand.NewPCG(seed, 0x75622d64656d6f)) // "ub-demo"
	devs := append([]demoDev(nil), demoDevs...)
	for i, n := range demoJSONLNames {
		repos := []string{n + "-app"}
		if i%4 == 1 { // every fourth developer also works on the previous one's repo
			repos = append(repos, demoJSONLNames[i-1]+"-app")
		}
		mix := [4]float64{.1 + .05*float64(i%4), .15 + .05*float64(i%3), 0, .1 + .05*float64(i%5)}
		mix[2] = 1 - mix[0] - mix[1] - mix[3]
		devs = append(devs, demoDev{n, repos, "jsonl", mix})
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, "", err
	}
	base := time.Date(2025, 3, 3, 9, 0, 0, 0, time.UTC)
	var jsonl strings.Builder
	var man strings.Builder
	for di, d := range devs {
		nSess := 7 + r.IntN(3)
		var sessions [][]demoTurn
		var starts []time.Time
		for s := 0; s < nSess; s++ {
			sessions = append(sessions, demoSession(r, d))
			starts = append(starts, base.Add(time.Duration(di)*time.Hour+time.Duration(s)*26*time.Hour+time.Duration(r.IntN(600))*time.Second))
		}
		var files []string
		switch d.format {
		case "aider":
			for ri, repo := range d.repos {
				var b strings.Builder
				for s := range sessions {
					if s%len(d.repos) == ri {
						demoAider(&b, sessions[s], starts[s])
					}
				}
				f := filepath.Join(dir, "aider", d.name+"__"+repo+".aider.chat.history.md")
				files = append(files, f)
				if err := demoWriteFile(f, b.String()); err != nil {
					return nil, "", err
				}
				authors := []string{d.name}
				if d.name == "mara" && repo == "quill" {
					authors = append(authors, "ivo") // ivo committed to mara/quill: one component
				}
				aj, _ := json.Marshal(map[string]any{"repo": d.name + "/" + repo, "authors": authors})
				man.Write(aj)
				man.WriteString("\n")
			}
		case "claude-code":
			for s := range sessions {
				id := fmt.Sprintf("%08x-0000-4000-8000-%012x", r.Uint32(), s)
				f := filepath.Join(dir, d.name+"__claude_backup", "projects", "-home-"+d.name+"-src-"+d.repos[0], id+".jsonl")
				if err := demoWriteFile(f, demoClaudeCode(sessions[s], starts[s], id, "/home/"+d.name+"/src/"+d.repos[0])); err != nil {
					return nil, "", err
				}
			}
			files = append(files, filepath.Join(dir, d.name+"__claude_backup"))
		case "codex":
			for s := range sessions {
				id := fmt.Sprintf("%08x-0000-7000-8000-%012x", r.Uint32(), s)
				f := filepath.Join(dir, "formats", fmt.Sprintf("codex-rollout__%s__%s__%d.jsonl", d.name, d.repos[0], s))
				if err := demoWriteFile(f, demoCodex(sessions[s], starts[s], id, "/home/"+d.name+"/"+d.repos[0])); err != nil {
					return nil, "", err
				}
				files = append(files, f)
			}
		case "specstory":
			for s := range sessions {
				id := fmt.Sprintf("%08x-0000-4000-9000-%012x", r.Uint32(), s)
				f := filepath.Join(dir, "formats", fmt.Sprintf("specstory__%s__%s__%d.md", d.name, d.repos[0], s))
				if err := demoWriteFile(f, demoSpecStory(sessions[s], starts[s], id)); err != nil {
					return nil, "", err
				}
				files = append(files, f)
			}
		case "claude-export":
			for s := range sessions {
				id := fmt.Sprintf("%08x-0000-4000-a000-%012x", r.Uint32(), s)
				f := filepath.Join(dir, "formats", fmt.Sprintf("claude-export-md__%s__%s__%d.md", d.name, d.repos[0], s))
				if err := demoWriteFile(f, demoClaudeExport(sessions[s], starts[s], id, "/home/"+d.name+"/"+d.repos[0])); err != nil {
					return nil, "", err
				}
				files = append(files, f)
			}
		case "jsonl":
			for s := range sessions {
				repo := d.repos[s%len(d.repos)]
				owner := strings.TrimSuffix(repo, "-app")
				demoCanonical(&jsonl, sessions[s], starts[s], d.name, owner+"/"+repo)
			}
		}
		paths = append(paths, files...)
	}
	jf := filepath.Join(dir, "sessions.jsonl")
	if err := demoWriteFile(jf, jsonl.String()); err != nil {
		return nil, "", err
	}
	manifest = filepath.Join(dir, "aider", "manifest.jsonl")
	if err := demoWriteFile(manifest, man.String()); err != nil {
		return nil, "", err
	}
	paths = append(paths, jf)
	return demoDedupe(paths), manifest, nil
}

func demoDedupe(ps []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range ps {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

func demoWriteFile(path, text string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(text), 0o644)
}

func demoAider(b *strings.Builder, ts []demoTurn, start time.Time) {
	fmt.Fprintf(b, "\n# aider chat started at %s\n\n", start.Format("2006-01-02 15:04:05"))
	b.WriteString("> Aider v0.60.0\n> Model: demo-model with diff edit format\n> Git repo: .git with 12 files\n\n")
	for _, t := range ts {
		switch t.role {
		case ub.RoleDeveloper:
			for _, l := range strings.Split(t.text, "\n") {
				fmt.Fprintf(b, "#### %s  \n", l)
			}
			b.WriteString("\n")
		case ub.RoleAgent:
			b.WriteString(t.text + "\n\n")
		case ub.RoleTool:
			for _, l := range strings.Split(t.text, "\n") {
				fmt.Fprintf(b, "> %s\n", l)
			}
			b.WriteString("\n")
		}
	}
}

func demoJSONLine(b *strings.Builder, v any) {
	j, _ := json.Marshal(v)
	b.Write(j)
	b.WriteString("\n")
}

func demoClaudeCode(ts []demoTurn, start time.Time, id, cwd string) string {
	var b strings.Builder
	parent := any(nil)
	at := start
	for i, t := range ts {
		uuid := fmt.Sprintf("%s-%04d", id[:8], i)
		line := map[string]any{"parentUuid": parent, "isSidechain": false, "userType": "external", "cwd": cwd,
			"sessionId": id, "version": "2.1.220", "gitBranch": "main", "uuid": uuid, "timestamp": at.Format("2006-01-02T15:04:05.000Z")}
		switch t.role {
		case ub.RoleDeveloper:
			line["type"] = "user"
			text := t.text
			if t.command {
				text = "<command-name>" + strings.Fields(text)[0] + "</command-name>\n<command-args>" + strings.Join(strings.Fields(text)[1:], " ") + "</command-args>"
			}
			line["message"] = map[string]any{"role": "user", "content": text}
		case ub.RoleAgent:
			line["type"] = "assistant"
			line["message"] = map[string]any{"id": "msg_" + uuid, "type": "message", "role": "assistant", "model": "demo-model",
				"content": []any{map[string]any{"type": "text", "text": t.text}}, "usage": map[string]int{"input_tokens": 100 + i, "output_tokens": 20}}
		case ub.RoleTool:
			line["type"] = "assistant"
			line["message"] = map[string]any{"id": "msg_" + uuid, "type": "message", "role": "assistant", "model": "demo-model",
				"content": []any{map[string]any{"type": "tool_use", "id": "toolu_" + uuid, "name": "Bash", "input": map[string]string{"command": "go test ./..."}}}}
			demoJSONLine(&b, line)
			at = at.Add(3 * time.Second)
			parent = uuid
			uuid += "r"
			line = map[string]any{"parentUuid": parent, "isSidechain": false, "userType": "external", "cwd": cwd,
				"sessionId": id, "version": "2.1.220", "gitBranch": "main", "uuid": uuid, "timestamp": at.Format("2006-01-02T15:04:05.000Z"),
				"type": "user", "message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_" + uuid[:len(uuid)-1], "content": t.text, "is_error": false}}},
				"toolUseResult": map[string]any{"stdout": t.text, "stderr": "", "interrupted": false}}
		}
		demoJSONLine(&b, line)
		parent = uuid
		at = at.Add(40 * time.Second)
	}
	return b.String()
}

func demoCodex(ts []demoTurn, start time.Time, id, cwd string) string {
	var b strings.Builder
	at := start
	stamp := func() string { at = at.Add(7 * time.Second); return at.Format("2006-01-02T15:04:05.000Z") }
	demoJSONLine(&b, map[string]any{"timestamp": start.Format("2006-01-02T15:04:05.000Z"), "type": "session_meta",
		"payload": map[string]any{"id": id, "timestamp": start.Format("2006-01-02T15:04:05.000Z"), "cwd": cwd, "originator": "codex_cli_rs", "cli_version": "0.55.0"}})
	demoJSONLine(&b, map[string]any{"timestamp": stamp(), "type": "turn_context", "payload": map[string]any{"cwd": cwd, "model": "demo-codex"}})
	for i, t := range ts {
		switch t.role {
		case ub.RoleDeveloper:
			demoJSONLine(&b, map[string]any{"timestamp": stamp(), "type": "response_item", "payload": map[string]any{"type": "message", "role": "user",
				"content": []any{map[string]any{"type": "input_text", "text": t.text}}}})
			demoJSONLine(&b, map[string]any{"timestamp": stamp(), "type": "event_msg", "payload": map[string]any{"type": "user_message", "message": t.text, "images": []any{}}})
		case ub.RoleAgent:
			demoJSONLine(&b, map[string]any{"timestamp": stamp(), "type": "event_msg", "payload": map[string]any{"type": "agent_message", "message": t.text}})
			demoJSONLine(&b, map[string]any{"timestamp": stamp(), "type": "response_item", "payload": map[string]any{"type": "message", "role": "assistant",
				"content": []any{map[string]any{"type": "output_text", "text": t.text}}}})
		case ub.RoleTool:
			call := fmt.Sprintf("call_%d", i)
			demoJSONLine(&b, map[string]any{"timestamp": stamp(), "type": "response_item", "payload": map[string]any{"type": "function_call", "name": "shell",
				"arguments": `{"command":["bash","-lc","go test ./..."]}`, "call_id": call}})
			out, _ := json.Marshal(map[string]any{"output": t.text, "metadata": map[string]any{"exit_code": 0}})
			demoJSONLine(&b, map[string]any{"timestamp": stamp(), "type": "response_item", "payload": map[string]any{"type": "function_call_output", "call_id": call, "output": string(out)}})
		}
	}
	return b.String()
}

func demoSpecStory(ts []demoTurn, start time.Time, id string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<!-- Generated by SpecStory, Markdown v2.1.0 -->\n\n<!-- vscode Session %s (%s) -->\n\n# Demo session (%s)\n\n",
		id, start.Format("2006-01-02 15:04Z"), start.Format("2006-01-02 15:04Z"))
	at := start
	for i, t := range ts {
		if i > 0 {
			b.WriteString("---\n\n")
		}
		switch t.role {
		case ub.RoleDeveloper:
			fmt.Fprintf(&b, "_**User (%s)**_\n\n%s\n\n", at.Format("2006-01-02 15:04Z"), t.text)
		case ub.RoleAgent:
			fmt.Fprintf(&b, "_**Agent (model copilot/demo-model)**_\n\n%s\n\n", t.text)
		case ub.RoleTool:
			fmt.Fprintf(&b, "_**Agent (model copilot/demo-model)**_\n\n<tool-use data-tool-type=\"run\" data-tool-name=\"run_in_terminal\">\n<details>\n<summary>Tool use: **run_in_terminal**</summary>\n\n%s\n\n</details>\n</tool-use>\n\n", t.text)
		}
		at = at.Add(time.Minute)
	}
	return b.String()
}

func demoClaudeExport(ts []demoTurn, start time.Time, id, project string) string {
	var b strings.Builder
	stamp := func(t time.Time) string { return t.Format("1/2/2006, 3:04:05 PM") }
	fmt.Fprintf(&b, "# Claude Session Export\n\n## Session Information\n\n- **Session ID**: `%s`\n- **Export Mode**: Full Conversation\n- **First Message**: %s\n- **Project Path**: `%s`\n\n---\n\n## Conversation\n\n",
		id, stamp(start), project)
	at := start
	for i, t := range ts {
		switch t.role {
		case ub.RoleDeveloper:
			fmt.Fprintf(&b, "### User\n> %s\n\n%s\n\n---\n\n", stamp(at), t.text)
		case ub.RoleAgent:
			j, _ := json.MarshalIndent([]any{map[string]any{"type": "text", "text": t.text}}, "", "  ")
			fmt.Fprintf(&b, "### Assistant\n> %s\n\n%s\n\n---\n\n", stamp(at), j)
		case ub.RoleTool:
			tid := fmt.Sprintf("toolu_%s_%d", id[:8], i)
			j, _ := json.MarshalIndent([]any{map[string]any{"type": "tool_use", "id": tid, "name": "Bash", "input": map[string]string{"command": "go test ./..."}}}, "", "  ")
			fmt.Fprintf(&b, "### Assistant\n> %s\n\n%s\n\n---\n\n", stamp(at), j)
			j, _ = json.MarshalIndent([]any{map[string]any{"tool_use_id": tid, "type": "tool_result", "content": t.text}}, "", "  ")
			fmt.Fprintf(&b, "### User\n> %s\n\n%s\n\n---\n\n", stamp(at), j)
		}
		at = at.Add(30 * time.Second)
	}
	return b.String()
}

func demoCanonical(b *strings.Builder, ts []demoTurn, start time.Time, dev, repo string) {
	type turn struct {
		Role      ub.Role `json:"role"`
		Text      string  `json:"text"`
		TS        string  `json:"ts,omitempty"`
		IsCommand bool    `json:"is_command,omitempty"`
	}
	out := struct {
		Developer string `json:"developer"`
		Repo      string `json:"repo"`
		StartedAt string `json:"started_at"`
		Turns     []turn `json:"turns"`
	}{dev, repo, start.Format(time.RFC3339), nil}
	for i, t := range ts {
		out.Turns = append(out.Turns, turn{t.role, t.text, start.Add(time.Duration(i) * 45 * time.Second).Format(time.RFC3339), t.command})
	}
	demoJSONLine(b, out)
}
