package sim

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/ub-bench/ub/sim/runner"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"text/template"
	"unicode"
)

// ProfileMessage is one message a developer wrote in a profile session (never
// a held-out one): a developer turn that is not a command.
type ProfileMessage struct {
	SessionID string
	TurnIdx   int
	Text      string
	Move      string // the message's move from a judge (approve, critical, ...); "" when unlabelled
}

// ProfileOptions configures ComputeProfile. The zero value is valid.
type ProfileOptions struct {
	Seed     int64 // seed of the example choice
	Examples int   // example messages kept; 0 means 5
	Openings int   // most frequent first words and bigrams kept; 0 means 5
}

// Opening is a frequent first word (or first two words) of a developer's
// messages.
type Opening struct {
	Text  string  `json:"text"`
	Count int     `json:"count"`
	Share float64 `json:"share"` // Count / messages
}

// ProfileStats is the local statistical profile of one developer, computed
// only from their profile-session messages. Its JSON is what profiles.stats
// stores.
type ProfileStats struct {
	Developer     string             `json:"developer"`
	Sessions      int                `json:"sessions"` // profile sessions with at least one message
	Messages      int                `json:"messages"`
	MedianWords   float64            `json:"median_words"`
	P90Words      float64            `json:"p90_words"`
	CodeShare     float64            `json:"code_share"`     // share of messages with code or paths (hasCode)
	QuestionShare float64            `json:"question_share"` // share of messages asking a question (isQuestion)
	FirstWords    []Opening          `json:"first_words"`    // count >= 2, most frequent first, ties by text
	FirstBigrams  []Opening          `json:"first_bigrams"`  // the first two words, likewise
	Examples      []string           `json:"examples"`       // seeded choice of short messages
	Labelled      int                `json:"labelled"`       // messages with a move label (unparseable ones not counted)
	MoveMix       map[string]float64 `json:"move_mix,omitempty"`
	Seed          int64              `json:"seed"`
}

// Example messages are short: at most exampleWords words and exampleRunes
// characters. When a developer has too few, longer messages fill in, cut to
// exampleWords words.
const (
	exampleWords = 30
	exampleRunes = 240
)

// ComputeProfile builds the statistical profile of developer from msgs, the
// developer's profile-session messages (any order; the result does not
// depend on it).
//
// Words are whitespace-separated fields, except that each CJK character
// (Han, Hiragana, Katakana) counts as a word, since those scripts do not
// separate words. The median and the 90th percentile of words per message
// use linear interpolation between closest ranks (Hyndman and Fan 1996,
// definition 7, R's and NumPy's default): for sorted x of length n and p,
// h = (n-1)p, q = x[floor h] + (h - floor h)(x[floor h + 1] - x[floor h]).
// MoveMix holds each move's share of the labelled messages; it is empty when
// no message carries a move.
func ComputeProfile(developer string, msgs []ProfileMessage, opts ProfileOptions) ProfileStats {
	if opts.Examples == 0 {
		opts.Examples = 5
	}
	if opts.Openings == 0 {
		opts.Openings = 5
	}
	s := ProfileStats{Developer: developer, Messages: len(msgs), Seed: opts.Seed,
		FirstWords: []Opening{}, FirstBigrams: []Opening{}, Examples: []string{}}
	if len(msgs) == 0 {
		return s
	}
	sessions := map[string]bool{}
	words := make([]float64, 0, len(msgs))
	first, bigram := map[string]int{}, map[string]int{}
	moves := map[string]int{}
	var code, question int
	for _, m := range msgs {
		sessions[m.SessionID] = true
		words = append(words, float64(WordCount(m.Text)))
		if hasCode(m.Text) {
			code++
		}
		if isQuestion(m.Text) {
			question++
		}
		ws := openingWords(m.Text, 2)
		if len(ws) >= 1 {
			first[ws[0]]++
		}
		if len(ws) == 2 {
			bigram[ws[0]+" "+ws[1]]++
		}
		if m.Move != "" && m.Move != "unparseable" {
			moves[m.Move]++
			s.Labelled++
		}
	}
	n := float64(len(msgs))
	s.Sessions = len(sessions)
	sort.Float64s(words)
	s.MedianWords = quantile(words, 0.5)
	s.P90Words = quantile(words, 0.9)
	s.CodeShare = float64(code) / n
	s.QuestionShare = float64(question) / n
	s.FirstWords = topOpenings(first, opts.Openings, n)
	s.FirstBigrams = topOpenings(bigram, opts.Openings, n)
	if s.Labelled > 0 {
		s.MoveMix = map[string]float64{}
		for m, c := range moves {
			s.MoveMix[m] = float64(c) / float64(s.Labelled)
		}
	}
	s.Examples = SampleMessages(msgs, opts.Examples, opts.Seed, true)
	return s
}

