package judge

import (
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// token is one unit of the tokenizer's output.
type token struct {
	text string
	word bool // a word, a number or a CJK character; otherwise punctuation or a newline
}

// tokenize lower-cases s and splits it into words (letters, digits and marks,
// with inner apostrophes, hyphens and underscores: "doesn't", "peux-tu",
// "property_type"), single CJK characters, runs of digits (as "0"), and the
// punctuation that delimits sentences and questions (". , : ! ? ¿" and
// newline). Everything else separates.
func tokenize(s string) []token {
	var out []token
	var cur []rune
	flush := func() {
		if len(cur) == 0 {
			return
		}
		// Trim joiners left at the edges ("--flag", "word-").
		w := strings.Trim(string(cur), "'-_")
		cur = cur[:0]
		if w == "" {
			return
		}
		if isDigits(w) {
			w = "0"
		}
		out = append(out, token{text: w, word: true})
	}
	rs := []rune(s)
	for i, r := range rs {
		r = unicode.ToLower(r)
		switch {
		case r == '’' || r == '\'':
			r = '\''
			if len(cur) > 0 && i+1 < len(rs) && isWordRune(rs[i+1]) {
				cur = append(cur, r)
			} else {
				flush()
			}
		case r == '-' || r == '_':
			if len(cur) > 0 && i+1 < len(rs) && isWordRune(rs[i+1]) {
				cur = append(cur, r)
			} else {
				flush()
			}
		case isCJK(r):
			flush()
			out = append(out, token{text: string(r), word: true})
		case isWordRune(r):
			cur = append(cur, r)
		default:
			flush()
			switch r {
			case '?', '？':
				out = append(out, token{text: "?"})
			case '¿':
				out = append(out, token{text: "¿"})
			case '!', '！':
				out = append(out, token{text: "!"})
			case '.', '。':
				out = append(out, token{text: "."})
			case ',', '，':
				out = append(out, token{text: ","})
			case ':', '：':
				out = append(out, token{text: ":"})
			case '\n':
				out = append(out, token{text: "\n"})
			}
		}
	}
	flush()
	return out
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

func isCJK(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// clausesOf numbers the clause of each word of toks: a new clause starts
// after any punctuation token or newline.
func clausesOf(toks []token) []int {
	var out []int
	c := 0
	for _, t := range toks {
		if !t.word {
			c++
			continue
		}
		out = append(out, c)
	}
	return out
}

// wordsOf returns the words of toks and, for each, whether it opens a
// sentence (first word, or first after . ! ? ¿ : or a newline).
func wordsOf(toks []token) (words []string, starts []bool) {
	start := true
	for _, t := range toks {
		if !t.word {
			switch t.text {
			case ".", "!", "?", "¿", ":", "\n":
				start = true
			}
			continue
		}
		words = append(words, t.text)
		starts = append(starts, start)
		start = false
	}
	return words, starts
}

// strongLogPatterns are signatures that only pasted output has: stack
// frames, compiler and linter diagnostics, HTTP failures, runtime messages.
var strongLogPatterns = []*regexp.Regexp{
	regexp.MustCompile(`(?i)traceback \(most recent call last\)`),
	regexp.MustCompile(`(?im)^\s*file ".+", line \d+`),
	regexp.MustCompile(`(?im)^\s*at [\w.$<>\[\] ]+\(?.*:\d+(:\d+)?\)?\s*$`),
	regexp.MustCompile(`(?i)"severity"\s*:\s*\d`),
	regexp.MustCompile(`(?i)\bts\(?\d{4}\)?|error ts\d+|\berror\s+c\d{4}\b|\bc\d{4}:`),
	regexp.MustCompile(`(?i)vuid-|validation error|validation layer`),
	regexp.MustCompile(`(?i)\buncaught\b|is not defined|cannot find module|module not found|failed to compile|npm err!|segmentation fault|cannot read propert|undefined is not|null ?pointer|command not found|no such file|permission denied|exit code [1-9]|non-zero exit|not recognized as`),
	regexp.MustCompile(`(?i)\b(get|post|put|patch|delete)\s+\S+\s+[45]\d\d\b|http/\d(\.\d)?"?\s+[45]\d\d|\b[45]\d\d\s+(internal server error|not found|bad request|unauthorized|forbidden)`),
	regexp.MustCompile(`(?m)^\s*\d+\s+\|\s|^\s*\^+\s*$|^\s*[>|]\s*\d+\s*\|`),
}

// weakLogPatterns also occur in code that handles errors ("except
// ValueError:", "console.warn('warning: ...')").
var weakLogPatterns = []*regexp.Regexp{
	regexp.MustCompile(`(?i)\b\w*(error|exception)\b\s*:`),
	regexp.MustCompile(`(?i)(?:^|\s)warning:|\bdeprecat`),
	regexp.MustCompile(`(?i)\b(syntax|type|reference|value|key|index|attribute|import|modulenotfound|runtime|name|assertion|os|io|permission)error\b`),
	// A log line's fault level, in the capitals loggers write.
	regexp.MustCompile(`\b(ERROR|FATAL|CRITICAL|PANIC|SEVERE|ERR!)\b|\[(E|ERR|ERROR)\]`),
}

// logPatterns are all the signatures of pasted logs, compiler output and
// stack traces.
var logPatterns = append(append([]*regexp.Regexp(nil), strongLogPatterns...), weakLogPatterns...)

// fenceIndex returns the byte offset of the first code fence in t, or -1.
func fenceIndex(t string) int {
	i, j := strings.Index(t, "```"), strings.Index(t, "´´´")
	switch {
	case i < 0:
		return j
	case j < 0:
		return i
	}
	return min(i, j)
}

// shellPromptRE matches a pasted terminal prompt: "(venv) user@host:~/dir$ ".
var shellPromptRE = regexp.MustCompile(`^\s*(\(\S+\)\s*)?[\w.-]+@[\w.-]+:\S*[$#]`)

// slashRE matches an aider command line: "/add file", "/tokens".
var slashRE = regexp.MustCompile(`^/[a-z][a-z-]*(\s|$)`)

var numberedRE = regexp.MustCompile(`(?m)^\s*\d+\.\s`)

// isCodeLine reports whether a line looks like code, data or log output
// rather than prose.
func isCodeLine(l string) bool {
	t := strings.TrimSpace(l)
	if t == "" {
		return false
	}
	if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "´´´") {
		return true
	}
	sym, letters, n := 0, 0, 0
	for _, r := range t {
		n++
		switch {
		case strings.ContainsRune("{}()[];=<>\"\\/|$#@*&`^~", r):
			sym++
		case unicode.IsLetter(r):
			letters++
		}
	}
	if n == 0 {
		return false
	}
	if float64(sym)/float64(n) > 0.12 {
		return true
	}
	if float64(letters)/float64(n) < 0.45 {
		return true
	}
	for _, p := range []string{"import ", "from ", "def ", "const ", "let ", "var ", "return ", "function ", "class ", "#include", "//", "at ", "file \"", "} ", "public ", "private ", "static ", "struct "} {
		if strings.HasPrefix(strings.ToLower(t), p) && strings.ContainsAny(t, "(){};=.:") {
			return true
		}
	}
	return false
}

// bucket returns the name of the interval of n among bounds: "le<b>" for the
// first bound b with n <= b, or "gt<last>".
func bucket(n int, bounds ...int) string {
	for _, b := range bounds {
		if n <= b {
			return "le" + strconv.Itoa(b)
		}
	}
	return "gt" + strconv.Itoa(bounds[len(bounds)-1])
}

// featureOptions scale the feature groups; see Params.
type featureOptions struct {
	Words, Bigrams, Chars, Lead, Cues float64
}

// maxTokens caps the words read from a message: the speech act is in the
// developer's own words, which come first; long pasted logs add nothing after
// their first lines but noise.
const maxTokens = 160

// extract computes the features of a message and the agent's previous reply:
// a map from feature key to value. Keys are "w:" unigram, "b:" bigram, "l:"
// leading words, "c:" character n-gram, "q:" cue. Each n-gram group is
// binary and scaled to unit length times its option; cues keep their values
// times opts.Cues.
// It also returns the cue values unscaled, for the rules.
func extract(msg, prev string, opts featureOptions) (f, cueValues map[string]float64) {
	f = map[string]float64{}
	toks := tokenize(msg)
	words, _ := wordsOf(toks)
	cw := words
	if len(cw) > maxTokens {
		cw = cw[:maxTokens]
	}

	group := func(prefix string, keys []string, scale float64) {
		if scale == 0 || len(keys) == 0 {
			return
		}
		set := map[string]bool{}
		for _, k := range keys {
			set[k] = true
		}
		v := scale / math.Sqrt(float64(len(set)))
		for k := range set {
			f[prefix+k] = v
		}
	}

	// Unigrams and bigrams over words and ? and ! (punctuation carries the
	// act: "works?" is not "works!").
	var seq []string
	for _, t := range toks {
		if len(seq) >= maxTokens {
			break
		}
		if t.word || t.text == "?" || t.text == "!" {
			seq = append(seq, t.text)
		}
	}
	group("w:", seq, opts.Words)
	var bi []string
	for i := 0; i+1 < len(seq); i++ {
		bi = append(bi, seq[i]+" "+seq[i+1])
	}
	group("b:", bi, opts.Bigrams)

	// The first three words, by position, and the last two tokens.
	var lead []string
	for i := 0; i < len(words) && i < 3; i++ {
		lead = append(lead, strconv.Itoa(i)+":"+words[i])
	}
	if len(words) >= 2 {
		lead = append(lead, "01:"+words[0]+" "+words[1])
	}
	if n := len(seq); n > 0 {
		lead = append(lead, "z:"+seq[n-1])
		if n > 1 {
			lead = append(lead, "zz:"+seq[n-2]+" "+seq[n-1])
		}
	}
	group("l:", lead, opts.Lead)

	// Character 3- to 5-grams inside the first words, with word boundaries:
	// they tie together inflections, typos and cognates ("error", "errer",
	// "erreur"; "funciona", "funktioniert").
	var cg []string
	for i, w := range cw {
		if i >= 80 {
			break
		}
		r := []rune("<" + w + ">")
		if len(r) > 24 {
			continue
		}
		for n := 3; n <= 5; n++ {
			for j := 0; j+n <= len(r); j++ {
				cg = append(cg, string(r[j:j+n]))
			}
		}
	}
	group("c:", cg, opts.Chars)

	cueValues = cues(msg, prev, toks, words)
	if opts.Cues != 0 {
		for k, v := range cueValues {
			if v != 0 {
				f["q:"+k] = v * opts.Cues
			}
		}
	}
	return f, cueValues
}

// cues computes the hand-written cue features of a message (toks and words
// are its tokens and words) and of the agent's previous reply. Values are
// 1 for flags, countValue for counts, and a few shares and log-lengths.
// Each family of cues is one method of cueSet, called in this order; a later
// family reads the counts an earlier one left in the set.
func cues(msg, prev string, toks []token, words []string) map[string]float64 {
	c := newCueSet(msg, prev, toks, words)
	c.size()
	c.layout()
	c.lexicon()
	c.openings()
	c.questions()
	c.approvals()
	c.commands()
	c.script()
	c.agentReply()
	c.echo()
	c.fragments()
	return c.q
}

// cueSet is the state shared by the cue families: the message in its forms,
// the cues so far, and the counts that later families combine.
type cueSet struct {
	q map[string]float64

	// The message.
	msg, prev string
	toks      []token
	words     []string
	cw        []string // words, at most maxTokens
	trimmed   string
	lower     string
	lines     []string
	first     string // the first line, trimmed
	nw        int

	// From layout.
	proseText []string
	nlog      int

	// From lexicon: the prose's words, sentence starts and clauses.
	pw                                        []string
	pstarts                                   []bool
	clause                                    []int
	nFault, nWeak, nStill, nPush, nFix, nComp int
	nDone, nModal                             int

	// From openings.
	qStart, rStart, eStart int
	rFirst                 bool

	// From questions.
	nq   int
	endQ bool

	// From approvals.
	appr bool

	// From agentReply: the agent's words.
	aw []string
}

func newCueSet(msg, prev string, toks []token, words []string) *cueSet {
	c := &cueSet{q: map[string]float64{}, msg: msg, prev: prev, toks: toks, words: words}
	c.trimmed = strings.TrimSpace(msg)
	c.lower = strings.ToLower(c.trimmed)
	c.lines = strings.Split(c.trimmed, "\n")
	c.first = strings.TrimSpace(c.lines[0])
	c.nw = len(words)
	c.cw = words
	if len(c.cw) > maxTokens {
		c.cw = c.cw[:maxTokens]
	}
	return c
}

// flag sets the cue name to 1 when on.
func (c *cueSet) flag(name string, on bool) {
	if on {
		c.q[name] = 1
	}
}

// count sets the cue name to countValue(n) when n > 0.
func (c *cueSet) count(name string, n int) {
	if n > 0 {
		c.q[name] = countValue(n)
	}
}

// size: words, lines and length.
func (c *cueSet) size() {
	c.q["nw:"+bucket(c.nw, 0, 1, 3, 7, 15, 40, 100)] = 1
	c.q["nl:"+bucket(len(c.lines), 1, 3, 10)] = 1
	c.q["len"] = math.Log1p(float64(utf8.RuneCountInString(c.trimmed))) / 7
}

// layout: code, logs, prose. It splits the lines into code and prose and
// counts log signatures.
func (c *cueSet) layout() {
	code, prose := 0, 0
	var proseText []string
	inFence := false
	for _, l := range c.lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "´´´") {
			inFence = !inFence
			code++
			continue
		}
		if t == "" || t == "<blank>" {
			continue
		}
		if !inFence {
			// Prose before an inline fence ("still broken, here: ```code").
			if i := fenceIndex(t); i > 0 {
				if pre := strings.TrimSpace(t[:i]); pre != "" && !isCodeLine(pre) {
					prose++
					proseText = append(proseText, pre)
				}
				code++
				if (strings.Count(t, "```")+strings.Count(t, "´´´"))%2 == 1 {
					inFence = true
				}
				continue
			}
		}
		if inFence || isCodeLine(l) {
			code++
		} else {
			prose++
			proseText = append(proseText, t)
		}
	}
	c.proseText = proseText
	if code+prose > 0 {
		c.q["codefrac"] = float64(code) / float64(code+prose)
	}
	c.flag("code_any", code > 0)
	c.flag("prose_none", prose == 0)
	c.flag("fence", strings.Contains(c.msg, "```") || strings.Contains(c.msg, "´´´"))
	c.flag("first_code", isCodeLine(c.first))
	nlog, nstrong := 0, 0
	for _, p := range strongLogPatterns {
		nstrong += len(p.FindAllStringIndex(c.msg, 8))
	}
	nlog = nstrong
	for _, p := range weakLogPatterns {
		nlog += len(p.FindAllStringIndex(c.msg, 8))
	}
	c.nlog = nlog
	if nlog > 0 {
		c.q["log"] = 1
		c.q["log_n"] = math.Log1p(float64(nlog))
	}
	firstLog := false
	for _, p := range logPatterns {
		if p.MatchString(c.first) {
			firstLog = true
			break
		}
	}
	c.flag("log_first", firstLog)
	c.flag("log_noprose", nlog > 0 && prose <= 1)
	c.flag("strong_log_noprose", nstrong > 0 && prose <= 1)
	c.flag("json", strings.HasPrefix(c.trimmed, "[{") || strings.HasPrefix(c.trimmed, "{\n") || strings.Contains(c.msg, "\"severity\""))
}

