package sim

import (
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// TokenizerVersion names the tokenizer and weighting of the TF-IDF index; it
// is part of every retrieve request key, so a change here re-runs retrieve.
const TokenizerVersion = "tfidf-v1"

// stopwords are frequent English function words, dropped by Tokenize. IDF
// would weigh them down anyway; dropping them keeps short agent turns from
// matching on "the" alone.
var stopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an and are as at be been but by can could did do does for from had has
		have he her his i if in into is it its i'm i've i'll me my no not of on or our she so than that the their them
		then there these they this those to too us was we were what when where which who will with would you your`) {
		stopwords[w] = true
	}
}

// noSpaceScript reports runes of scripts written without spaces between
// words; Tokenize turns their runs into character bigrams.
func noSpaceScript(r rune) bool {
	if r < 0x0E00 { // below Thai: Latin, Greek, Cyrillic, Arabic, Indic, ...
		return false
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai, unicode.Lao,
		unicode.Khmer, unicode.Myanmar)
}

func wordRune(r rune) bool {
	if r < 0x80 {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_'
	}
	return (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || unicode.Is(unicode.Mn, r)) && !noSpaceScript(r)
}

// Tokenize splits text into index terms, for prose and code alike:
//
//   - words are runs of letters, digits, underscores and combining marks in
//     any script; each is lowercased and kept when it has at least two
//     characters and is no English stopword;
//   - an identifier made of parts (snake_case, camelCase, letters and
//     digits: parseHTTPRequest2) also yields its parts (parse, http,
//     request), so code and prose about it meet;
//   - a path or dotted name without spaces (src/main.go, foo.bar-baz) also
//     yields itself as one term, lowercased, when at most 64 characters;
//   - text in scripts written without spaces (Han, Hiragana, Katakana, Thai,
//     Lao, Khmer, Myanmar) yields the bigrams of each run of such characters,
//     or the character itself when the run has one.
//
// Terms come in text order and repeat as often as they occur. Invalid UTF-8
// bytes separate terms.
func Tokenize(text string) []string {
	var out []string
	var tk tokenizer
	tk.run(text, func(b []byte) { out = append(out, string(b)) })
	return out
}

// tokenizer holds the buffer a term is lowercased into, so that tokenizing
// allocates nothing but new vocabulary.
type tokenizer struct{ buf []byte }

// lower sets the buffer to the lowercase of s.
func (tk *tokenizer) lower(s string) []byte {
	tk.buf = tk.buf[:0]
	for _, r := range s {
		if r < 0x80 {
			if 'A' <= r && r <= 'Z' {
				r += 'a' - 'A'
			}
			tk.buf = append(tk.buf, byte(r))
			continue
		}
		tk.buf = utf8.AppendRune(tk.buf, unicode.ToLower(r))
	}
	return tk.buf
}

// run calls emit with each term of text; the slice is valid until emit
// returns.
func (tk *tokenizer) run(text string, emit func([]byte)) {
	n := len(text)
	for i := 0; i < n; {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case noSpaceScript(r):
			j, prev, runes := i, 0, 0
			for j < n {
				r2, s2 := utf8.DecodeRuneInString(text[j:])
				if !noSpaceScript(r2) {
					break
				}
				if runes > 0 {
					emit(tk.lower(text[prev : j+s2]))
				}
				prev, runes, j = j, runes+1, j+s2
			}
			if runes == 1 {
				emit(tk.lower(text[i:j]))
			}
			i = j
		case wordRune(r):
			// A compound: words joined by . / - : without spaces.
			j, words := i, 0
			for j < n {
				k := j
				for k < n {
					r2, s2 := utf8.DecodeRuneInString(text[k:])
					if !wordRune(r2) {
						break
					}
					k += s2
				}
				if k == j {
					break
				}
				tk.word(text[j:k], emit)
				words++
				j = k
				if j+1 < n && strings.IndexByte("./-:", text[j]) >= 0 {
					if r3, _ := utf8.DecodeRuneInString(text[j+1:]); wordRune(r3) {
						j++
						continue
					}
				}
				break
			}
			if words > 1 && utf8.RuneCountInString(text[i:j]) <= 64 {
				emit(tk.lower(text[i:j]))
			}
			i = j
		default:
			i += size
		}
	}
}

// word emits a word and, when it is an identifier of several parts, its
// parts.
func (tk *tokenizer) word(w string, emit func([]byte)) {
	b := tk.lower(w)
	if utf8.RuneCount(b) >= 2 && !stopwords[string(b)] {
		emit(b)
	}
	if !hasParts(w) {
		return
	}
	for _, p := range identParts([]rune(w)) {
		if utf8.RuneCountInString(p) >= 2 && !stopwords[p] {
			emit(tk.lower(p))
		}
	}
}

// hasParts reports whether identParts may split w: it has an underscore, a
// digit, or a capital after its first character.
func hasParts(w string) bool {
	for i, r := range w {
		if r == '_' || unicode.IsDigit(r) || i > 0 && unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

// identParts splits an identifier at underscores, lower-to-upper case
// changes, the last capital of a run of capitals followed by a lowercase
// letter (HTTPRequest: HTTP, Request) and letter/digit changes; parts are
// lowercased.
func identParts(w []rune) []string {
	var parts []string
	start := 0
	flush := func(end int) {
		if end > start {
			parts = append(parts, strings.ToLower(string(w[start:end])))
		}
	}
	for i := 0; i < len(w); i++ {
		r := w[i]
		if r == '_' {
			flush(i)
			start = i + 1
			continue
		}
		if i == start {
			continue
		}
		p := w[i-1]
		switch {
		case unicode.IsLower(p) && unicode.IsUpper(r),
			unicode.IsLetter(p) && unicode.IsDigit(r),
			unicode.IsDigit(p) && unicode.IsLetter(r),
			unicode.IsUpper(p) && unicode.IsUpper(r) && i+1 < len(w) && unicode.IsLower(w[i+1]):
			flush(i)
			start = i
		}
	}
	flush(len(w))
	return parts
}

// posting is one document's weight for a term.
type posting struct {
	doc int32
	w   float64
}

// tfidfIndex is an inverted index of L2-normalised TF-IDF vectors.
//
// Weights (scikit-learn's smooth_idf and sublinear_tf): for a term t in a
// document d, w(t, d) = (1 + ln tf(t, d)) * idf(t), with idf(t) = ln((1 + D) /
// (1 + df(t))) + 1 over D documents, and each document's vector divided by
// its Euclidean norm. A query is weighted the same way with the index's idf,
// over the terms the index knows, so the score of a document is the cosine
// of the two vectors.
type tfidfIndex struct {
	vocab    map[string]int32
	idf      []float64
	postings [][]posting
	docs     int
	scratch  sync.Pool // *scratch
}

func newTFIDFIndex(docs []string) *tfidfIndex {
	ix := &tfidfIndex{vocab: map[string]int32{}, docs: len(docs)}
	// Per document, its distinct terms and their counts, found with a stamp
	// per term rather than a map per document.
	type tf struct {
		term int32
		n    int32
	}
	docTerms := make([][]tf, len(docs))
	var df, count, stamp []int32
	var terms []int32
	var tk tokenizer
	for d, text := range docs {
		terms = terms[:0]
		tk.run(text, func(b []byte) {
			id, ok := ix.vocab[string(b)]
			if !ok {
				id = int32(len(df))
				ix.vocab[string(b)] = id
				df, count, stamp = append(df, 0), append(count, 0), append(stamp, -1)
			}
			if stamp[id] != int32(d) {
				stamp[id], count[id] = int32(d), 0
				df[id]++
				terms = append(terms, id)
			}
			count[id]++
		})
		slices.Sort(terms)
		dt := make([]tf, len(terms))
		for i, id := range terms {
			dt[i] = tf{id, count[id]}
		}
		docTerms[d] = dt
	}
	ix.idf = make([]float64, len(df))
	for id, f := range df {
		ix.idf[id] = math.Log(float64(1+len(docs))/float64(1+f)) + 1
	}
	ix.postings = make([][]posting, len(df))
	for id, f := range df {
		ix.postings[id] = make([]posting, 0, f)
	}
	var ws []float64
	for d, terms := range docTerms {
		var norm float64
		ws = ws[:0]
		for _, t := range terms {
			w := (1 + math.Log(float64(t.n))) * ix.idf[t.term]
			ws = append(ws, w)
			norm += w * w
		}
		norm = math.Sqrt(norm)
		for i, t := range terms {
			ix.postings[t.term] = append(ix.postings[t.term], posting{int32(d), ws[i] / norm})
		}
	}
	ix.scratch.New = func() any { return &scratch{scores: make([]float64, ix.docs)} }
	return ix
}

// scratch is one search's accumulator: a score per document (all zero
// between searches) and the documents touched.
type scratch struct {
	scores  []float64
	touched []int32
}

// Match is a document of an index and its cosine similarity to a query.
type Match struct {
	Doc   int     // position in the pool
	Score float64 // cosine, in [0, 1]
}

// search returns the k documents most similar to query, by score, ties by
// the lower document position; documents sharing no term with the query are
// never returned.
func (ix *tfidfIndex) search(query string, k int) []Match {
	counts := map[int32]int{}
	var tk tokenizer
	tk.run(query, func(b []byte) {
		if id, ok := ix.vocab[string(b)]; ok {
			counts[id]++
		}
	})
	if len(counts) == 0 || k <= 0 {
		return nil
	}
	terms := make([]int32, 0, len(counts))
	for id := range counts {
		terms = append(terms, id)
	}
	sort.Slice(terms, func(i, j int) bool { return terms[i] < terms[j] }) // a fixed summation order
	qw := make([]float64, len(terms))
	var norm float64
	for i, id := range terms {
		qw[i] = (1 + math.Log(float64(counts[id]))) * ix.idf[id]
		norm += qw[i] * qw[i]
	}
	norm = math.Sqrt(norm)
	sc := ix.scratch.Get().(*scratch)
	defer ix.scratch.Put(sc)
	scores, touched := sc.scores, sc.touched[:0]
	for i, id := range terms {
		q := qw[i] / norm
		for _, p := range ix.postings[id] {
			if scores[p.doc] == 0 {
				touched = append(touched, p.doc)
			}
			scores[p.doc] += q * p.w
		}
	}
	sc.touched = touched
	if k == 1 { // the common case: one linear pass, nothing allocated but the answer
		best := Match{Doc: int(touched[0]), Score: scores[touched[0]]}
		for _, d := range touched {
			if s := scores[d]; s > best.Score || s == best.Score && int(d) < best.Doc {
				best = Match{int(d), s}
			}
			scores[d] = 0
		}
		return []Match{best}
	}
	out := make([]Match, 0, len(touched))
	for _, d := range touched {
		out = append(out, Match{int(d), scores[d]})
		scores[d] = 0
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].Doc < out[j].Doc
	})
	if len(out) > k {
		out = out[:k]
	}
	return out
}