// quantile is definition 7 of Hyndman and Fan (1996) on sorted x.
func quantile(x []float64, p float64) float64 {
	if len(x) == 0 {
		return 0
	}
	h := float64(len(x)-1) * p
	lo := int(math.Floor(h))
	if lo+1 >= len(x) {
		return x[lo]
	}
	return x[lo] + (h-float64(lo))*(x[lo+1]-x[lo])
}

func topOpenings(counts map[string]int, k int, n float64) []Opening {
	out := []Opening{}
	for t, c := range counts {
		if c >= 2 {
			out = append(out, Opening{Text: t, Count: c, Share: float64(c) / n})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Text < out[j].Text
	})
	if len(out) > k {
		out = out[:k]
	}
	return out
}

func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana)
}

// WordCount counts the words of a message: whitespace-separated fields, with
// every CJK character (Han, Hiragana, Katakana) a word of its own and the
// rest of a field that holds them one more word when it has letters or
// digits.
func WordCount(s string) int {
	n := 0
	for _, f := range strings.Fields(s) {
		cjk, other := 0, false
		for _, r := range f {
			switch {
			case isCJK(r):
				cjk++
			case unicode.IsLetter(r) || unicode.IsDigit(r):
				other = true
			}
		}
		switch {
		case cjk == 0:
			n++
		case other:
			n += cjk + 1
		default:
			n += cjk
		}
	}
	return n
}

// openingWords returns the first k words of s, lowercased and stripped of
// surrounding punctuation; fields that are only punctuation are skipped.
func openingWords(s string, k int) []string {
	var out []string
	for _, f := range strings.Fields(s) {
		w := strings.TrimFunc(strings.ToLower(f), func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSymbol(r) })
		if w == "" {
			continue
		}
		out = append(out, w)
		if len(out) == k {
			break
		}
	}
	return out
}

var (
	codeRE = regexp.MustCompile("`|[{}]|::|->|=>|==|!=|&&|\\|\\||" +
		`\b[A-Za-z_][A-Za-z0-9_]*\(|` + // a call: foo(
		`\b[a-z0-9]+_[a-z0-9_]+\b|` + // snake_case
		`\b[a-z]+[A-Z][A-Za-z0-9]*\b|` + // camelCase
		`(^|\s)--[a-z]`) // a --flag
	fileRE = regexp.MustCompile(`(?i)^\.?[\w-]+(\.[\w-]+)*\.(go|py|js|mjs|cjs|ts|tsx|jsx|rs|rb|java|kt|kts|c|h|cc|cpp|hpp|cs|swift|m|mm|php|sh|bash|zsh|ps1|sql|json|jsonl|yaml|yml|toml|md|txt|html|htm|css|scss|less|xml|ini|cfg|conf|lock|mod|sum|env|vue|svelte|lua|pl|r|dart|ex|exs|erl|hs|ml|scala|gradle|proto|tf|ipynb|csv|log|dockerfile|makefile)$`)
	// notPath are slash pairs of prose.
	notPath = map[string]bool{"and/or": true, "or/and": true, "w/o": true, "he/she": true, "s/he": true,
		"his/her": true, "yes/no": true, "on/off": true, "n/a": true, "i/o": true, "24/7": true}
	questionRE = regexp.MustCompile(`[?？؟]($|[\s"'”’)\]}*_])`)
)