// lexicon: lexicon cues over the first words of the prose. A fault word
// inside pasted code ("throw new Error") is not the developer saying
// something is wrong; the log signatures of layout cover pasted output.
func (c *cueSet) lexicon() {
	ptoks := tokenize(strings.Join(c.proseText, "\n"))
	pw, pstarts := wordsOf(ptoks)
	clause := clausesOf(ptoks)
	if len(pw) > maxTokens {
		pw, pstarts, clause = pw[:maxTokens], pstarts[:maxTokens], clause[:maxTokens]
	}
	c.pw, c.pstarts, c.clause = pw, pstarts, clause
	var codeText []string
	for _, l := range c.lines {
		if isCodeLine(l) {
			codeText = append(codeText, l)
		}
	}
	codeWords, _ := wordsOf(tokenize(strings.Join(codeText, "\n")))
	lead := pw
	if len(lead) > 12 {
		lead = lead[:12]
	}
	cnt := func(name string, lx *lexicon, ws []string) int {
		n := lx.count(ws)
		c.count(name, n)
		return n
	}
	nFault, nTopic := lexFault.countFaults(pw, clause)
	c.count("fault", nFault)
	c.count("fault_topic", nTopic)
	n, _ := lexFault.countFaults(lead, clause)
	c.count("fault_lead", n)
	n, _ = lexFault.countFaults(codeWords, nil)
	c.count("fault_code", n)
	cnt("neg_lead", lexNeg, lead)
	c.count("negstate", negatedStates(pw, clause))
	c.count("success", lexSuccess.countUnnegated(pw))
	c.flag("no_open", len(pw) > 0 && lexNoOpen.matchAt(pw, 0) > 0)
	nWeak, _ := lexWeak.countFaults(pw, clause)
	c.count("weak", nWeak)
	nStill := cnt("still", lexStill, pw)
	nPush := cnt("pushback", lexPushback, pw)
	nFix := cnt("fix", lexFix, pw)
	cnt("fix_lead", lexFix, lead)
	nComp := cnt("complaint", lexComplaint, pw)
	cnt("why_you", lexWhyYou, pw)
	nShould := cnt("should_be", lexShouldBe, pw)
	c.flag("correction", nShould > 0 && lexContrast.count(pw) > 0)
	nExp := cnt("experience", lexExperience, pw)
	cnt("explain", lexExplain, pw)
	nDone := cnt("done", lexDone, c.cw)
	cnt("agent_voice", lexAgentVoice, lead)
	nModal := cnt("modal", lexModal, pw)
	nlog := c.nlog
	c.flag("exp_fault", nExp > 0 && (nFault > 0 || nlog > 0 || nWeak > 0))
	c.flag("weak_fix", nWeak > 0 && nFix > 0)
	c.flag("still_any", nStill > 0 && (nFault > 0 || nWeak > 0 || nComp > 0 || nlog > 0))
	c.flag("fault_still", nFault > 0 && nStill > 0)
	c.flag("weak_still", nWeak > 0 && nStill > 0)
	c.flag("fault_or_log", nFault > 0 || nlog > 0)
	c.nFault, c.nWeak, c.nStill, c.nPush, c.nFix, c.nComp = nFault, nWeak, nStill, nPush, nFix, nComp
	c.nDone, c.nModal = nDone, nModal
}

