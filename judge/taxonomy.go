package judge

import (
	"fmt"
	"strings"
)

// Move is the speech act of one developer message: what the developer does to
// the agent, not what the message is about (SPEC section 4). The zero value is
// not a move; it marks "no label" and never compares equal to a real one.
type Move uint8

// The five labels a judge may give. Other is a real label: it is counted and
// reported beside the four moves, never dropped.
const (
	// Approve accepts or permits, with no new content and no complaint
	// ("ok", "yes go ahead", "perfect, thanks", "continue").
	Approve Move = iota + 1
	// Critical asserts that something is wrong: a bug, a failure, an error, an
	// unwanted approach or result. A pasted stack trace alone is Critical.
	Critical
	// Directive tells the agent what to do next with no fault asserted,
	// including requests phrased as questions ("can you also add X?").
	Directive
	// Inquiry asks for information and expects an answer, not an action.
	Inquiry
	// Other is none of the four: empty, noise, a bare shell command or path,
	// off-topic chatter.
	Other
)

// NumMoves is the number of labels, Other included.
const NumMoves = 5

var moveNames = [...]string{"", "approve", "critical", "directive", "inquiry", "other"}

// Moves returns the five labels in their canonical order (approve, critical,
// directive, inquiry, other). Tables and confusion matrices use this order.
func Moves() []Move { return []Move{Approve, Critical, Directive, Inquiry, Other} }

// String returns the label's name as written in label files ("critical"), or
// "" for the zero Move and "Move(N)" for an out-of-range value.
func (m Move) String() string {
	if int(m) < len(moveNames) {
		return moveNames[m]
	}
	return fmt.Sprintf("Move(%d)", uint8(m))
}

// Valid reports whether m is one of the five labels.
func (m Move) Valid() bool { return m >= Approve && m <= Other }

// Index returns m's position in Moves (0..4), or -1 if m is not valid.
func (m Move) Index() int {
	if !m.Valid() {
		return -1
	}
	return int(m) - 1
}

