package judge

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/ub-bench/ub/analysis"
)

// Agreement is the agreement between two labellings, A and B, of the same
// items over the five labels (Other included, never dropped).
type Agreement struct {
	// N is the number of items.
	N int
	// Confusion counts items by label: Confusion[i][j] is the number of items
	// A labelled Moves()[i] and B labelled Moves()[j].
	Confusion [NumMoves][NumMoves]int
	// Observed is p_o, the share of items with equal labels.
	Observed float64
	// Expected is p_e = sum_i p_i. * p_.i, the agreement expected by chance
	// from the two labellings' marginal shares.
	Expected float64
	// Kappa is Cohen's kappa, (p_o - p_e) / (1 - p_e) (Cohen 1960). It is NaN
	// when p_e = 1 (both labellings use one and the same label throughout).
	Kappa float64
	// SE is the large-sample standard error of Kappa of Fleiss, Cohen and
	// Everitt (1969): see analysis.CohenKappa, which computes both.
	SE float64
	// Lo and Hi bound the 95% Wald interval Kappa +/- z(0.975) * SE, not
	// clipped to [-1, 1].
	Lo, Hi float64
	// PerMove holds the agreement on each label, in Moves() order.
	PerMove [NumMoves]MoveAgreement
}

// MoveAgreement is the agreement on one label.
type MoveAgreement struct {
	// Move is the label.
	Move Move
	// A and B count the items each labelling gave this label; Both counts
	// those both did.
	A, B, Both int
	// Specific is the specific (positive) agreement 2*Both / (A + B), the
	// Dice coefficient of the two sets; NaN when neither used the label.
	Specific float64
	// RecallA is Both / A: of the items A gave this label, the share B agreed
	// on (B's recall when A is the reference); NaN when A is 0.
	RecallA float64
	// RecallB is Both / B (B's precision when A is the reference); NaN when
	// B is 0.
	RecallB float64
}

// Agree compares two labellings of the same items, a[i] and b[i] being the
// labels of item i. Both must have the same non-zero length and hold only
// valid moves; the error names the first offending item.
func Agree(a, b []Move) (Agreement, error) {
	var ag Agreement
	if len(a) != len(b) {
		return ag, fmt.Errorf("judge: agree: %d labels against %d", len(a), len(b))
	}
	if len(a) == 0 {
		return ag, errors.New("judge: agree: no items")
	}
	for i := range a {
		if !a[i].Valid() {
			return ag, fmt.Errorf("judge: agree: item %d: first labelling has no valid label", i)
		}
		if !b[i].Valid() {
			return ag, fmt.Errorf("judge: agree: item %d: second labelling has no valid label", i)
		}
		ag.Confusion[a[i].Index()][b[i].Index()]++
	}
	ag.N = len(a)
	ag.fromConfusion()
	return ag, nil
}

// AgreeTable computes the agreement from a confusion matrix of counts
// (rows: first labelling, columns: second, in Moves() order), for tables
// taken from elsewhere.
func AgreeTable(confusion [NumMoves][NumMoves]int) (Agreement, error) {
	ag := Agreement{Confusion: confusion}
	for i := range confusion {
		for j := range confusion[i] {
			if confusion[i][j] < 0 {
				return ag, fmt.Errorf("judge: agree: negative count in cell %d,%d", i, j)
			}
			ag.N += confusion[i][j]
		}
	}
	if ag.N == 0 {
		return ag, errors.New("judge: agree: no items")
	}
	ag.fromConfusion()
	return ag, nil
}

// fromConfusion fills every statistic from ag.Confusion and ag.N; kappa,
// its standard error and interval are analysis.CohenKappa's.
func (ag *Agreement) fromConfusion() {
	moves := Moves()
	names := make([]string, NumMoves)
	for i, m := range moves {
		names[i] = m.String()
	}
	conf := analysis.ConfusionOf(names)
	for i := range moves {
		ma := MoveAgreement{Move: moves[i], Both: ag.Confusion[i][i]}
		for j := range moves {
			ma.A += ag.Confusion[i][j]
			ma.B += ag.Confusion[j][i]
			conf.Add(names[i], names[j], ag.Confusion[i][j])
		}
		ma.Specific = ratio(2*ma.Both, ma.A+ma.B)
		ma.RecallA = ratio(ma.Both, ma.A)
		ma.RecallB = ratio(ma.Both, ma.B)
		ag.PerMove[i] = ma
	}
	k := analysis.CohenKappa(conf)
	ag.Observed, ag.Expected, ag.Kappa, ag.SE, ag.Lo, ag.Hi = k.Observed, k.Expected, k.Kappa, k.SE, k.Lo, k.Hi
}