// openings: sentence openings. Requests for information ("explain", "tell
// me"), requests for action, question words. Politeness ("please", "can
// you") is skipped first, so "please explain X" opens an information
// request and "can you add X" an action request.
func (c *cueSet) openings() {
	pw, pstarts := c.pw, c.pstarts
	qStart, rStart, eStart, rFirst, qFirst, eFirst := 0, 0, 0, false, false, false
	for i := range pw {
		if !pstarts[i] {
			continue
		}
		j := i
		for k := lexSkip.matchAt(pw, j); k > 0 && j+k < len(pw); k = lexSkip.matchAt(pw, j) {
			j += k
		}
		switch {
		case lexExplain.matchAt(pw, j) > 0:
			eStart++
			eFirst = eFirst || i == 0
		case lexRequest.matchAt(pw, j) > 0:
			rStart++
			rFirst = rFirst || i == 0
		case lexQWord.matchAt(pw, j) > 0:
			qStart++
			qFirst = qFirst || i == 0
		}
	}
	// Verb-final languages (Turkish, Japanese) put the imperative last:
	// "bir buton ekle". A sentence whose last word is a request verb counts
	// as a request, in a separate cue.
	rEnd, whyFault := 0, 0
	for i := range pw {
		last := i+1 == len(pw) || pstarts[i+1]
		if last && !pstarts[i] && lexRequestEnd.matchAt(pw, i) > 0 {
			rEnd++
		}
		// "why does it fail?": a why-question about a reported fault asserts
		// the fault.
		if pstarts[i] && lexWhy.matchAt(pw, i) > 0 {
			for k := i + 1; k < len(pw) && !pstarts[k]; k++ {
				if n, _ := lexFault.countFaults(pw[k:k+1], nil); n > 0 || lexStill.matchAt(pw, k) > 0 {
					whyFault++
					break
				}
			}
		}
	}
	c.count("request_end", rEnd)
	c.count("why_fault", whyFault)
	c.count("qword_start", qStart)
	c.count("request_start", rStart)
	c.count("explain_start", eStart)
	c.flag("qword_first", qFirst)
	c.flag("request_first", rFirst)
	c.flag("explain_first", eFirst)
	c.flag("noise", len(c.cw) > 0 && lexNoise.covers(c.cw))

	c.flag("qparticle", lexQParticle.count(c.cw) > 0 || strings.Contains(c.msg, "¿"))
	c.qStart, c.rStart, c.eStart, c.rFirst = qStart, rStart, eStart, rFirst
}