// hasCode reports whether a message mentions code, commands or file paths: a
// backtick, a brace, ::, ->, =>, ==, !=, &&, ||, a call foo(, a snake_case or
// camelCase identifier, a --flag, a file name with a known extension, or a
// path (a token with a slash inside it, except prose like and/or).
func hasCode(s string) bool {
	if codeRE.MatchString(s) {
		return true
	}
	for _, f := range strings.Fields(s) {
		t := strings.TrimFunc(f, func(r rune) bool { return strings.ContainsRune(`.,;:!?"'()[]<>`, r) })
		if fileRE.MatchString(t) {
			return true
		}
		if i := strings.IndexByte(t, '/'); i >= 0 && len(t) > 1 && !notPath[strings.ToLower(t)] {
			return true
		}
	}
	return false
}

// isQuestion reports whether a message asks a question: a question mark
// (ASCII, full-width or Arabic) at the end of the text or before a space or
// closing punctuation, so that URLs with a query string do not count.
func isQuestion(s string) bool { return questionRE.MatchString(s) }

// SampleMessages returns up to n distinct message texts of msgs, chosen by
// the seed: messages are ranked by sha256(seed, session, turn), which does
// not depend on their order. With short, messages of at most 30 words and
// 240 characters come first and longer ones fill in, cut to 30 words.
func SampleMessages(msgs []ProfileMessage, n int, seed int64, short bool) []string {
	type cand struct {
		rank uint64
		m    ProfileMessage
	}
	cands := make([]cand, len(msgs))
	for i, m := range msgs {
		h := sha256.Sum256([]byte(strconv.FormatInt(seed, 10) + "\x00" + m.SessionID + "\x00" + strconv.Itoa(m.TurnIdx)))
		cands[i] = cand{binary.BigEndian.Uint64(h[:8]), m}
	}
	sort.Slice(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		if a.rank != b.rank {
			return a.rank < b.rank
		}
		if a.m.SessionID != b.m.SessionID {
			return a.m.SessionID < b.m.SessionID
		}
		return a.m.TurnIdx < b.m.TurnIdx
	})
	out := []string{}
	seen := map[string]bool{}
	take := func(text string) {
		key := strings.ToLower(strings.Join(strings.Fields(text), " "))
		if key == "" || seen[key] || len(out) >= n {
			return
		}
		seen[key] = true
		out = append(out, text)
	}
	isShort := func(t string) bool {
		return WordCount(t) <= exampleWords && len([]rune(t)) <= exampleRunes
	}
	for pass := 0; pass < 2 && len(out) < n; pass++ {
		for _, c := range cands {
			t := strings.TrimSpace(c.m.Text)
			switch {
			case !short:
				take(t)
			case pass == 0 && isShort(t):
				take(t)
			case pass == 1 && !isShort(t):
				take(firstWords(t, exampleWords))
			}
		}
		if !short {
			break
		}
	}
	return out
}

// firstWords cuts s to its first k whitespace-separated fields (and at most
// exampleRunes characters), marking the cut with " …".
func firstWords(s string, k int) string {
	f := strings.Fields(s)
	cutWords := len(f) > k
	if cutWords {
		f = f[:k]
	}
	out := strings.Join(f, " ")
	if r := []rune(out); len(r) > exampleRunes {
		out, cutWords = string(r[:exampleRunes]), true
	}
	if cutWords {
		out += " …"
	}
	return out
}

