package judge

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/ub-bench/ub/analysis"
)

// FineAgreement is the agreement of two judges on the targets both gave a
// 7-way label, as the taxonomy was measured (seed 000): Cohen's kappa on
// the seven fine labels, and on their 4-way collapse (Map7To4) of the
// same targets, side by side. The collapse merges the two pairs of
// confusable labels, so Kappa4 is usually the higher.
type FineAgreement struct {
	N      int
	Kappa7 analysis.Kappa
	Kappa4 analysis.Kappa
}

// MarshalJSON encodes the two kappas with their intervals, NaN as null.
func (fa FineAgreement) MarshalJSON() ([]byte, error) {
	type k struct {
		Kappa, SE, Lo, Hi jsonFloat
	}
	enc := func(x analysis.Kappa) k {
		return k{jsonFloat(x.Kappa), jsonFloat(x.SE), jsonFloat(x.Lo), jsonFloat(x.Hi)}
	}
	return json.Marshal(struct {
		N      int `json:"n"`
		Kappa7 k   `json:"kappa7"`
		Kappa4 k   `json:"kappa4"`
	}{fa.N, enc(fa.Kappa7), enc(fa.Kappa4)})
}

// Format writes the two kappas side by side on one line.
func (fa FineAgreement) Format(w io.Writer) error {
	_, err := fmt.Fprintf(w, "7-way labels on %d targets: kappa %s [%s, %s]; their 4-way collapse: kappa %s [%s, %s]\n",
		fa.N, f3(fa.Kappa7.Kappa, 0), f3(fa.Kappa7.Lo, 0), f3(fa.Kappa7.Hi, 0), f3(fa.Kappa4.Kappa, 0), f3(fa.Kappa4.Lo, 0), f3(fa.Kappa4.Hi, 0))
	return err
}

// AgreeFine compares two 7-way labellings of the same items, a[i] and
// b[i] being item i's labels, on the fine labels and on their collapse.
func AgreeFine(a, b []Fine) (FineAgreement, error) {
	if len(a) != len(b) || len(a) == 0 {
		return FineAgreement{}, fmt.Errorf("agree fine: %d labels against %d", len(a), len(b))
	}
	var a7, b7, a4, b4 []string
	for i := range a {
		if !a[i].Valid() || !b[i].Valid() {
			return FineAgreement{}, fmt.Errorf("agree fine: item %d: not a 7-way label", i+1)
		}
		a7, b7 = append(a7, a[i].String()), append(b7, b[i].String())
		a4, b4 = append(a4, a[i].Move().String()), append(b4, b[i].Move().String())
	}
	c7, err := analysis.NewConfusion(a7, b7)
	if err != nil {
		return FineAgreement{}, err
	}
	c4, err := analysis.NewConfusion(a4, b4)
	if err != nil {
		return FineAgreement{}, err
	}
	return FineAgreement{N: len(a), Kappa7: analysis.CohenKappa(c7), Kappa4: analysis.CohenKappa(c4)}, nil
}