// questions: question marks (anywhere, at the end of the prose, count),
// faults in conjunction with acts, exclamations and aider's help header.
func (c *cueSet) questions() {
	nq := 0
	for _, t := range c.toks {
		if t.text == "?" {
			nq++
		}
	}
	if nq > 0 {
		c.q["qmark"] = 1
		c.q["qmark_n"] = math.Log1p(float64(nq))
	}
	endQ := false
	if len(c.proseText) > 0 {
		last := c.proseText[len(c.proseText)-1]
		endQ = strings.HasSuffix(last, "?") || strings.HasSuffix(last, "？")
	}
	c.nq, c.endQ = nq, endQ
	c.flag("qmark_end", endQ || strings.HasSuffix(c.trimmed, "?"))
	c.flag("qmark_fault", nq > 0 && (c.nFault > 0 || c.nStill > 0))
	c.flag("qmark_request", nq > 0 && c.rFirst)

	// Fault first as conjunctions: a fault cue together with a request or a
	// question, so the classifier can learn that the fault wins.
	faultish := map[string]bool{
		"fault": c.nFault > 0, "weak": c.nWeak > 0, "still": c.nStill > 0, "complaint": c.nComp > 0,
		"pushback": c.nPush > 0, "log": c.nlog > 0, "fix": c.nFix > 0,
	}
	acts := map[string]bool{
		"request": c.rStart > 0 || c.nModal > 0, "question": c.qStart > 0 || endQ,
		"explain": c.eStart > 0,
	}
	for _, f := range []string{"fault", "weak", "still", "complaint", "pushback", "log", "fix"} {
		for _, a := range []string{"request", "question", "explain"} {
			c.flag(f+"&"+a, faultish[f] && acts[a])
		}
	}
	nex := strings.Count(c.msg, "!")
	c.flag("exclaim", nex > 0)
	c.flag("exclaim_multi", strings.Contains(c.msg, "!!") || strings.Contains(c.msg, "?!") || strings.Contains(c.msg, "??"))

	// aider's /help command sends "# Question: ..." with its documentation.
	c.flag("q_header", strings.HasPrefix(c.lower, "# question:"))
}