// templateFuncs are the functions the persona and distillation templates use.
var templateFuncs = template.FuncMap{
	"num": func(x float64) string { return strconv.FormatFloat(math.Round(x*10)/10, 'f', -1, 64) },
	"pct": func(x float64) string { return fmt.Sprintf("%.0f%%", x*100) },
	"quote": func(s string) string {
		return `"` + strings.Join(strings.Fields(s), " ") + `"`
	},
	"openings": func(os []Opening) string {
		parts := make([]string, len(os))
		for i, o := range os {
			parts[i] = fmt.Sprintf("%q (%.0f%%)", o.Text, o.Share*100)
		}
		return strings.Join(parts, ", ")
	},
	"moves": func(mix map[string]float64) string {
		type mv struct {
			name  string
			share float64
		}
		var ms []mv
		for k, v := range mix {
			ms = append(ms, mv{k, v})
		}
		sort.Slice(ms, func(i, j int) bool {
			if ms[i].share != ms[j].share {
				return ms[i].share > ms[j].share
			}
			return ms[i].name < ms[j].name
		})
		parts := make([]string, len(ms))
		for i, m := range ms {
			parts[i] = fmt.Sprintf("%s %.0f%%", m.name, m.share*100)
		}
		return strings.Join(parts, ", ")
	},
}

// PersonaTemplate returns the versioned persona template (persona.txt), the
// layout RenderPersona uses.
func PersonaTemplate() TemplateRecord {
	r, err := record(DefaultTemplates(), "persona", "# ub persona from profile stats", "persona.txt")
	if err != nil {
		panic(err) // embedded, checked by the tests
	}
	return r
}

// RenderPersona renders stats to the persona text a profile prompt carries
// (templates/persona.txt). Deterministic.
func RenderPersona(stats ProfileStats) string {
	s, err := DefaultTemplates().exec("persona.txt", stats)
	if err != nil {
		panic("sim: persona template: " + err.Error()) // embedded, checked by the tests
	}
	return strings.TrimSpace(s)
}

// DistillTemplate returns the versioned distillation prompt (distill.txt, and
// persona.txt, which renders its profile summary). Its Version is what
// profiles.prompt_version records for a model-written persona.
func DistillTemplate() TemplateRecord {
	r, err := record(DefaultTemplates(), "distill", "# ub persona distillation", "distill.txt", "persona.txt")
	if err != nil {
		panic(err)
	}
	return r
}

// DistillRequest builds the request that asks a model to write a persona of
// the developer from their statistical profile and example messages (each
// cut to 500 characters; the caller chooses them, e.g. SampleMessages(msgs,
// 40, seed, false)). Only Messages is set: the caller fills in Backend,
// Model, BaseURL and Params from its simulator config and sends it through
// the runner. The prompt is versioned by DistillTemplate().Version.
func DistillRequest(stats ProfileStats, examples []string) runner.Request {
	summary := stats
	summary.Examples = nil
	cut500 := make([]string, len(examples))
	for i, e := range examples {
		cut500[i] = cut(strings.TrimSpace(e), 500)
	}
	text, err := DefaultTemplates().exec("distill.txt", struct {
		Profile  string
		Examples []string
	}{RenderPersona(summary), cut500})
	if err != nil {
		panic("sim: distill template: " + err.Error())
	}
	return runner.Request{Messages: []runner.Message{{Role: "user", Content: strings.TrimSpace(text)}}}
}

// ModelPersona returns the persona text of a distillation response, to be
// stored as the developer's kind = 'model' profile (queries.StoreProfiles
// with Model, PromptVersion = DistillTemplate().Version and the request's
// Key). A failed or empty response is an error.
func ModelPersona(resp runner.Response) (string, error) {
	if resp.Err != "" {
		return "", fmt.Errorf("distillation failed: %s", resp.Err)
	}
	t := strings.TrimSpace(resp.Text)
	if t == "" {
		return "", errors.New("distillation returned an empty persona")
	}
	return t, nil
}
