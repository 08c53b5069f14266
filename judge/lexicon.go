package judge

import "strings"

// Cue lexicons of the built-in judge, written by hand from the labelling
// guide, not extracted from the corpus. Each entry is a phrase of tokens as
// the tokenizer splits them (lower case; Chinese and Japanese split into
// single characters); a trailing '*' makes the last token a prefix. Each
// lexicon merges all languages on purpose: a cue learned mostly from English
// messages then carries its weight to Spanish, French, German, Czech,
// Turkish, Portuguese and Chinese messages whose words the classifier never
// saw in training.

// lexFault: words and phrases that say or show that something is broken.
var lexFault = compileLex(
	// en
	"error*", "errer", "err", "exception*", "traceback", "crash*", "bug", "bugs", "buggy", "broken",
	"breaks", "broke", "fail*", "not working", "doesn't work", "doesnt work", "does not work",
	"didn't work", "didnt work", "did not work", "isn't working", "isnt working", "is not working",
	"not work", "won't work", "wont work", "no longer works", "stopped working", "nothing happens",
	"does nothing", "doesn't do anything", "not showing", "isn't showing", "not displaying",
	"not loading", "doesn't load", "won't load", "not found", "undefined", "blank page", "hangs",
	"freezes", "stack trace", "segfault", "blank screen", "white screen", "black screen",
	"empty page", "empty screen", "nothing shows", "not updating", "not saving", "doesn't show",
	"doesnt show", "don't see", "dont see", "can't see", "cant see", "has no member",
	"no member named", "is not a member", "undeclared", "not declared", "nullptr", "segfault",
	"i have a problem", "i have an issue", "there is a problem", "there's a problem",
	"there is an issue", "there's an issue", "new issue", "new error", "the issue is",
	"the problem is", "help me fix", "help fixing", "fix this issue", "fix the issue",
	"fix this error", "fix these", "fix this bug", "fix the bug", "fix the error", "not adjusting",
	"not changing", "not updating", "not rendering", "not responding", "not being",
	// es
	"errores", "falla*", "fallo", "no funciona", "no funcionan", "no sirve", "no hace nada",
	"no aparece", "no aparecen", "no carga", "no se ve", "no me deja", "no abre", "se rompe",
	"se cae", "roto", "excepción",
	// fr
	"erreur*", "ne marche pas", "marche pas", "ne fonctionne pas", "fonctionne pas", "plante",
	"cassé", "échoue", "échec", "ne s'affiche pas", "rien ne se passe",
	// de
	"fehler*", "funktioniert nicht", "geht nicht", "kaputt", "absturz", "stürzt ab",
	"fehlgeschlagen", "klappt nicht", "wird nicht angezeigt",
	// cs
	"chyb*", "nefunguje", "nefungujou", "nejde", "spadl*", "padá", "rozbit*", "nezobrazuje",
	// tr
	"hata*", "çalışmıyor", "calismiyor", "bozuk", "çöktü", "olmuyor", "başarısız",
	// pt, it, ru
	"erro", "não funciona", "nao funciona", "falha", "errore", "non funziona", "ошибка", "не работает",
	// zh
	"错误", "报错", "出错", "失败", "崩溃", "异常", "不行", "没反应", "不工作",
)

// lexWeak: softer signs of a fault, which also occur in plain requests.
var lexWeak = compileLex(
	"issue", "issues", "problem*", "wrong", "incorrect", "missing", "warning*", "invalid",
	"can't", "cannot", "cant", "unable", "not correct", "not right", "weird", "strange",
	"supposed to", "unexpected", "stuck", "nothing",
	"problema*", "mal", "incorrecto", "raro", "en vez de", "falta*", "vacía", "vacio", "vacío",
	"problème*", "faux", "incorrect", "manque*", "vide",
	"falsch", "fehlt", "leer",
	"problém*", "špatně", "blbě", "chybí", "prázdn*",
	"sorun*", "yanlış", "eksik", "boş",
	"问题", "不对", "错了", "缺少", "空",
)

// lexNeg: plain negation.
var lexNeg = compileLex(
	"not", "no", "don't", "dont", "doesn't", "doesnt", "isn't", "isnt", "didn't", "didnt", "won't",
	"wont", "never", "nor", "ne", "pas", "nicht", "kein", "keine", "nie", "değil", "yok", "不", "没",
	"não", "nada", "nunca", "ani",
)