// approvals: approving, proceeding, done.
func (c *cueSet) approvals() {
	cw, nw := c.cw, c.nw
	appr := lexApprove.covers(cw)
	c.appr = appr
	c.flag("approve_all", appr)
	c.flag("approve_first", len(cw) > 0 && lexApproveOpen.matchAt(cw, 0) > 0)
	c.flag("proceed", lexProceed.count(cw) > 0)
	c.flag("proceed_short", nw <= 6 && lexProceed.count(cw) > 0)
	c.flag("done_short", nw <= 12 && c.nDone > 0)
	c.flag("approve_then", len(cw) > 0 && lexApproveOpen.matchAt(cw, 0) > 0 && !appr && nw <= 12)
}

// commands: blanks, bare commands, shell lines, paths, single words.
func (c *cueSet) commands() {
	lines := c.lines
	c.flag("blank", strings.Contains(c.lower, "<blank>"))
	c.flag("empty", c.nw == 0)
	slash := 0
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if slashRE.MatchString(t) {
			slash++
		}
	}
	c.flag("slash", slash > 0)
	// Only blank submissions and aider commands ("<blank>\n/add x.md").
	cmdOnly := true
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t != "" && t != "<blank>" && !slashRE.MatchString(t) {
			cmdOnly = false
		}
	}
	c.flag("commands_only", cmdOnly && c.trimmed != "")
	fw := strings.Fields(c.first)
	if len(fw) > 0 {
		w0 := strings.ToLower(fw[0])
		c.flag("shell_first", shellWords[w0] && len(lines) <= 3)
		c.flag("shell_prompt", shellPromptRE.MatchString(c.first))
		c.flag("shell_only", shellOnly(lines, w0) && c.nlog == 0 && c.nFault == 0)
		c.flag("bare_path", len(fw) == 1 && len(lines) == 1 && strings.ContainsAny(w0, "/\\.") && !strings.HasSuffix(w0, "."))
	}
	c.flag("one_word", c.nw == 1 && !c.appr)
}

