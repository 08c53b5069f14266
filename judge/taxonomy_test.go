package judge

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestMap7To4(t *testing.T) {
	// SPEC section 4: new_work, refine_redirect -> directive; pushback,
	// bug_report -> critical; approve_proceed -> approve; question ->
	// inquiry; other -> other.
	want := map[string]Move{
		"new_work": Directive, "refine_redirect": Directive,
		"pushback": Critical, "bug_report": Critical,
		"approve_proceed": Approve, "question": Inquiry, "other": Other,
	}
	if len(Fines()) != NumFine || len(want) != NumFine {
		t.Fatalf("%d fine labels, want %d", len(Fines()), NumFine)
	}
	for _, f := range Fines() {
		if got := Map7To4(f); got != want[f.String()] {
			t.Errorf("Map7To4(%s) = %s, want %s", f, got, want[f.String()])
		}
		if f.Move() != Map7To4(f) {
			t.Errorf("%s.Move() disagrees with Map7To4", f)
		}
	}
	if got := Map7To4(0); got.Valid() {
		t.Errorf("Map7To4(0) = %s, want the invalid zero move", got)
	}
	if got := Map7To4(Fine(99)); got.Valid() {
		t.Errorf("Map7To4(99) = %s, want the invalid zero move", got)
	}
}

func TestParseMove(t *testing.T) {
	tests := []struct {
		in   string
		want Move
		ok   bool
	}{
		{"approve", Approve, true},
		{"critical", Critical, true},
		{"directive", Directive, true},
		{"inquiry", Inquiry, true},
		{"other", Other, true},
		{" Critical\n", Critical, true}, // space and case only
		{"", 0, false},
		{"crit", 0, false},
		{"bug_report", 0, false}, // a fine label is not a move
		{"critical.", 0, false},
		{"approve critical", 0, false},
	}
	for _, tt := range tests {
		got, err := ParseMove(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseMove(%q) = %v, %v; want %v, ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestParseFineAndLabel(t *testing.T) {
	for _, f := range Fines() {
		got, err := ParseFine(strings.ToUpper(f.String()))
		if err != nil || got != f {
			t.Errorf("ParseFine(%q) = %v, %v", strings.ToUpper(f.String()), got, err)
		}
	}
	if _, err := ParseFine("critical"); err == nil {
		t.Error("ParseFine(critical): want an error, a move is not a fine label")
	}
	tests := []struct {
		in   string
		move Move
		fine Fine
		ok   bool
	}{
		{"bug_report", Critical, BugReport, true},
		{"refine_redirect", Directive, RefineRedirect, true},
		{"approve", Approve, 0, true},
		{"other", Other, FineOther, true},
		{"question", Inquiry, Question, true},
		{"unparseable answer", 0, 0, false},
		{"", 0, 0, false},
	}
	for _, tt := range tests {
		m, f, err := ParseLabel(tt.in)
		if (err == nil) != tt.ok || m != tt.move || f != tt.fine {
			t.Errorf("ParseLabel(%q) = %v, %v, %v; want %v, %v, ok=%v", tt.in, m, f, err, tt.move, tt.fine, tt.ok)
		}
	}
}

func TestMoveJSON(t *testing.T) {
	type row struct {
		Label Move `json:"label"`
		Fine  Fine `json:"fine"`
	}
	b, err := json.Marshal(row{Critical, Pushback})
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"label":"critical","fine":"pushback"}` {
		t.Errorf("marshal: %s", b)
	}
	var r row
	if err := json.Unmarshal([]byte(`{"label":"inquiry","fine":"question"}`), &r); err != nil || r.Label != Inquiry || r.Fine != Question {
		t.Errorf("unmarshal: %+v, %v", r, err)
	}
	if err := json.Unmarshal([]byte(`{"label":"maybe"}`), &r); err == nil {
		t.Error("unmarshal of an unknown label: want an error")
	}
	if _, err := json.Marshal(row{}); err == nil {
		t.Error("marshal of the zero move: want an error, an unset label must not be written")
	}
}

// TestResolveFaultFirst checks the rule order of the guide on the acts a
// message performs, decided by hand for each message.
func TestResolveFaultFirst(t *testing.T) {
	tests := []struct {
		msg  string
		acts []Move
		want Move
	}{
		// Thanks (approve) plus a fault report: the fault wins.
		{"thanks, but it still crashes", []Move{Approve, Critical}, Critical},
		// A request phrased as a question is a request.
		{"can you also add X?", []Move{Directive}, Directive},
		// Acceptance that adds work is a directive.
		{"ok, now do X", []Move{Approve, Directive}, Directive},
		// A request and a complaint: fault first.
		{"please refactor the form, the fields are cramped and ugly", []Move{Directive, Critical}, Critical},
		// A question that reports a failure: fault first.
		{"why does it fail?", []Move{Inquiry, Critical}, Critical},
		// A question and a request: the request.
		{"what does foo do? also rename it", []Move{Inquiry, Directive}, Directive},
		{"is this thread-safe?", []Move{Inquiry}, Inquiry},
		{"great, thanks!", []Move{Approve}, Approve},
		{"thanks. how does caching work here?", []Move{Approve, Inquiry}, Inquiry},
		{"", nil, Other},
		{"asdf", []Move{Other}, Other},
		{"invalid acts are ignored", []Move{0, Move(42)}, Other},
	}
	for _, tt := range tests {
		if got := Resolve(tt.acts...); got != tt.want {
			t.Errorf("%q: Resolve(%v) = %s, want %s", tt.msg, tt.acts, got, tt.want)
		}
	}
}

func FuzzParseLabel(f *testing.F) {
	for _, s := range []string{"critical", "bug_report", "other", " Approve ", "", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, fine, err := ParseLabel(s)
		if err != nil {
			if m != 0 || fine != 0 {
				t.Fatalf("ParseLabel(%q) failed but returned %v, %v", s, m, fine)
			}
			return
		}
		if !m.Valid() {
			t.Fatalf("ParseLabel(%q) = invalid move %d", s, m)
		}
		if fine != 0 && fine.Move() != m {
			t.Fatalf("ParseLabel(%q): fine %s does not map to %s", s, fine, m)
		}
		if again, err := ParseMove(m.String()); err != nil || again != m {
			t.Fatalf("%s does not round-trip: %v, %v", m, again, err)
		}
	})
}
