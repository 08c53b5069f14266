package judge

import (
	"regexp"
	"strings"
)

// A fragment is a message that makes no move: a piece of something pasted
// on its own (aider sends every pasted line as a message). The labelling
// guide labels them other unless they show a fault (a pasted error or stack
// trace is critical, fault first), so the fragment cue is only set when no
// fault signature is present. The kinds are recognised by their syntax, not
// by words of one language or one corpus.

// Line kinds of a fragment.
const (
	fragNone    = ""
	fragCode    = "code"
	fragComment = "comment"
	fragShell   = "shell"
	fragLog     = "log"
	fragFrame   = "frame"
)

var (
	// A comment line in C-like, scripting, SQL, Lisp, TeX, HTML or doc
	// syntax. "# Question:" (aider's /help) is not one.
	commentRE = regexp.MustCompile(`^(//+|/\*+|\*+/?\s|\*$|#+\s*[^\s#]|--\s|;;+|%\s|<!--|"""|''')`)
	// A terminal or REPL prompt: "$ ls", "user@host:~/dir$ ", "PS C:\x> ",
	// "C:\x>", ">>> ", "In [3]:", "irb(main):001:0>", "mysql> ".
	promptRE = regexp.MustCompile(`^((\(\S+\)\s*)?[\w.-]+@[\w.-]+:\S*[$#%]|[$>]\s+\S|PS [A-Za-z]:\\[^>]*>|[A-Za-z]:\\[^>]*>|>>>|\.\.\.\s|In \[\d+\]:|irb\(|(mysql|sqlite|postgres|psql|redis[\w.:-]*)[=\-]?[>#])`)
	// A log line: a timestamp, a level tag, key=value pairs, a compose
	// service prefix, a glog header.
	logLineRE = regexp.MustCompile(`(?i)^(\[?\d{4}[-/]\d\d[-/]\d\d[ T]\d\d:\d\d|\[?\d\d:\d\d:\d\d([.,]\d+)?\]?\s|\[?(trace|debug|info|notice|warn|warning)\]?[\s:|]|level=\w+|[\w-]+[-_]\d+\s+\|\s|[IWEF]\d{4}\s+\d\d:\d\d)`)
	// A directory listing ("drwxr-xr-x  5 ana ana 4096 ...", "total 20").
	listingRE = regexp.MustCompile(`^([dlcbps-][rwxsStT-]{9}[.+@]?\s+\d|total \d+$)`)
	// A stack frame: "at f (file.js:1:2)", `File "x.py", line 3, in f`,
	// "#0 0x00 in f", "goroutine 1 [running]:", "main.go:12 +0x1d".
	frameRE = regexp.MustCompile(`^(at\s+\S.*(\(.*:\d+(:\d+)?\)|:\d+(:\d+)?)\)?$|File ".+", line \d+|#\d+\s+0x[0-9a-f]+|goroutine \d+ \[|\S+\.(go|rs|c|cc|cpp|java|kt|py|rb|js|ts|swift):\d+(:\d+)?\s*(\+0x[0-9a-f]+)?$)`)
	// A code line: a statement opening, a declaration, markup, or a line
	// ending the way statements end.
	codeOpenRE = regexp.MustCompile(`^(import\s+[\w.]+(\s+as\s+\w+)?(\s*,\s*[\w.]+)*;?$|import\s+.*\sfrom\s+['"]|import\s+["'{*(]|(?i:select\s.+\sfrom\s|insert\s+into\s|update\s+\w+\s+set\s|delete\s+from\s|create\s+(table|index|view)\s)|from\s+[\w.]+\s+import\s|def\s+\w+\s*\(|class\s+\w+|(export\s+)?(const|let|var)\s+[\w{\[]+\s*[=:;]|return\b.*[;)\w]$|(async\s+)?function\b|func\s+[\w(]|fn\s+\w+|pub\s+(fn|struct|enum|mod)\b|package\s+[\w.]+;?$|#include\s*[<"]|#define\s|(public|private|protected|static|final|override)\s+\w|struct\s+\w+|enum\s+\w+|interface\s+\w+|type\s+\w+\s+(struct|interface|=)|(if|for|while|switch|catch)\s*\(|else\b|elif\s.*:$|try\s*[:{]|except\b.*:$|case\s.*:$|using\s+[\w.]+;|namespace\s+\w|@\w+(\(|$)|</?[a-zA-Z][\w-]*(\s[^>]*)?/?>|[}\])]+[;,)]*$|\{$)`)
	codeEndRE  = regexp.MustCompile(`(;|\{|\}|\)\s*;|\)\s*:|=>|\)\s*\{|,)$`)
	assignRE   = regexp.MustCompile(`^[\w.\[\]"'$]+\s*(:=|\+=|-=|\*=|=)\s*\S`)
	callRE     = regexp.MustCompile(`^[\w.$]+(<[^>]*>)?\([^()]*(\([^()]*\))*[^()]*\);?$`)
)