// faultTopicBefore and faultTopicAfter mark a fault word used as a topic
// ("add error handling", "handle undefined values", "the error message
// should say") rather than as a report.
var faultTopicBefore = map[string]bool{
	"handle": true, "handles": true, "handling": true, "catch": true, "log": true, "logs": true,
	"proper": true, "better": true, "potential": true, "possible": true, "prevent": true,
	"avoid": true, "without": true, "any": true, "for": true, "on": true, "if": true, "when": true,
	"add": true, "show": true, "display": true, "graceful": true, "manejar": true, "manejo": true,
	"gérer": true, "behandeln": true, "ošetřit": true, "ošetření": true, "处理": true,
	// Negated: "no errors", "zero failures", "sin errores".
	"no": true, "zero": true, "0": true, "sin": true, "sans": true, "aucune": true, "aucun": true,
	"ohne": true, "keine": true, "kein": true, "bez": true, "žádné": true, "žádná": true,
	"没有": true, "无": true,
	// Numerical errors: "mean squared error", "relative error".
	"squared": true, "relative": true, "absolute": true, "mean": true, "numerical": true,
	"rounding": true, "truncation": true, "standard": true, "max": true, "maximum": true,
	"min": true, "rms": true, "fractional": true, "percent": true, "percentage": true,
	"fill": true, "impute": true, "upon": true, "report": true, "type": true, "custom": true,
}
var faultTopicAfter = map[string]bool{
	"handling": true, "handler": true, "handlers": true, "message": true, "messages": true,
	"state": true, "states": true, "boundary": true, "boundaries": true, "logging": true,
	"codes": true, "checking": true, "check": true, "checks": true, "cases": true, "case": true,
	"page": true, "tracking": true, "reporting": true, "recovery": true, "rate": true,
	"handle": true, "fallback": true, "tolerance": true, "bars": true, "bar": true,
	"bound": true, "bounds": true, "estimate": true, "estimates": true, "analysis": true,
	"term": true, "metric": true, "margin": true, "propagation": true, "budget": true,
	"report": true, "reports": true, "tracker": true, "attempts": true, "safe": true,
	"over": true, "fast": true, "class": true, "classes": true, "type": true, "types": true,
	"values": true, "data": true, "field": true, "fields": true, "toast": true, "modal": true,
	"banner": true, "callback": true, "event": true, "events": true, "status": true,
}

// specMarkers open a clause that states a requirement or a condition, so a
// fault word later in the clause is a topic, not a report: "make sure it
// does not crash", "handle the error", "the test should fail if ...",
// "return an error when the key is missing".
var specMarkers = map[string]bool{
	"should": true, "must": true, "shall": true, "ensure": true, "avoid": true, "prevent": true,
	"handle": true, "handles": true, "handling": true, "catch": true, "log": true, "logs": true,
	"test": true, "tests": true, "verify": true, "validate": true, "detect": true,
	"report": true, "raise": true, "throw": true, "throws": true, "return": true, "returns": true,
	"print": true, "display": true, "fallback": true, "retry": true, "gracefully": true,
	"graceful": true, "whenever": true, "unless": true,
	"debe": true, "deberá": true, "asegura": true, "asegúrate": true, "asegurate": true,
	"evita": true, "evitar": true, "maneja": true, "manejar": true, "doit": true, "éviter": true,
	"gérer": true, "muss": true, "soll": true, "sollte": true, "vermeide": true,
	"behandle": true, "musí": true, "má": true, "ošetři": true, "zajisti": true,
	"malı": true, "meli": true, "应该": true, "必须": true, "避免": true, "处理": true,
}

// condMarkers open a condition; they make a topic only when not followed by
// the speaker ("if it fails, retry" is a spec; "when I click, it fails" is a
// report).
var condMarkers = map[string]bool{
	"if": true, "when": true, "si": true, "cuando": true, "quand": true, "wenn": true,
	"falls": true, "pokud": true, "když": true, "jestli": true, "eğer": true, "如果": true,
}

