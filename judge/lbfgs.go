package judge

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/optimize"
)

// minimize minimises the smooth function fg (which returns f(x) and writes
// its gradient into grad) from x0 with gonum's L-BFGS (memory 10, its
// default More-Thuente line search). It stops after maxIter iterations, when
// the largest gradient component falls below gtol, or when f stops
// decreasing (gonum's FunctionConverge: relative change below 1e-12 over 20
// iterations). Reaching maxIter is not an error: the weights are then as
// good as the budget allows. It is deterministic for a given platform
// (gonum evaluates serially when Concurrent is 0).
func minimize(fg func(x, grad []float64) float64, x0 []float64, maxIter int, gtol float64) ([]float64, error) {
	// gonum asks for f and the gradient separately at the same x; compute
	// both once and serve the second call from a cache.
	var lastX, lastG []float64
	var lastF float64
	eval := func(x []float64) {
		if lastX != nil && equalFloats(lastX, x) {
			return
		}
		if lastX == nil {
			lastX, lastG = make([]float64, len(x)), make([]float64, len(x))
		}
		copy(lastX, x)
		lastF = fg(lastX, lastG)
	}
	p := optimize.Problem{
		Func: func(x []float64) float64 { eval(x); return lastF },
		Grad: func(grad, x []float64) { eval(x); copy(grad, lastG) },
	}
	settings := &optimize.Settings{
		GradientThreshold: gtol,
		MajorIterations:   maxIter,
		Converger:         &optimize.FunctionConverge{Relative: 1e-12, Iterations: 20},
	}
	res, err := optimize.Minimize(p, x0, settings, &optimize.LBFGS{Store: 10})
	if err != nil && !errors.Is(err, optimize.ErrLinesearcherFailure) && !isBudget(res) {
		return nil, fmt.Errorf("L-BFGS: %w", err)
	}
	if res == nil || math.IsNaN(res.F) {
		return nil, fmt.Errorf("L-BFGS: no result (%v)", err)
	}
	return res.X, nil
}

// isBudget reports whether the optimisation stopped on its iteration
// budget, which Minimize reports as a status, not a failure.
func isBudget(res *optimize.Result) bool {
	return res != nil && res.Status == optimize.IterationLimit
}

func equalFloats(a, b []float64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
