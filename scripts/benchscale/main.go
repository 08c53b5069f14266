// Command benchscale reads the steps scripts/bench-scale.sh measured and
// checks each against its bound: its peak RSS at most the --memory-limit
// in force plus 256 MiB at every scale, and its time exponent (the slope of
// log wall time against log episodes from the smallest to the largest scale
// of 10 or more that ran) at most 1.05 when two such scales ran. It prints
// the whole table, then exits 1 naming every step over its bound.
//
//	go run ./scripts/benchscale -limit 512MiB results.tsv
//
// results.tsv has one line per step run: scale, step, wall seconds, peak
// RSS in MiB, separated by tabs, and a fifth field "failed" for a step
// that exited non-zero (out of memory, say), which counts as over its
// bound.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/ub-bench/ub/queries"
)

// The bounds: RSS over the memory limit, the largest time exponent, and the
// least scale the exponent is taken from (below it, fixed costs such as
// opening the workspace weigh on the time).
const (
	rssSlackMiB  = 256
	maxExponent  = 1.05
	exponentFrom = 10
)

// A run is one step at one scale.
type run struct {
	scale  int
	step   string
	wall   float64 // seconds
	rssMiB float64
	failed bool // the step exited non-zero
}

func main() {
	limit := flag.String("limit", queries.DefaultMemoryLimit, "the --memory-limit every step ran at")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: benchscale [-limit SIZE] results.tsv")
		os.Exit(2)
	}
	limitBytes, err := queries.MemoryLimitBytes(*limit)
	if err != nil {
		fmt.Fprintf(os.Stderr, "benchscale: -limit %v\n", err)
		os.Exit(2)
	}
	f, err := os.Open(flag.Arg(0))
	if err != nil {
		fmt.Fprintf(os.Stderr, "benchscale: %v\n", err)
		os.Exit(2)
	}
	defer f.Close()
	runs, err := parseRuns(f, flag.Arg(0))
	if err != nil {
		fmt.Fprintf(os.Stderr, "benchscale: %v\n", err)
		os.Exit(2)
	}
	over := check(os.Stdout, runs, *limit, float64(limitBytes)/(1<<20))
	if len(over) > 0 {
		fmt.Fprintf(os.Stderr, "bench-scale: over its bound: %s\n", strings.Join(over, ", "))
		os.Exit(1)
	}
}

// parseRuns reads the lines of results.tsv; name is the file's, for errors.
func parseRuns(r io.Reader, name string) ([]run, error) {
	var runs []run
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		f := strings.Split(sc.Text(), "\t")
		failed := len(f) == 5 && f[4] == "failed"
		if len(f) != 4 && !failed {
			return nil, fmt.Errorf("%s:%d: want scale, step, seconds and MiB separated by tabs (and \"failed\" for a step that failed), got %q", name, n, sc.Text())
		}
		scale, err1 := strconv.Atoi(f[0])
		wall, err2 := strconv.ParseFloat(f[2], 64)
		rss, err3 := strconv.ParseFloat(f[3], 64)
		if err1 != nil || err2 != nil || err3 != nil || scale < 1 || wall < 0 || rss < 0 || f[1] == "" {
			return nil, fmt.Errorf("%s:%d: want a scale of 1 or more, a step, seconds and MiB, got %q", name, n, sc.Text())
		}
		runs = append(runs, run{scale, f[1], wall, rss, failed})
	}
	return runs, sc.Err()
}

// check writes the table of runs with each one's bound and verdict, then
// the time exponent of each step, and returns the steps over a bound, each
// with what it exceeded, in the order the steps first ran.
func check(w io.Writer, runs []run, limit string, limitMiB float64) []string {
	bound := limitMiB + rssSlackMiB
	fmt.Fprintf(w, "bound: peak RSS at most --memory-limit %s + %d MiB = %.0f MiB at every scale;\n", limit, rssSlackMiB, bound)
	fmt.Fprintf(w, "       time exponent at most %.2f from the smallest to the largest scale of %d or more (needs two)\n\n", maxExponent, exponentFrom)
	var steps []string
	byStep := map[string][]run{}
	for _, r := range runs {
		if _, ok := byStep[r.step]; !ok {
			steps = append(steps, r.step)
		}
		byStep[r.step] = append(byStep[r.step], r)
	}
	overs := map[string][]string{}
	fmt.Fprintf(w, "%-8s %6s %10s %10s %10s  %s\n", "step", "scale", "time", "peak RSS", "bound", "")
	for _, s := range steps {
		for _, r := range byStep[s] {
			verdict := "ok"
			if r.rssMiB > bound {
				verdict = "OVER"
				overs[s] = append(overs[s], fmt.Sprintf("x%d peak RSS %.0f MiB > %.0f MiB", r.scale, r.rssMiB, bound))
			}
			if r.failed {
				verdict = "FAILED"
				overs[s] = append(overs[s], fmt.Sprintf("x%d failed", r.scale))
			}
			fmt.Fprintf(w, "%-8s %6s %8.2f s %6.0f MiB %6.0f MiB  %s\n", s, "x"+strconv.Itoa(r.scale), r.wall, r.rssMiB, bound, verdict)
		}
	}
	fmt.Fprintln(w)
	for _, s := range steps {
		var big []run
		for _, r := range byStep[s] {
			if r.scale >= exponentFrom && !r.failed {
				big = append(big, r)
			}
		}
		sort.SliceStable(big, func(i, j int) bool { return big[i].scale < big[j].scale })
		if len(big) < 2 || big[0].scale == big[len(big)-1].scale {
			fmt.Fprintf(w, "%-8s time exponent not checked: %d scale(s) of %d or more ran, want two\n", s, len(big), exponentFrom)
			continue
		}
		lo, hi := big[0], big[len(big)-1]
		e := exponent(lo.wall, hi.wall, lo.scale, hi.scale)
		verdict := "ok"
		if e > maxExponent {
			verdict = "OVER"
			overs[s] = append(overs[s], fmt.Sprintf("time exponent %.2f > %.2f (x%d to x%d)", e, maxExponent, lo.scale, hi.scale))
		}
		fmt.Fprintf(w, "%-8s time exponent x%d to x%d %5.2f (bound %.2f)  %s; RSS exponent %.2f\n",
			s, lo.scale, hi.scale, e, maxExponent, verdict, exponent(lo.rssMiB, hi.rssMiB, lo.scale, hi.scale))
	}
	var out []string
	for _, s := range steps {
		if len(overs[s]) > 0 {
			out = append(out, s+" ("+strings.Join(overs[s], "; ")+")")
		}
	}
	return out
}

// exponent is the slope of log y against log scale between two runs: 1 is
// linear, 0 flat. A time of 0 (below /usr/bin/time's resolution) counts as
// 0.01 s.
func exponent(y0, y1 float64, s0, s1 int) float64 {
	y0, y1 = math.Max(y0, 0.01), math.Max(y1, 0.01)
	return math.Log(y1/y0) / math.Log(float64(s1)/float64(s0))
}