// shellOnly reports whether lines, whose first word is w0, are a shell
// command typed into the chat: every line is a command, an option or a
// continuation.
func shellOnly(lines []string, w0 string) bool {
	cmd := shellWords[w0]
	for _, l := range lines {
		t := strings.TrimSpace(l)
		f := strings.Fields(t)
		if t == "" {
			continue
		}
		if !(shellWords[strings.ToLower(f[0])] || strings.HasPrefix(t, "-") || strings.HasSuffix(t, "\\") || strings.HasSuffix(t, "&&")) {
			cmd = false
		}
	}
	return cmd
}

// script: Czech, Spanish... the share of letters outside ASCII marks
// non-English text, which shifts how much the English n-grams can be
// trusted.
func (c *cueSet) script() {
	na, nn := 0, 0
	for _, r := range c.msg {
		if unicode.IsLetter(r) {
			if r < 128 {
				na++
			} else {
				nn++
			}
		}
	}
	if na+nn > 0 && float64(nn)/float64(na+nn) > 0.02 {
		c.q["nonascii"] = 1
	}
}

// agentReply: the agent's previous reply, alone and with a short message.
func (c *cueSet) agentReply() {
	pt := tokenize(c.prev)
	aw, _ := wordsOf(pt)
	c.aw = aw
	tail := aw
	if len(tail) > 60 {
		tail = tail[len(tail)-60:]
	}
	pTrim := strings.TrimSpace(c.prev)
	agQ := strings.HasSuffix(pTrim, "?") || strings.Contains(lastN(pTrim, 160), "?")
	c.flag("ag_question", agQ)
	c.flag("ag_offer", lexOffer.count(tail) > 0)
	c.flag("ag_fixed", lexClaimFixed.count(tail) > 0)
	c.flag("ag_wait", lexWaitUser.count(tail) > 0)
	c.flag("ag_code_end", strings.HasSuffix(pTrim, "```"))
	c.flag("ag_empty", pTrim == "")
	short := c.nw <= 4
	c.flag("short_ag_offer", short && (agQ || lexOffer.count(tail) > 0))
	c.flag("short_ag_wait", short && lexWaitUser.count(tail) > 0)
	c.flag("ag_fixed_fault", lexClaimFixed.count(tail) > 0 && (c.nFault > 0 || c.nStill > 0 || c.nlog > 0))
}

