package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

// examples are printed under EXAMPLES in each command's --help (as gh
// does), keyed by the command's path below ub.
var examples = map[string][]string{
	"ingest":        {"ub ingest ~/.claude/projects", "ub ingest --format codex --developer ada ~/.codex/sessions", "ub ingest --prices prices.toml results/", "ub ingest --tasks data/tau2/domains/airline"},
	"sql":           {"ub sql 'select developer, count(*) from sessions group by 1 order by 2 desc'", "ub sql --format csv 'select * from points order by id' > points.csv"},
	"export":        {"ub export --out sessions.parquet sessions", "ub export --query 'select * from turns where role = ''developer''' --out dev.jsonl", "ub export --partition-by run_id --out episodes ep_episodes"},
	"split":         {"ub split --seed 7", "ub split --ratios train=0.8,test=0.2 --by sessions", "ub split --report --out figures", "ub split --json"},
	"points":        {"ub points --per-developer 30 --seed 1", "ub points export --out points.jsonl"},
	"points export": {"ub points export --out points.jsonl"},
	"points import": {"ub points import points.jsonl"},
	"audit":         {"ub audit", "ub audit --json"},
	"generate":      {"ub generate --sim mix,retrieve --conditions profile,noprofile", "ub generate --experiment experiment.toml", "ub generate --experiment experiment.toml --retry-failed", "ub generate --experiment experiment.toml --trials 3"},
	"cache":         {"ub cache explain --sim mix @1"},
	"cache explain": {"ub cache explain --sim mix @1", "ub cache explain --sim gpt --experiment experiment.toml p-0001", "ub cache explain --sim gpt --experiment experiment.toml --trial 2 p-0001"},
	"batch":         {"ub batch import --provider openai --keys batches/gpt-001.keys.jsonl results.jsonl"},
	"batch import":  {"ub batch import --provider openai --keys batches/gpt-001.keys.jsonl results.jsonl"},
	"judge":         {"ub judge", "ub judge --target generations --json", "ub judge --judge gpt --model gpt-4.1 --base-url https://api.openai.com/v1 --api-key-env OPENAI_API_KEY", "ub judge --input messages.jsonl"},
	"agree":         {"ub agree --judges builtin,demo-truth", "ub agree --list"},
	"labels":        {"ub labels import --name ann labels.jsonl"},
	"labels import": {"ub labels import --name ann labels.jsonl", "ub labels import --name ann --messages messages.jsonl labels.jsonl"},
	"demo":          {"ub demo", "ub demo --dir /tmp/ub-demo --seed 2"},
	"prompt":        {"ub prompt show --sim retrieve @1"},
	"prompt show":   {"ub prompt show --sim retrieve @1", "ub prompt show --sim mix --condition noprofile --window 4 --history 8 p-0001"},
	"profile":       {"ub profile", "ub profile --show dev-0003 --json"},
	"report": {"ub report --out report", "ub report --figure context-heatmap --out figures", "ub report --list", "ub report --out report --json",
		"ub report --study fidelity --simulators user_simulator:gpt-4.1@t0 --out fidelity-report", "ub report --study fidelity --task-split test --out test-split", "ub report --off-leaderboard osim-8b --case-developer alice --case-simulators gpt-5.5,osim-4b"},
	"synth":           {"ub --db study.duckdb synth --seed 1 --scale 10", "ub --db fidelity.duckdb synth --study fidelity", "ub --db trials.duckdb synth --trials 3"},
	"probes":          {"ub probes", "ub probes --probe P0", "ub probes --json"},
	"rubrics":         {"ub rubrics import rubrics.jsonl", "ub rubrics show 7"},
	"rubrics import":  {"ub rubrics import rubrics.jsonl"},
	"rubrics write":   {"ub rubrics write --model gpt-4.1 --base-url https://api.openai.com/v1 --api-key-env OPENAI_API_KEY --verifier-model gpt-4.1-mini"},
	"rubrics show":    {"ub rubrics show 7"},
	"verdicts":        {"ub verdicts import verdicts.jsonl"},
	"verdicts import": {"ub verdicts import verdicts.jsonl", "ub verdicts import --grader ann verdicts.jsonl"},
	"grade":           {"ub grade --model gpt-4.1 --base-url https://api.openai.com/v1 --api-key-env OPENAI_API_KEY"},
	"review":          {"ub review sample --n 40 --reviewers ann,ben --name pilot", "ub review serve --batch pilot", "ub review stats --out review"},
	"review sample":   {"ub review sample --n 40 --seed 7 --stratify domain,success --reviewers ann,ben --name pilot", "ub review sample --n 100 --oversample-probes 4 --name guided", "ub review sample --n 40 --reviewers ann --prefill llm:results --name prefilled"},
	"review plan":     {"ub review plan --width 0.05", "ub review plan --detect 0.03 --expected 0.05 --json"},
	"review serve":    {"ub review serve --batch pilot", "ub review serve --batch pilot --adjudicator cat"},
	"review stats":    {"ub review stats", "ub review stats --interval jeffreys --level 0.9 --json", "ub review stats --out review", "ub review stats --seed 7"},
	"review export":   {"ub review export --out decisions.jsonl", "ub review export --rerun --out rerun.tsv", "ub review export --format label-studio --batch pilot --out tasks.json", "ub review export --format argilla --out records.jsonl"},
	"review import":   {"ub review import results.json", "ub review import --reviewer ann labels.csv", "ub review import --format label-studio --reviewer ann --annotator 1 export.json", "ub review import --reviewer-model claude-opus-4-5 results.json"},
	"publish":         {"ub publish bundle", "ub --db study.duckdb publish /tmp/study-bundle && (cd /tmp/study-bundle && sha256sum -c SHA256SUMS)"},
	"compare":         {"ub compare gpt-5.5 claude-opus-4.8", "ub compare --json glm-5.2@noprofile glm-5.2@profile", "ub compare --study fidelity --fail-on-regression 0.02 mysim-v1 mysim-v2", "ub compare --task-split test mysim-v1 mysim-v2"},
	"completion":      {"ub completion bash > /etc/bash_completion.d/ub", "ub completion zsh > \"${fpath[1]}/_ub\"", "ub completion fish > ~/.config/fish/completions/ub.fish"},
	"man":             {"ub man > ub.1 && man ./ub.1"},
	"help":            {"ub help review sample"},
	"view":            {"ub view", "ub --db study.duckdb view --addr 127.0.0.1:8080", "ub view --judge gpt-5.5-judge --grader mine"},
}

