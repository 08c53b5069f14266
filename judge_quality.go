package ub

// A move judge is measured against careful labels (judge.Measurement); the
// report draws what was measured.

// CoveragePoint is one point of a risk-coverage curve: the labels kept when
// only the most confident share Coverage of them is kept.
type CoveragePoint struct {
	Coverage float64 `json:"coverage"`
	N        int     `json:"n"`        // labels kept
	Accuracy float64 `json:"accuracy"` // share of the kept labels that are right
	Kappa    float64 `json:"kappa"`    // Cohen's kappa of the kept labels against the reference
	Lo       float64 `json:"lo"`       // 95% interval of Kappa (Agree)
	Hi       float64 `json:"hi"`
}
