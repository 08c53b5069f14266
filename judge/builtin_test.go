package judge

import (
	"encoding/json"
	"strings"
	"testing"
)

// builtin returns the shipped judge or fails the test.
func builtin(t testing.TB) *Builtin {
	t.Helper()
	b, err := NewBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestBuiltinTricky checks the labelling guide's rules on messages written
// for this test (none is from the corpus). Each expectation follows
// ../shared/corpus/labels/GUIDE.md; where the guide leaves room, the comment
// says how it was decided.
func TestBuiltinTricky(t *testing.T) {
	b := builtin(t)
	offer := "I've updated the handler. Would you like me to apply the same change to the tests?"
	tests := []struct {
		msg, prev string
		want      Move
	}{
		// Fault first: a fault wins over thanks, requests and questions.
		{"thanks, but it still crashes", "", Critical},
		{"ok it works now but the login page still shows a blank screen", "", Critical},
		{"why did you delete the tests?!", "", Critical},
		// "why does it fail?" presupposes and so asserts that it fails: the
		// guide's rule 1 ("shows that something is wrong") comes before
		// rule 3, which is for questions that do not assert a fault.
		{"why does it fail?", "", Critical},
		{"no, don't use redux", "", Critical},
		{"that's not what I asked", "", Critical},
		{"you broke the login page", "", Critical},
		{"Traceback (most recent call last):\n  File \"app.py\", line 12, in <module>\n    main()\nKeyError: 'user'", "", Critical},
		{"TypeError: Cannot read properties of undefined (reading 'map')\n    at App (App.js:12:5)\n    at renderWithHooks (react-dom.development.js:14985:18)", "", Critical},
		// Requests, including those phrased as questions, and acceptance
		// that adds work.
		{"can you also add a logout button?", "", Directive},
		{"ok, now add a logout button", offer, Directive},
		{"use postgres for this", "", Directive},
		{"now add tests for the parser", "", Directive},
		// A fault word that is a topic of the request, not a report.
		{"add error handling to the upload endpoint", "", Directive},
		{"make sure it doesn't crash on empty input", "", Directive},
		{"All tests pass now. Next, add a CLI flag for verbosity.", "", Directive},
		// Requests for information.
		{"what does this function return?", "", Inquiry},
		{"which file handles auth?", "", Inquiry},
		{"is this thread-safe?", "", Inquiry},
		{"what is this error about?", "", Inquiry}, // the guide's own example
		// Acceptance with nothing new.
		{"yes go ahead", offer, Approve},
		{"perfect, thanks", "", Approve},
		{"ok", offer, Approve},
		{"lgtm", "", Approve},
		{"pokračujme", "", Approve}, // the guide's own example
		// Nothing.
		{"", "", Other},
		{"test", "", Other},
		{"<blank>\n/add src/main.go", "", Other},
	}
	for _, tt := range tests {
		t.Run(tt.want.String()+"/"+tt.msg, func(t *testing.T) {
			r := b.Label(tt.msg, tt.prev)
			if r.Move != tt.want {
				t.Errorf("Label(%q) = %s (%.2f; %s), want %s", tt.msg, r.Move, r.Score, r.Reason, tt.want)
			}
		})
	}
}

// TestBuiltinMultilingual checks short messages in the languages of the
// study's developers: English is in TestBuiltinTricky; these were written for
// the test.
func TestBuiltinMultilingual(t *testing.T) {
	b := builtin(t)
	tests := []struct {
		lang, msg string
		want      Move
	}{
		{"cs", "to nefunguje, pořád to padá", Critical},
		{"cs", "přidej tlačítko pro odhlášení", Directive},
		{"cs", "co dělá tahle funkce?", Inquiry},
		{"cs", "jo, pokračuj", Approve},
		{"es", "sigue sin funcionar", Critical},
		{"es", "agrega un botón de logout", Directive},
		{"es", "¿qué hace esta función?", Inquiry},
		{"es", "vale, perfecto", Approve},
		{"fr", "ça ne marche toujours pas", Critical},
		{"fr", "ajoute un bouton de déconnexion", Directive},
		{"fr", "pourquoi ça plante ?", Critical},
		{"fr", "d'accord, merci", Approve},
		{"de", "es funktioniert immer noch nicht", Critical},
		{"de", "füge einen Logout-Button hinzu", Directive},
		{"de", "welche Datei enthält die Authentifizierung?", Inquiry},
		{"de", "ja, mach weiter", Approve},
		{"tr", "hâlâ hata veriyor", Critical},
		{"tr", "bir çıkış butonu ekle", Directive},
		{"tr", "bu fonksiyon ne döndürüyor?", Inquiry},
		{"tr", "tamam, devam et", Approve},
		{"zh", "还是报错", Critical},
		{"zh", "帮我加一个登出按钮", Directive},
		{"zh", "这个函数返回什么？", Inquiry},
		{"zh", "好的，继续", Approve},
	}
	for _, tt := range tests {
		t.Run(tt.lang+"/"+tt.want.String(), func(t *testing.T) {
			r := b.Label(tt.msg, "")
			if r.Move != tt.want {
				t.Errorf("Label(%q) = %s (%.2f; %s), want %s", tt.msg, r.Move, r.Score, r.Reason, tt.want)
			}
		})
	}
}

func TestBuiltinResult(t *testing.T) {
	b := builtin(t)
	r := b.Label("it still crashes when I click save", "")
	if !r.Fine.Valid() || r.Fine.Move() != r.Move {
		t.Errorf("fine label %v does not map to move %v", r.Fine, r.Move)
	}
	if r.Score < 0 || r.Score > 1 {
		t.Errorf("score %v outside [0, 1]", r.Score)
	}
	if r.Reason == "" {
		t.Error("empty reason")
	}
	if v := b.Version(); !strings.HasPrefix(v, "builtin/1+") || len(v) != len("builtin/1+")+12 {
		t.Errorf("Version() = %q", v)
	}
	raw, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back Result
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	if back.Move != r.Move || back.Fine != r.Fine {
		t.Errorf("round trip %s: got %+v", raw, back)
	}
}

// FuzzBuiltinLabel checks that any text gets a valid label without a panic.
func FuzzBuiltinLabel(f *testing.F) {
	b := builtin(f)
	for _, s := range []string{"", "ok", "```\n", "´´´", "?", "¿", "<blank>", "/add x", "还是报错", "a\x00b", "\xff\xfe"} {
		f.Add(s, "")
	}
	f.Fuzz(func(t *testing.T, msg, prev string) {
		r := b.Label(msg, prev)
		if !r.Move.Valid() {
			t.Fatalf("Label(%q) gave invalid move %d", msg, r.Move)
		}
		if r.Fine != 0 && r.Fine.Move() != r.Move {
			t.Fatalf("Label(%q): fine %s does not map to %s", msg, r.Fine, r.Move)
		}
	})
}

func BenchmarkBuiltinLabel(b *testing.B) {
	j := builtin(b)
	trace := "Traceback (most recent call last):\n" + strings.Repeat("  File \"app/views.py\", line 42, in handler\n    return render(request)\n", 30) + "KeyError: 'user'"
	for _, bm := range []struct{ name, msg string }{
		{"short", "ok, now add a logout button"},
		{"sentence", "The calendar still doesn't show the new bookings after I save; can you check the sync code and fix it?"},
		{"trace", "this is what I get now:\n" + trace},
	} {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				j.Label(bm.msg, "I've updated the sync code. Let me know if anything else breaks.")
			}
		})
	}
}