// addExamples gives every command of cmds (and their subcommands) a help
// template ending in its EXAMPLES.
func addExamples(cmds []*cli.Command, parent string) {
	for _, cmd := range cmds {
		name := strings.TrimSpace(parent + " " + cmd.Name)
		if ex := examples[name]; len(ex) > 0 {
			tmpl := cli.CommandHelpTemplate
			if len(cmd.Subcommands) > 0 {
				tmpl = cli.SubcommandHelpTemplate
			}
			var b strings.Builder
			b.WriteString(strings.TrimRight(tmpl, "\n"))
			b.WriteString("\n\nEXAMPLES:\n")
			for _, e := range ex {
				fmt.Fprintf(&b, "   %s\n", e)
			}
			cmd.CustomHelpTemplate = b.String()
		}
		addExamples(cmd.Subcommands, name)
	}
}

// suggestFlag appends "did you mean --NAME?" to an unknown-flag error of
// cmd, naming its nearest flag.
func suggestFlag(err error, flags []cli.Flag) error {
	const prefix = "flag provided but not defined: -"
	msg := err.Error()
	i := strings.Index(msg, prefix)
	if i < 0 || cli.SuggestFlag == nil {
		return err
	}
	given := strings.TrimLeft(msg[i+len(prefix):], "-")
	if s := cli.SuggestFlag(flags, given, true); s != "" {
		return fmt.Errorf("%w (did you mean %s?)", err, s)
	}
	return err
}

// suggestCommand is " (did you mean NAME?)" for an unknown command among
// cmds, or "".
func suggestCommand(cmds []*cli.Command, given string) string {
	best, score := "", 0.0
	for _, c := range cmds {
		if c.Hidden {
			continue
		}
		for _, n := range c.Names() {
			if d := similarity(n, given); d > score {
				best, score = n, d
			}
		}
	}
	if score < 0.6 {
		return ""
	}
	return fmt.Sprintf(" (did you mean %s?)", best)
}

// similarity is 1 - the edit distance of a and b (insertions, deletions,
// substitutions and swaps of two adjacent letters) over the longer length.
func similarity(a, b string) float64 {
	m, n := len(a), len(b)
	if m == 0 && n == 0 {
		return 1
	}
	prev, prev2 := make([]int, n+1), make([]int, n+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= m; i++ {
		cur := make([]int, n+1)
		cur[0] = i
		for j := 1; j <= n; j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1) // two letters swapped
			}
		}
		prev2, prev = prev, cur
	}
	return 1 - float64(prev[n])/float64(max(m, n))
}

// commandGroups are the headings of ub --help, in order, each with the
// commands listed under it (as gh groups its commands by what they are
// for). Every visible command is in exactly one group (TestRootHelp).
var commandGroups = []struct {
	heading string
	names   []string
}{
	{"DATA", []string{"ingest", "sql", "export", "demo", "synth"}},
	{"USERBENCH", []string{"split", "points", "audit", "profile", "prompt", "generate", "cache", "batch", "judge", "agree", "labels"}},
	{"FIDELITY", []string{"probes", "rubrics", "verdicts", "grade"}},
	{"REVIEW", []string{"review"}},
	{"OUTPUT", []string{"report", "view", "compare", "publish"}},
	{"HELP", []string{"help", "completion", "man"}},
}

// groupedHelpTemplate is urfave/cli's help template of the app with its
// COMMANDS section replaced by the commands of cmds under the headings of
// commandGroups. A command in no group is listed under OTHER, so that it
// is never hidden.
func groupedHelpTemplate(cmds []*cli.Command) string {
	byName := map[string]*cli.Command{}
	width := 0
	for _, c := range cmds {
		if !c.Hidden {
			byName[c.Name] = c
			width = max(width, len(c.Name))
		}
	}
	var b strings.Builder
	line := func(c *cli.Command) {
		fmt.Fprintf(&b, "\n   %-*s  %s", width, c.Name, strings.ReplaceAll(c.Usage, "{{", `{{"{{"}}`))
		delete(byName, c.Name)
	}
	for _, g := range commandGroups {
		fmt.Fprintf(&b, "\n\n%s COMMANDS:", g.heading)
		for _, name := range g.names {
			if c := byName[name]; c != nil {
				line(c)
			}
		}
	}
	if len(byName) > 0 {
		b.WriteString("\n\nOTHER COMMANDS:")
		for _, c := range cmds {
			if byName[c.Name] != nil {
				line(c)
			}
		}
	}
	const section = `{{if .VisibleCommands}}

COMMANDS:{{template "visibleCommandCategoryTemplate" .}}{{end}}`
	if !strings.Contains(cli.AppHelpTemplate, section) {
		panic("urfave/cli's AppHelpTemplate has no COMMANDS section to replace")
	}
	return strings.Replace(cli.AppHelpTemplate, section, b.String(), 1)
}
