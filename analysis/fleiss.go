package analysis

import "fmt"

// FleissKappa is Fleiss' (1971) kappa of agreement among m raters:
// counts[i][j] raters put item i in category j, every item rated by the
// same number m >= 2 of raters. kappa = (Pbar - Pe) / (1 - Pe), where Pbar
// is the mean over items of the share of agreeing rater pairs,
// sum_j n_ij (n_ij - 1) / (m (m - 1)), and Pe = sum_j p_j^2 with p_j the
// share of all ratings in category j. NaN when Pe is 1 (every rating in
// one category).
func FleissKappa(counts [][]int) (float64, error) {
	if len(counts) == 0 {
		return 0, fmt.Errorf("fleiss kappa: no items")
	}
	m, k := 0, len(counts[0])
	for _, n := range counts[0] {
		m += n
	}
	if m < 2 {
		return 0, fmt.Errorf("fleiss kappa: item 1 has %d ratings, want at least 2", m)
	}
	total := make([]float64, k)
	var pbar float64
	for i, row := range counts {
		if len(row) != k {
			return 0, fmt.Errorf("fleiss kappa: item %d has %d categories, item 1 has %d", i+1, len(row), k)
		}
		s, agree := 0, 0
		for j, n := range row {
			if n < 0 {
				return 0, fmt.Errorf("fleiss kappa: item %d: negative count", i+1)
			}
			s += n
			agree += n * (n - 1)
			total[j] += float64(n)
		}
		if s != m {
			return 0, fmt.Errorf("fleiss kappa: item %d has %d ratings, item 1 has %d", i+1, s, m)
		}
		pbar += float64(agree) / float64(m*(m-1))
	}
	pbar /= float64(len(counts))
	var pe float64
	for _, t := range total {
		p := t / float64(m*len(counts))
		pe += p * p
	}
	return (pbar - pe) / (1 - pe), nil
}
