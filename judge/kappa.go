package judge

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
)

// z975 is the 0.975 quantile of the standard normal distribution, for 95%
// intervals.
const z975 = 1.959963984540054

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
	// Everitt (1969), "Large sample standard errors of kappa and weighted
	// kappa", Psychological Bulletin 72(5), 323-327, equation 13 (the
	// non-null variance; also Fleiss, Levin & Paik 2003, section 18.1):
	//
	//	var = [ sum_i p_ii (1 - (p_i. + p_.i)(1 - k))^2
	//	      + (1 - k)^2 sum_{i!=j} p_ij (p_.i + p_j.)^2
	//	      - (k - p_e (1 - k))^2 ] / (n (1 - p_e)^2)
	SE float64
	// Lo and Hi bound the 95% Wald interval Kappa +/- 1.959964 * SE, not
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

// fromConfusion fills every statistic from ag.Confusion and ag.N.
func (ag *Agreement) fromConfusion() {
	const k = NumMoves
	n := float64(ag.N)
	var p [k][k]float64
	var row, col [k]float64
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			p[i][j] = float64(ag.Confusion[i][j]) / n
			row[i] += p[i][j]
			col[j] += p[i][j]
		}
	}
	for i := 0; i < k; i++ {
		ag.Observed += p[i][i]
		ag.Expected += row[i] * col[i]
	}
	moves := Moves()
	for i := 0; i < k; i++ {
		ma := MoveAgreement{Move: moves[i], Both: ag.Confusion[i][i]}
		for j := 0; j < k; j++ {
			ma.A += ag.Confusion[i][j]
			ma.B += ag.Confusion[j][i]
		}
		ma.Specific = ratio(2*ma.Both, ma.A+ma.B)
		ma.RecallA = ratio(ma.Both, ma.A)
		ma.RecallB = ratio(ma.Both, ma.B)
		ag.PerMove[i] = ma
	}
	pe, po := ag.Expected, ag.Observed
	if pe >= 1 {
		ag.Kappa, ag.SE, ag.Lo, ag.Hi = math.NaN(), math.NaN(), math.NaN(), math.NaN()
		return
	}
	kap := (po - pe) / (1 - pe)
	var diag, off float64
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			if i == j {
				d := 1 - (row[i]+col[i])*(1-kap)
				diag += p[i][i] * d * d
			} else {
				s := col[i] + row[j]
				off += p[i][j] * s * s
			}
		}
	}
	c := kap - pe*(1-kap)
	v := (diag + (1-kap)*(1-kap)*off - c*c) / (n * (1 - pe) * (1 - pe))
	// Rounding can leave a tiny negative variance when agreement is perfect.
	se := math.Sqrt(math.Max(v, 0))
	ag.Kappa, ag.SE = kap, se
	ag.Lo, ag.Hi = kap-z975*se, kap+z975*se
}

func ratio(a, b int) float64 {
	if b == 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}

// Format writes the agreement as plain text: kappa with its interval, the
// confusion matrix (rows nameA, columns nameB, with totals) and the per-label
// agreement. It is meant for logs and terminals; reports format Agreement
// themselves.
func (ag Agreement) Format(w io.Writer, nameA, nameB string) error {
	var sb strings.Builder
	fmt.Fprintf(&sb, "n=%d  p_o=%.3f  p_e=%.3f  kappa=%.3f  95%% CI [%.3f, %.3f]  (SE %.3f, Fleiss-Cohen-Everitt 1969)\n",
		ag.N, ag.Observed, ag.Expected, ag.Kappa, ag.Lo, ag.Hi, ag.SE)
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
	fmt.Fprintf(&sb, "%-10s%8s%8s%8s%10s%10s%10s\n", "label", nameA, nameB, "both", "specific", "recall", "precision")
	for _, ma := range ag.PerMove {
		fmt.Fprintf(&sb, "%-10s%8d%8d%8d%10.3f%10.3f%10.3f\n", ma.Move, ma.A, ma.B, ma.Both, ma.Specific, ma.RecallA, ma.RecallB)
	}
	_, err := io.WriteString(w, sb.String())
	return err
}