// MarshalText implements encoding.TextMarshaler; an invalid Move is an error
// so that a missing label cannot be written as if it were one.
func (m Move) MarshalText() ([]byte, error) {
	if !m.Valid() {
		return nil, fmt.Errorf("judge: cannot marshal invalid move %d", uint8(m))
	}
	return []byte(m.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler with ParseMove.
func (m *Move) UnmarshalText(b []byte) error {
	v, err := ParseMove(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// ParseMove parses a move name. It is strict: the only leniency is surrounding
// white space and letter case ("Critical" parses, "crit", "bug" and "" do
// not). Use ParseLabel to accept 7-way names as well.
func ParseMove(s string) (Move, error) {
	k := strings.ToLower(strings.TrimSpace(s))
	for i := Approve; i <= Other; i++ {
		if moveNames[i] == k {
			return i, nil
		}
	}
	return 0, fmt.Errorf("judge: unknown move %q (want approve, critical, directive, inquiry or other)", s)
}

// Fine is one of the 7-way labels the taxonomy started from (seed 000). Two
// pairs of them were too confusable to grade reliably, so every fine label
// maps to exactly one Move (Map7To4). The zero value is not a label.
type Fine uint8

// The seven fine labels.
const (
	// NewWork starts a new task. Maps to Directive.
	NewWork Fine = iota + 1
	// RefineRedirect adjusts or redirects the current task without asserting
	// a fault. Maps to Directive.
	RefineRedirect
	// Pushback rejects the agent's approach or claim. Maps to Critical.
	Pushback
	// BugReport reports a bug, an error or a failure. Maps to Critical.
	BugReport
	// ApproveProceed accepts, permits or continues. Maps to Approve.
	ApproveProceed
	// Question asks for information. Maps to Inquiry.
	Question
	// FineOther is none of the above. Maps to Other.
	FineOther
)

// NumFine is the number of fine labels.
const NumFine = 7

var fineNames = [...]string{"", "new_work", "refine_redirect", "pushback", "bug_report", "approve_proceed", "question", "other"}

// fineMove is the 7 -> 4 table of SPEC section 4, indexed by Fine.
var fineMove = [...]Move{0, Directive, Directive, Critical, Critical, Approve, Inquiry, Other}

// Fines returns the seven fine labels in canonical order.
func Fines() []Fine {
	return []Fine{NewWork, RefineRedirect, Pushback, BugReport, ApproveProceed, Question, FineOther}
}

// String returns the fine label's name as written in label files
// ("bug_report"), or "" for the zero value.
func (f Fine) String() string {
	if int(f) < len(fineNames) {
		return fineNames[f]
	}
	return fmt.Sprintf("Fine(%d)", uint8(f))
}

// Valid reports whether f is one of the seven fine labels.
func (f Fine) Valid() bool { return f >= NewWork && f <= FineOther }

// Move returns the move f maps to; see Map7To4.
func (f Fine) Move() Move { return Map7To4(f) }

// MarshalText implements encoding.TextMarshaler; an invalid Fine is an error.
func (f Fine) MarshalText() ([]byte, error) {
	if !f.Valid() {
		return nil, fmt.Errorf("judge: cannot marshal invalid fine label %d", uint8(f))
	}
	return []byte(f.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler with ParseFine.
func (f *Fine) UnmarshalText(b []byte) error {
	v, err := ParseFine(string(b))
	if err != nil {
		return err
	}
	*f = v
	return nil
}

// Map7To4 maps a fine label to its move: new_work and refine_redirect ->
// directive; pushback and bug_report -> critical; approve_proceed -> approve;
// question -> inquiry; other -> other. An invalid Fine maps to the zero Move.
func Map7To4(f Fine) Move {
	if !f.Valid() {
		return 0
	}
	return fineMove[f]
}

// ParseFine parses a 7-way label name with the same strictness as ParseMove.
// "other" parses as FineOther.
func ParseFine(s string) (Fine, error) {
	k := strings.ToLower(strings.TrimSpace(s))
	for i := NewWork; i <= FineOther; i++ {
		if fineNames[i] == k {
			return i, nil
		}
	}
	return 0, fmt.Errorf("judge: unknown fine label %q (want new_work, refine_redirect, pushback, bug_report, approve_proceed, question or other)", s)
}

// ParseLabel parses either a move name or a fine label name, for label files
// that may hold either. A fine name yields its mapped move and the fine label;
// a move name yields the move and a zero Fine (except "other", which yields
// Other and FineOther). Anything else is an error.
func ParseLabel(s string) (Move, Fine, error) {
	if m, err := ParseMove(s); err == nil {
		if m == Other {
			return Other, FineOther, nil
		}
		return m, 0, nil
	}
	if f, err := ParseFine(s); err == nil {
		return f.Move(), f, nil
	}
	return 0, 0, fmt.Errorf("judge: unknown label %q (want a move or a 7-way label)", s)
}

// Resolve applies the labelling rules in order to the set of acts a message
// performs and returns its one move:
//
//  1. fault first: if any act is Critical, the move is Critical, whatever
//     else the message also does ("thanks, but it still crashes");
//  2. otherwise a request for action is Directive, including one phrased as
//     a question ("can you also add X?") and one that accepts and adds work
//     ("ok, now do X");
//  3. otherwise a request for information is Inquiry;
//  4. otherwise acceptance, agreement or thanks is Approve;
//  5. otherwise Other (also for no acts at all).
//
// The order is that of the labelling guide (../shared/corpus/labels/GUIDE.md)
// and SPEC section 4. Invalid moves among acts are ignored.
func Resolve(acts ...Move) Move {
	var seen [NumMoves + 1]bool
	for _, a := range acts {
		if a.Valid() {
			seen[a] = true
		}
	}
	for _, m := range [...]Move{Critical, Directive, Inquiry, Approve} {
		if seen[m] {
			return m
		}
	}
	return Other
}