func ratio(a, b int) float64 {
	if b == 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}

// f3 formats x with three decimals, right-aligned in width, and an empty
// value (NaN: no items) as "-".
func f3(x float64, width int) string {
	if math.IsNaN(x) {
		return fmt.Sprintf("%*s", width, "-")
	}
	return fmt.Sprintf("%*.3f", width, x)
}

// jsonFloat is a float that encodes NaN (an empty cell) as null.
type jsonFloat float64

func (f jsonFloat) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(f))
}

// MarshalJSON encodes the agreement with its empty values (NaN) as null:
// encoding/json refuses NaN.
func (ag Agreement) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		N                                     int
		Confusion                             [NumMoves][NumMoves]int
		Observed, Expected, Kappa, SE, Lo, Hi jsonFloat
		PerMove                               [NumMoves]MoveAgreement
	}{ag.N, ag.Confusion, jsonFloat(ag.Observed), jsonFloat(ag.Expected), jsonFloat(ag.Kappa), jsonFloat(ag.SE),
		jsonFloat(ag.Lo), jsonFloat(ag.Hi), ag.PerMove})
}

// MarshalJSON encodes the per-label agreement with its empty ratios (NaN:
// the label was not used) as null.
func (ma MoveAgreement) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Move                       Move
		A, B, Both                 int
		Specific, RecallA, RecallB jsonFloat
	}{ma.Move, ma.A, ma.B, ma.Both, jsonFloat(ma.Specific), jsonFloat(ma.RecallA), jsonFloat(ma.RecallB)})
}

// Format writes the agreement as plain text: kappa with its interval, the
// confusion matrix (rows nameA, columns nameB, with totals) and the per-label
// agreement. It is meant for logs and terminals; reports format Agreement
// themselves.
func (ag Agreement) Format(w io.Writer, nameA, nameB string) error {
	var sb strings.Builder
	fmt.Fprintf(&sb, "n=%d  p_o=%s  p_e=%s  kappa=%s  95%% CI [%s, %s]  (SE %s, Fleiss-Cohen-Everitt 1969)\n",
		ag.N, f3(ag.Observed, 0), f3(ag.Expected, 0), f3(ag.Kappa, 0), f3(ag.Lo, 0), f3(ag.Hi, 0), f3(ag.SE, 0))
	fmt.Fprintf(&sb, "rows: %s, columns: %s\n", nameA, nameB)
	fmt.Fprintf(&sb, "%-10s", "")
	for _, m := range Moves() {
		fmt.Fprintf(&sb, "%10s", m)
	}
	fmt.Fprintf(&sb, "%10s\n", "total")
	var colTot [NumMoves]int
	for i, m := range Moves() {
		fmt.Fprintf(&sb, "%-10s", m)
		t := 0
		for j := range Moves() {
			fmt.Fprintf(&sb, "%10d", ag.Confusion[i][j])
			t += ag.Confusion[i][j]
			colTot[j] += ag.Confusion[i][j]
		}
		fmt.Fprintf(&sb, "%10d\n", t)
	}
	fmt.Fprintf(&sb, "%-10s", "total")
	for _, t := range colTot {
		fmt.Fprintf(&sb, "%10d", t)
	}
	fmt.Fprintf(&sb, "%10d\n", ag.N)
	// Each judge's column is wide enough for its name and a space, so
	// that two names never run together.
	wa, wb := max(8, len(nameA)+1), max(8, len(nameB)+1)
	fmt.Fprintf(&sb, "%-10s%*s%*s%8s%10s%10s%10s\n", "label", wa, nameA, wb, nameB, "both", "specific", "recall", "precision")
	for _, ma := range ag.PerMove {
		fmt.Fprintf(&sb, "%-10s%*d%*d%8d%s%s%s\n", ma.Move, wa, ma.A, wb, ma.B, ma.Both,
			f3(ma.Specific, 10), f3(ma.RecallA, 10), f3(ma.RecallB, 10))
	}
	_, err := io.WriteString(w, sb.String())
	return err
}