// echo: the message repeats the agent's words.
func (c *cueSet) echo() {
	aw, cw := c.aw, c.cw
	if len(c.words) < 6 || len(aw) < 6 {
		return
	}
	pg := map[string]bool{}
	for i := 0; i+3 <= len(aw); i++ {
		pg[strings.Join(aw[i:i+3], " ")] = true
	}
	hit, all := 0, 0
	for i := 0; i+3 <= len(cw); i++ {
		all++
		if pg[strings.Join(cw[i:i+3], " ")] {
			hit++
		}
	}
	if all > 0 && float64(hit)/float64(all) > 0.25 {
		c.q["echo"] = 1
	}
}

// fragments: a message made only of pasted lines (code, a comment, a shell
// prompt, a log line) that shows no fault is no move; pasted agent prose (an
// assistant's voice, or an echo of the agent's reply, at length) is not the
// developer's move either. Markdown structure is typical of an assistant's
// answer.
func (c *cueSet) fragments() {
	fk := fragmentKind(c.msg)
	c.flag("fragment", fk != fragNone && fk != fragFrame && c.nlog == 0 && c.nFault == 0 && c.nStill == 0)
	if fk != fragNone {
		c.q["frag_"+fk] = 1
	}
	c.flag("agent_prose", c.nw >= agentProseMin && (lexAgentVoice.matchAt(c.cw, 0) > 0 || c.q["echo"] > 0))
	c.flag("permit", permitRE.MatchString(c.lower) && c.nFault == 0 && c.nq == 0)
	c.flag("markdown", strings.Count(c.msg, "**") >= 2 || strings.Contains(c.msg, "\n### ") || strings.HasPrefix(c.trimmed, "#"))
	c.flag("numbered", numberedRE.MatchString(c.msg))
}