var speakers = map[string]bool{
	"i": true, "i'm": true, "im": true, "we": true, "i've": true, "yo": true, "je": true,
	"j'ai": true, "ich": true, "wir": true, "já": true, "jsem": true, "ben": true, "我": true,
}

// countFaults counts the matches of lx in words, split into reports and
// topics. A match is a topic when the word just before it or after it makes
// it one ("error handling", "handle undefined values") or when a spec
// marker, or a condition not about the speaker, opens its clause within six
// words before it. clause[i] numbers the clause of words[i]; nil means one
// clause.
func (lx *lexicon) countFaults(words []string, clause []int) (reports, topics int) {
	for i := 0; i < len(words); {
		k := lx.matchAt(words, i)
		if k == 0 {
			i++
			continue
		}
		topic := k == 1 && ((i > 0 && faultTopicBefore[words[i-1]]) ||
			(i+k < len(words) && faultTopicAfter[words[i+k]]))
		for j := i - 1; j >= 0 && j >= i-6 && !topic; j-- {
			if clause != nil && clause[j] != clause[i] {
				break
			}
			w := words[j]
			makeSure := w == "sure" && j > 0 && words[j-1] == "make"
			if specMarkers[w] || makeSure || (condMarkers[w] && !(j+1 < len(words) && speakers[words[j+1]])) {
				topic = true
			}
		}
		if topic {
			topics++
		} else {
			reports++
		}
		i += k
	}
	return reports, topics
}

// countUnnegated counts matches not preceded by a negation.
func (lx *lexicon) countUnnegated(words []string) int {
	n := 0
	for i := 0; i < len(words); {
		k := lx.matchAt(words, i)
		if k == 0 {
			i++
			continue
		}
		if i == 0 || lexNeg.matchAt(words, i-1) == 0 {
			n++
		}
		i += k
	}
	return n
}

// count returns the number of non-overlapping matches in words.
func (lx *lexicon) count(words []string) int {
	n := 0
	for i := 0; i < len(words); {
		if k := lx.matchAt(words, i); k > 0 {
			n++
			i += k
			continue
		}
		i++
	}
	return n
}

// covers reports whether words is entirely a sequence of matches.
func (lx *lexicon) covers(words []string) bool {
	if len(words) == 0 {
		return false
	}
	for i := 0; i < len(words); {
		k := lx.matchAt(words, i)
		if k == 0 {
			return false
		}
		i += k
	}
	return true
}

// lexicon is a compiled phrase list.
type lexicon struct {
	byFirst map[string][]phrase // phrases whose first token is exact
	prefix  []phrase            // one-token prefix phrases
}

type phrase struct {
	toks   []string
	prefix bool // the last token is a prefix
}

func compileLex(entries ...string) *lexicon {
	lx := &lexicon{byFirst: map[string][]phrase{}}
	for _, e := range entries {
		pre := strings.HasSuffix(e, "*")
		e = strings.TrimSuffix(e, "*")
		var toks []string
		for _, t := range tokenize(e) {
			if t.word {
				toks = append(toks, t.text)
			}
		}
		if len(toks) == 0 {
			continue
		}
		p := phrase{toks: toks, prefix: pre}
		if pre && len(toks) == 1 {
			lx.prefix = append(lx.prefix, p)
			continue
		}
		lx.byFirst[toks[0]] = append(lx.byFirst[toks[0]], p)
	}
	return lx
}

// matchAt returns the length in tokens of the longest phrase that starts at
// words[i], or 0.
func (lx *lexicon) matchAt(words []string, i int) int {
	best := 0
	w := words[i]
	for _, p := range lx.prefix {
		if strings.HasPrefix(w, p.toks[0]) {
			best = 1
			break
		}
	}
	for _, p := range lx.byFirst[w] {
		if n := p.matches(words, i); n > best {
			best = n
		}
	}
	return best
}

func (p phrase) matches(words []string, i int) int {
	if i+len(p.toks) > len(words) {
		return 0
	}
	last := len(p.toks) - 1
	for k, t := range p.toks {
		w := words[i+k]
		if k == last && p.prefix {
			if !strings.HasPrefix(w, t) {
				return 0
			}
		} else if w != t {
			return 0
		}
	}
	return len(p.toks)
}
