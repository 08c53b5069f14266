package analysis

import (
	"math"
	"testing"
)

// Anscombe (1973), "Graphs in statistical analysis", The American
// Statistician 27(1), 17-21: four data sets with the same summary
// statistics, r = 0.816 (Anscombe's 3 decimals; R's cor() on
// datasets::anscombe gives 0.8164205, 0.8162365, 0.8162867, 0.8165214).
var (
	anscombeX  = []float64{10, 8, 13, 9, 11, 14, 6, 4, 12, 7, 5}
	anscombeY1 = []float64{8.04, 6.95, 7.58, 8.81, 8.33, 9.96, 7.24, 4.26, 10.84, 4.82, 5.68}
	anscombeY2 = []float64{9.14, 8.14, 8.74, 8.77, 9.26, 8.10, 6.13, 3.10, 9.13, 7.26, 4.74}
	anscombeY3 = []float64{7.46, 6.77, 12.74, 7.11, 7.81, 8.84, 6.08, 5.39, 8.15, 6.42, 5.73}
	anscombeX4 = []float64{8, 8, 8, 8, 8, 8, 8, 19, 8, 8, 8}
	anscombeY4 = []float64{6.58, 5.76, 7.71, 8.84, 8.47, 7.04, 5.25, 12.50, 5.56, 7.91, 6.89}
)

func TestPearson(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name    string
		x, y    []float64
		wantErr bool
		r, p    float64
		n       int
		tol     float64
	}{
		// R: cor.test(anscombe$x1, anscombe$y1) prints t = 4.2415, df = 9,
		// p-value = 0.00217, cor 0.8164205.
		{name: "Anscombe I is 0.8164 with p 0.00217", x: anscombeX, y: anscombeY1,
			r: 0.8164205, p: 0.0021696, n: 11, tol: 5e-7},
		// The p-values of II-IV are R's cor.test output (0.002179, 0.002176,
		// 0.002165), to 7 decimals from an mpmath evaluation of the t tail.
		{name: "Anscombe II is 0.8162", x: anscombeX, y: anscombeY2, r: 0.8162365, p: 0.0021788, n: 11, tol: 5e-7},
		{name: "Anscombe III is 0.8163", x: anscombeX, y: anscombeY3, r: 0.8162867, p: 0.0021763, n: 11, tol: 5e-7},
		{name: "Anscombe IV is 0.8165", x: anscombeX4, y: anscombeY4, r: 0.8165214, p: 0.0021646, n: 11, tol: 5e-7},
		{name: "an exact line is 1 with p 0", x: []float64{1, 2, 3, 4}, y: []float64{3, 5, 7, 9},
			r: 1, p: 0, n: 4, tol: 1e-12},
		{name: "a falling line is -1", x: []float64{1, 2, 3}, y: []float64{3, 2, 1}, r: -1, p: 0, n: 3, tol: 1e-12},
		{name: "two pairs have r but no p", x: []float64{1, 2}, y: []float64{5, 7}, r: 1, p: nan, n: 2, tol: 1e-12},
		{name: "one pair is NaN", x: []float64{1}, y: []float64{2}, r: nan, p: nan, n: 1},
		{name: "constant x is NaN", x: []float64{2, 2, 2}, y: []float64{1, 2, 3}, r: nan, p: nan, n: 3},
		{name: "a NaN value gives NaN", x: []float64{1, nan, 3}, y: []float64{1, 2, 3}, r: nan, p: nan, n: 3},
		{name: "length mismatch is an error", x: []float64{1, 2}, y: []float64{1}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Pearson(tt.x, tt.y)
			if tt.wantErr {
				if err == nil {
					t.Fatal("no error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkFloat(t, "R", got.R, tt.r, tt.tol)
			if got.N != tt.n {
				t.Errorf("N = %d, want %d", got.N, tt.n)
			}
			checkFloat(t, "P", got.P, tt.p, tt.tol)
		})
	}
}

func TestSpearman(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name    string
		x, y    []float64
		wantErr bool
		r, p    float64
		tol     float64
	}{
		// Wikipedia, "Spearman's rank correlation coefficient", worked
		// example: IQ against hours of TV per week for 10 people, no ties,
		// sum d^2 = 194, rho = 1 - 6*194/(10*99) = -29/165 = -0.175758.
		// Its t approximation: t = rho sqrt(8/(1-rho^2)) = -0.504978 on 8 df,
		// two-sided p = 0.627188 (t tail evaluated independently in mpmath;
		// R's cor.test(exact = FALSE) prints 0.6272).
		{name: "IQ against TV hours is -29/165",
			x: []float64{106, 86, 100, 101, 99, 103, 97, 113, 112, 110},
			y: []float64{7, 0, 27, 50, 28, 29, 20, 12, 6, 17},
			r: -29.0 / 165, p: 0.627188, tol: 5e-7},
		// By hand with a tie: x ranks (1, 2.5, 2.5, 4), y ranks (1, 3, 2, 4);
		// centred (-1.5, 0, 0, 1.5) and (-1.5, 0.5, -0.5, 1.5); cross sum 4.5,
		// sums of squares 4.5 and 5, rho = 4.5 / sqrt(22.5) = 3/sqrt(10) =
		// 0.948683. With n = 4 (2 df), t = r sqrt(2/(1-r^2)) = 3 sqrt(2) and
		// the 2-df tail 1/2 - t/(2 sqrt(t^2+2)) makes p = 1 - |r| = 0.051317.
		{name: "a tie takes the average rank: 3/sqrt(10)",
			x: []float64{1, 2, 2, 3}, y: []float64{1, 3, 2, 4},
			r: 3 / math.Sqrt(10), p: 1 - 3/math.Sqrt(10), tol: 1e-12},
		{name: "a monotone curve is 1",
			x: []float64{1, 2, 3, 4, 5}, y: []float64{1, 8, 27, 64, 125}, r: 1, p: 0, tol: 1e-12},
		{name: "a reversed order is -1",
			x: []float64{1, 2, 3, 4}, y: []float64{10, 5, 2, 1}, r: -1, p: 0, tol: 1e-12},
		{name: "a NaN value gives NaN", x: []float64{1, nan, 3}, y: []float64{1, 2, 3}, r: nan, p: nan},
		{name: "length mismatch is an error", x: []float64{1}, y: nil, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Spearman(tt.x, tt.y)
			if tt.wantErr {
				if err == nil {
					t.Fatal("no error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkFloat(t, "R", got.R, tt.r, tt.tol)
			checkFloat(t, "P", got.P, tt.p, tt.tol)
		})
	}
}

func TestRanks(t *testing.T) {
	tests := []struct {
		name string
		xs   []float64
		want []float64
	}{
		{"distinct values keep their order", []float64{3, 1, 2}, []float64{3, 1, 2}},
		{"a tied pair shares rank 2.5", []float64{10, 20, 20, 30}, []float64{1, 2.5, 2.5, 4}},
		{"all tied share the middle rank", []float64{5, 5, 5}, []float64{2, 2, 2}},
		{"a tied triple shares rank 3", []float64{9, 1, 9, 0, 9}, []float64{4, 2, 4, 1, 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ranks(tt.xs)
			for i := range tt.want {
				checkFloat(t, "rank", got[i], tt.want[i], 0)
			}
		})
	}
}