var negWords = map[string]bool{
	"not": true, "isn't": true, "isnt": true, "aren't": true, "arent": true, "wasn't": true,
	"wasnt": true, "weren't": true, "werent": true, "doesn't": true, "doesnt": true,
	"don't": true, "dont": true, "didn't": true, "didnt": true, "won't": true, "wont": true,
	"can't": true, "cant": true, "cannot": true, "never": true, "nothing": true,
}

var stateVerbs = map[string]bool{
	"work": true, "works": true, "show": true, "shows": true, "load": true, "loads": true,
	"save": true, "saves": true, "appear": true, "appears": true, "render": true, "update": true,
	"change": true, "exist": true, "exists": true, "respond": true, "display": true,
	"happen": true, "happens": true, "compile": true, "run": true, "runs": true, "start": true,
	"open": true, "opens": true, "close": true, "connect": true, "fire": true, "trigger": true,
	"get": true, "pass": true, "find": true, "see": true, "match": true, "build": true,
}

// negatedStates counts English clauses that describe a state as not
// happening ("the fields are not getting updated", "it doesn't load",
// "nothing happens"): a negation followed within two words by a progressive
// or past form or a common state verb. A clause that opens with an
// imperative negation ("do not change X") or a spec marker ("it should not
// crash") is a constraint, not a report, and is skipped.
func negatedStates(words []string, clause []int) int {
	n := 0
	for i, w := range words {
		if !negWords[w] {
			continue
		}
		// The clause's first word.
		j := i
		for j > 0 && clause[j-1] == clause[i] {
			j--
		}
		if j == i || (j+1 == i && (words[j] == "do" || words[j] == "please")) {
			continue // imperative: "don't ...", "do not ..."
		}
		spec := false
		for k := j; k < i; k++ {
			if specMarkers[words[k]] || words[k] == "make" || words[k] == "ensure" {
				spec = true
			}
		}
		if spec {
			continue
		}
		for k := i + 1; k <= i+2 && k < len(words) && clause[k] == clause[i]; k++ {
			v := words[k]
			if stateVerbs[v] || (len(v) > 4 && (strings.HasSuffix(v, "ing") || strings.HasSuffix(v, "ed"))) {
				n++
				break
			}
		}
	}
	return n
}

// countValue is the value of a count cue: 1 for one match, growing
// logarithmically, so a cue's weight reads as logits per match.
func countValue(n int) float64 { return 1 + math.Log(float64(n)) }

// lastN returns the last n bytes of s (possibly splitting a rune, which only
// the search for '?' sees).
func lastN(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

// sortedKeys returns the keys of m in order.
func sortedKeys(m map[string]float64) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
