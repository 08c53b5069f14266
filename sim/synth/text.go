package synth

import (
	"math/rand/v2"
	"strings"
)

// Word lists the message templates draw from. Every template's words are
// separated by single spaces, so a message's length in words is exact.
var (
	files    = []string{"parser.go", "cache/lru.go", "cmd/serve.go", "config.yaml", "api/handler.go", "store/sql.go", "retry.go", "README.md", "Makefile", "auth/token.go"}
	funcs    = []string{"Load", "fetchUser", "parseArgs", "Flush", "newServer", "retryLoop", "validate", "encodeRow", "Close", "handleLogin"}
	features = []string{"empty input", "the retry path", "concurrent writes", "the migration", "token refresh", "pagination", "the cache eviction", "error wrapping", "the CLI flags", "logging"}

	approvePhrases = []string{
		"looks good, go ahead",
		"ok ship it",
		"yes do that",
		"perfect, commit it",
		"lgtm, merge it",
		"fine, continue",
		"great, keep going",
	}
	criticalPhrases = []string{
		"that's wrong, {feature} still fails",
		"no, this breaks {feature}",
		"you broke the build in {file}",
		"that's not what I asked, revert {file}",
		"the test for {func} still fails",
		"this crashes on {feature}",
		"wrong approach, {func} must not block",
	}
	directivePhrases = []string{
		"now add a retry to {func}",
		"add tests for {feature}",
		"move the config parsing into {file}",
		"rename {func} and update the callers",
		"handle {feature} in {func}",
		"next, clean up {file}",
		"split {func} into two functions",
	}
	inquiryPhrases = []string{
		"why did you change {file}?",
		"what does {func} return on error?",
		"is {feature} covered by a test?",
		"which version of {file} is this?",
		"does {func} handle {feature}?",
		"how long does {func} take now?",
	}
	openingPhrases = []string{
		"help me fix {feature} in {file}",
		"let's add {feature} to {func}",
		"refactor {file} so {func} is testable",
		"we need {feature} in {file}",
	}
	agentPhrases = []string{
		"I updated {file} so {func} handles {feature}; all tests pass.",
		"Done: {func} now covers {feature}. I also touched {file}.",
		"I ran the tests; {func} fails on {feature}. Should I dig into {file}?",
		"Here is the plan: change {func} in {file}, then add a test for {feature}.",
		"I refactored {func} and moved the helpers into {file}.",
		"The build is green again after the change to {file}.",
	}
	// fillers pad a message to its planted length: neutral context that
	// neither asks, nor directs, nor finds fault, so the padding does not
	// change the message's move for a judge that reads it.
	fillers = []string{
		"for context, {func} lives in {file}",
		"{feature} came up last week too",
		"{func} is called from {file}",
		"I was reading {file} earlier today",
		"this part of the code is old",
		"we had a similar case with {feature}",
		"the same pattern is used in {file}",
	}
)

func phrases(move string) []string {
	switch move {
	case moveApprove:
		return approvePhrases
	case moveCritical:
		return criticalPhrases
	case moveInquiry:
		return inquiryPhrases
	}
	return directivePhrases
}

// fill replaces the placeholders of tmpl with words drawn from rng.
func fill(rng *rand.Rand, tmpl string) string {
	for _, p := range []struct {
		key  string
		list []string
	}{{"{file}", files}, {"{func}", funcs}, {"{feature}", features}} {
		for strings.Contains(tmpl, p.key) {
			tmpl = strings.Replace(tmpl, p.key, p.list[rng.IntN(len(p.list))], 1)
		}
	}
	return tmpl
}

// message writes a message making move, padded with filler clauses to at
// least words words.
func message(rng *rand.Rand, move string, words int) string {
	ps := phrases(move)
	var b strings.Builder
	b.WriteString(fill(rng, ps[rng.IntN(len(ps))]))
	n := strings.Count(b.String(), " ") + 1
	for n < words {
		f := fill(rng, fillers[rng.IntN(len(fillers))])
		fw := strings.Fields(f)
		if need := words - n; len(fw) > need {
			fw = fw[:need]
		}
		b.WriteString(" ")
		b.WriteString(strings.Join(fw, " "))
		n += len(fw)
	}
	return b.String()
}

func opening(rng *rand.Rand) string { return fill(rng, openingPhrases[rng.IntN(len(openingPhrases))]) }

func agentTurn(rng *rand.Rand) string { return fill(rng, agentPhrases[rng.IntN(len(agentPhrases))]) }

// label7 maps a 4-way move to one of its 7-way labels (SPEC section 4).
func label7(rng *rand.Rand, move string) string {
	switch move {
	case moveApprove:
		return "approve_proceed"
	case moveCritical:
		if rng.IntN(2) == 0 {
			return "pushback"
		}
		return "bug_report"
	case moveInquiry:
		return "question"
	}
	if rng.IntN(2) == 0 {
		return "new_work"
	}
	return "refine_redirect"
}
