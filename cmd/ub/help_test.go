package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestHelpLikeGh: ub help CMD is ub CMD --help; every command's help ends
// in EXAMPLES; an unknown flag or command names the nearest one.
func TestHelpLikeGh(t *testing.T) {
	for _, path := range [][]string{{"split"}, {"review", "sample"}, {"points", "export"}} {
		c1, o1, e1 := ubRun(append([]string{"help"}, path...)...)
		c2, o2, _ := ubRun(append(path, "--help")...)
		if c1 != 0 || c2 != 0 || o1 != o2 || o1 == "" {
			t.Errorf("ub help %s (exit %d, %s) differs from its --help (exit %d):\n%s\n---\n%s", strings.Join(path, " "), c1, e1, c2, o1, o2)
		}
	}
	var walk func(cmds []*cli.Command, parent []string)
	walk = func(cmds []*cli.Command, parent []string) {
		for _, c := range cmds {
			if c.Name == "help" && parent == nil {
				continue // ub help --help is ub --help, whose examples are each command's
			}
			path := append(append([]string{}, parent...), c.Name)
			code, out, errs := ubRun(append(path, "--help")...)
			if code != 0 || !strings.Contains(out, "\nEXAMPLES:\n   ub ") {
				t.Errorf("ub %s --help: exit %d, no EXAMPLES section:\n%s%s", strings.Join(path, " "), code, out, errs)
			}
			walk(c.Subcommands, path)
		}
	}
	walk(newApp(defaultStreams()).Commands, nil)

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"export", "--formt", "csv"}, "flag provided but not defined: -formt (did you mean --format?)"},
		{[]string{"--dbb", "x", "sql"}, "(did you mean --db?)"},
		{[]string{"splt"}, `unknown command "splt" (did you mean split?)`},
		{[]string{"review", "smaple"}, `unknown command "smaple" (did you mean sample?)`},
	} {
		code, _, errs := ubRun(c.args...)
		if code != exitUsage || !strings.Contains(errs, c.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("ub %s: exit %d, stderr %q; want exit 2 and one line with %q", strings.Join(c.args, " "), code, errs, c.want)
		}
	}
}

// TestCompletionAndMan: ub completion prints a script for each shell that
// asks ub for the words to complete; ub man prints the manual page, and
// docs/ub.1 is that page (UB_UPDATE_MAN=1 rewrites it).
func TestCompletionAndMan(t *testing.T) {
	for shell, want := range map[string]string{"bash": "complete -o bashdefault -o default -F _ub_complete ub", "zsh": "#compdef ub", "fish": "complete -c ub"} {
		code, out, errs := ubRun("completion", shell)
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("completion %s: exit %d %s, want %q in:\n%.300s", shell, code, errs, want, out)
		}
		if shell != "fish" && !strings.Contains(out, "--generate-bash-completion") {
			t.Errorf("completion %s does not ask ub for the words", shell)
		}
	}
	if code, _, errs := ubRun("completion", "tcsh"); code != exitUsage || !strings.Contains(errs, `unknown shell "tcsh"`) {
		t.Errorf("completion tcsh: exit %d %s", code, errs)
	}
	// What the scripts run: the words that may follow (in a child process:
	// urfave/cli reads os.Args to complete).
	for args, want := range map[string]string{`["--generate-bash-completion"]`: "\ningest\n", `["review","--generate-bash-completion"]`: "\nsample\n"} {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "UB_TEST_MAIN_ARGS="+args)
		out, err := cmd.Output()
		if err != nil || !strings.Contains("\n"+string(out), want) {
			t.Errorf("ub %s: %v:\n%s", args, err, out)
		}
	}

	code, man, errs := ubRun("man")
	if code != 0 || !strings.HasPrefix(man, ".nh\n.TH ub 1") || !strings.Contains(man, ".SS sample") {
		t.Fatalf("ub man: exit %d %s:\n%.300s", code, errs, man)
	}
	if os.Getenv("UB_UPDATE_MAN") == "1" {
		if err := os.WriteFile("../../docs/ub.1", []byte(man), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile("../../docs/ub.1")
	if err != nil || string(b) != man {
		t.Errorf("docs/ub.1 is not the output of ub man (%v): run UB_UPDATE_MAN=1 go test ./cmd/ub -run TestCompletionAndMan", err)
	}
}

// TestRootHelp: ub --help, ub -h, ub help and ub alone print ub's help on
// stdout and exit 0; the help lists every command once, under the heading
// of what it is for, the groups in the order of commandGroups (as gh
// groups its commands).
func TestRootHelp(t *testing.T) {
	var first string
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}, {}} {
		code, out, errs := ubRun(args...)
		if code != 0 || errs != "" {
			t.Errorf("ub %s: exit %d, stderr %q; want exit 0 and the help", strings.Join(args, " "), code, errs)
			continue
		}
		if first == "" {
			first = out
		} else if out != first {
			t.Errorf("ub %s prints another help than ub --help:\n%s", strings.Join(args, " "), out)
		}
	}
	headings := []string{"DATA COMMANDS:", "USERBENCH COMMANDS:", "FIDELITY COMMANDS:", "REVIEW COMMANDS:", "OUTPUT COMMANDS:", "HELP COMMANDS:"}
	at := 0
	for _, h := range headings {
		i := strings.Index(first, "\n"+h+"\n")
		if i < at {
			t.Fatalf("ub --help: heading %q missing or out of order:\n%s", h, first)
		}
		at = i
	}
	under := map[string]string{} // command -> the heading it is listed under
	heading := ""
	for _, line := range strings.Split(first, "\n") {
		switch {
		case strings.HasSuffix(line, "COMMANDS:"):
			heading = line
		case line == "" || !strings.HasPrefix(line, "   "):
			if !strings.HasPrefix(line, "   ") {
				heading = ""
			}
		case heading != "":
			name := strings.Fields(line)[0]
			if prev, twice := under[name]; twice {
				t.Errorf("%s listed under %s and %s", name, prev, heading)
			}
			under[name] = heading
		}
	}
	for name, want := range map[string]string{"ingest": "DATA COMMANDS:", "split": "USERBENCH COMMANDS:", "probes": "FIDELITY COMMANDS:",
		"review": "REVIEW COMMANDS:", "report": "OUTPUT COMMANDS:", "view": "OUTPUT COMMANDS:", "completion": "HELP COMMANDS:"} {
		if under[name] != want {
			t.Errorf("%s listed under %q, want %q", name, under[name], want)
		}
	}
	n := 0
	for _, c := range newApp(defaultStreams()).Commands {
		if c.Hidden {
			continue
		}
		n++
		if under[c.Name] == "" {
			t.Errorf("ub --help does not list %s under a group", c.Name)
		}
	}
	if len(under) != n || n != 28 {
		t.Errorf("ub --help lists %d commands of %d (want the 28)", len(under), n)
	}
	for name, heading := range under {
		if heading == "OTHER COMMANDS:" {
			t.Errorf("%s is in no group of commandGroups", name)
		}
	}
}