// fragmentLine returns the kind of a trimmed line when it is a fragment of
// something pasted, fragNone when it reads as the developer's own words.
func fragmentLine(t string) string {
	lower := strings.ToLower(t)
	switch {
	case t == "":
		return fragNone
	case strings.HasPrefix(lower, "# question:"):
		return fragNone
	case frameRE.MatchString(t):
		return fragFrame
	case promptRE.MatchString(t) && !strings.HasPrefix(t, "> "):
		return fragShell
	case logLineRE.MatchString(t), listingRE.MatchString(t):
		return fragLog
	case codeOpenRE.MatchString(t), callRE.MatchString(t):
		return fragCode
	case commentRE.MatchString(t):
		return fragComment
	case assignRE.MatchString(t) && !strings.Contains(t, " the "):
		return fragCode
	case codeEndRE.MatchString(t) && isCodeLine(t):
		return fragCode
	}
	return fragNone
}

// fragmentKind returns the kind of a message made only of fragment lines
// (the kind of its first line; "mixed" is never returned: the first line
// names it), or fragNone when any non-blank line is the developer's own
// words. Code fences count as code. At most maxFragmentLines lines are
// read: a longer paste is judged by the other cues.
func fragmentKind(msg string) string {
	kind := fragNone
	n := 0
	for _, l := range strings.Split(msg, "\n") {
		t := strings.TrimSpace(l)
		if t == "" || t == "<blank>" {
			continue
		}
		n++
		if n > maxFragmentLines {
			break
		}
		k := fragCode
		if !strings.HasPrefix(t, "```") && !strings.HasPrefix(t, "´´´") {
			k = fragmentLine(t)
		}
		if k == fragNone {
			return fragNone
		}
		if kind == fragNone {
			kind = k
		}
	}
	return kind
}

// maxFragmentLines is how many lines of a message fragmentKind reads.
const maxFragmentLines = 40

// agentProseMin is the fewest words a message must have to count as pasted
// agent prose: an assistant's answer is long, a developer's "I'll test it"
// is not.
const agentProseMin = 25

// permitRE matches a permission to carry out what the agent proposed, with
// nothing new: "go ahead and make the changes", "yes, apply them", "sí,
// aplica los cambios". The object refers back to the agent's proposal (it,
// them, the changes, your fix), so the message adds no work: the guide's
// rule 4 (approve), not rule 2.
var permitRE = regexp.MustCompile(`^((yes|yeah|yep|sure|ok|okay|alright|please|sí|si|oui|ja|ano|jo)[,!.]*\s+)?` +
	`((go ahead|proceed|feel free)( and| to)?\s+)?(please\s+)?` +
	`(apply|make|do|implement|commit|save|write|run|aplica|haz|applique|fais|übernimm|mach|proveď|udělej)\s+` +
	`(all\s+)?(it|them|that|this|those|these|the\s+(changes?|edits?|fix(es)?|plan|suggestions?|updates?)|your\s+(changes?|edits?|fix(es)?|suggestions?|plan)|(those|these)\s+(changes|edits)|los cambios|les modifications|die änderungen|změny|to)` +
	`(\s+(now|please|for me|then))?[\s.!]*$`)
