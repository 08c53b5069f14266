package judge

import "math"

// minimize minimises the smooth function fg (which returns f(x) and writes
// its gradient into grad) from x0 with L-BFGS (Nocedal & Wright, Numerical
// Optimization, 2nd ed., algorithm 7.4, memory 10) and a backtracking Armijo
// line search. It stops after maxIter iterations, when the largest gradient
// component falls below gtol, or when an iteration no longer decreases f.
// It is deterministic: every sum runs in index order, and explicit float64
// conversions keep the compiler from fusing multiply-adds, so results do not
// depend on the platform's FMA.
func minimize(fg func(x, grad []float64) float64, x0 []float64, maxIter int, gtol float64) []float64 {
	const mem = 10
	n := len(x0)
	x := append([]float64(nil), x0...)
	g := make([]float64, n)
	f := fg(x, g)
	var ss, ys [][]float64
	var rho []float64
	d := make([]float64, n)
	xn := make([]float64, n)
	gn := make([]float64, n)
	alpha := make([]float64, mem)
	for it := 0; it < maxIter; it++ {
		if normInf(g) < gtol {
			break
		}
		// Two-loop recursion: d = -H g.
		for i := range d {
			d[i] = -g[i]
		}
		for j := len(ss) - 1; j >= 0; j-- {
			alpha[j] = rho[j] * dot(ss[j], d)
			axpy(-alpha[j], ys[j], d)
		}
		if k := len(ss); k > 0 {
			gamma := dot(ss[k-1], ys[k-1]) / dot(ys[k-1], ys[k-1])
			for i := range d {
				d[i] = float64(d[i] * gamma)
			}
		} else {
			s := 1 / math.Max(norm2(g), 1e-12)
			for i := range d {
				d[i] = float64(d[i] * s)
			}
		}
		for j := 0; j < len(ss); j++ {
			beta := rho[j] * dot(ys[j], d)
			axpy(alpha[j]-beta, ss[j], d)
		}
		gd := dot(g, d)
		if gd >= 0 { // not a descent direction: restart from steepest descent
			ss, ys, rho = nil, nil, nil
			for i := range d {
				d[i] = -g[i]
			}
			gd = dot(g, d)
		}
		step := 1.0
		var fn float64
		ok := false
		for ls := 0; ls < 40; ls++ {
			for i := range x {
				xn[i] = x[i] + float64(step*d[i])
			}
			fn = fg(xn, gn)
			if fn <= f+float64(1e-4*step*gd) {
				ok = true
				break
			}
			step /= 2
		}
		if !ok {
			break
		}
		s := make([]float64, n)
		y := make([]float64, n)
		for i := range x {
			s[i] = xn[i] - x[i]
			y[i] = gn[i] - g[i]
		}
		if sy := dot(s, y); sy > 1e-12 {
			if len(ss) == mem {
				ss, ys, rho = ss[1:], ys[1:], rho[1:]
			}
			ss, ys, rho = append(ss, s), append(ys, y), append(rho, 1/sy)
		}
		done := f-fn <= 1e-12*math.Max(1, math.Abs(f))
		copy(x, xn)
		copy(g, gn)
		f = fn
		if done {
			break
		}
	}
	return x
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += float64(a[i] * b[i])
	}
	return s
}

func axpy(a float64, x, y []float64) {
	for i := range y {
		y[i] += float64(a * x[i])
	}
}

func norm2(a []float64) float64 { return math.Sqrt(dot(a, a)) }

func normInf(a []float64) float64 {
	var m float64
	for _, v := range a {
		m = math.Max(m, math.Abs(v))
	}
	return m
}
