package main

import (
	"reflect"
	"strings"
	"testing"
)

// TestCheckBounds: a made-up table at 512MiB (bound 768 MiB). synth is
// within both bounds; import peaks at 900 MiB at x100; report's time grows
// as scale^1.2 from x10 to x100 (2 s to 31.7 s) though within at x1 to x10;
// probes is over both. Each over-bound step is named once, in the order
// the steps ran, with everything it exceeded.
func TestCheckBounds(t *testing.T) {
	table := strings.Join([]string{
		"1\tsynth\t0.40\t144", "1\timport\t0.30\t135", "1\tprobes\t0.30\t113", "1\treport\t0.60\t161",
		"10\tsynth\t2.2\t291", "10\timport\t1.6\t227", "10\tprobes\t2.0\t800", "10\treport\t2.0\t261",
		"100\tsynth\t21.3\t487", "100\timport\t16.0\t900", "100\tprobes\t40\t489", "100\treport\t31.7\t700",
	}, "\n") + "\n"
	runs, err := parseRuns(strings.NewReader(table), "results.tsv")
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	over := check(&out, runs, "512MiB", 512)
	t.Log("\n" + out.String())
	want := []string{
		"import (x100 peak RSS 900 MiB > 768 MiB)",
		"probes (x10 peak RSS 800 MiB > 768 MiB; time exponent 1.30 > 1.05 (x10 to x100))",
		"report (time exponent 1.20 > 1.05 (x10 to x100))",
	}
	if !reflect.DeepEqual(over, want) {
		t.Errorf("over = %q\nwant %q", over, want)
	}
	for _, line := range []string{
		"bound: peak RSS at most --memory-limit 512MiB + 256 MiB = 768 MiB",
		"synth        x1     0.40 s    144 MiB    768 MiB  ok",
		"import     x100    16.00 s    900 MiB    768 MiB  OVER",
		"synth    time exponent x10 to x100  0.99 (bound 1.05)  ok",
	} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("table lacks %q", line)
		}
	}
}

// TestCheckOneLargeScale: with scales 1 and 10 (one scale of 10 or more)
// no time exponent is checked, however steep, and a step within its RSS
// bound passes; the bound follows the limit (128 MiB: 384 MiB).
func TestCheckOneLargeScale(t *testing.T) {
	runs := []run{{1, "report", 0.1, 100, false}, {10, "report", 10, 380, false}, {1, "probes", 0.1, 100, false}, {10, "probes", 1, 390, false}}
	var out strings.Builder
	over := check(&out, runs, "128MiB", 128)
	if want := []string{"probes (x10 peak RSS 390 MiB > 384 MiB)"}; !reflect.DeepEqual(over, want) {
		t.Errorf("over = %q, want %q\n%s", over, want, out.String())
	}
	if !strings.Contains(out.String(), "report   time exponent not checked: 1 scale(s) of 10 or more ran, want two") {
		t.Errorf("table:\n%s\nwant the exponent marked not checked", out.String())
	}
}

// TestCheckFailedStep: a step that exited non-zero (the import out of
// memory at x100) is named as over its bound whatever its RSS, and its
// time does not enter the exponent, which is then not checked.
func TestCheckFailedStep(t *testing.T) {
	runs, err := parseRuns(strings.NewReader("10\timport\t1.6\t227\n100\timport\t3.0\t600\tfailed\n"), "results.tsv")
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	over := check(&out, runs, "512MiB", 512)
	if want := []string{"import (x100 failed)"}; !reflect.DeepEqual(over, want) {
		t.Errorf("over = %q, want %q\n%s", over, want, out.String())
	}
	for _, line := range []string{"import     x100     3.00 s    600 MiB    768 MiB  FAILED", "import   time exponent not checked: 1 scale(s)"} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("table:\n%s\nlacks %q", out.String(), line)
		}
	}
}

// TestParseRunsNamesTheLine: a malformed line is an error naming the file
// and the line.
func TestParseRunsNamesTheLine(t *testing.T) {
	for _, bad := range []string{"1\tsynth\t0.4\t1\n10\tsynth\tx\t3\n", "1\tsynth\t0.4\t1\n10\tsynth\t1\n", "1\tsynth\t0.4\t1\n10\tsynth\t1\t2\tok\n"} {
		_, err := parseRuns(strings.NewReader(bad), "r.tsv")
		if err == nil || !strings.HasPrefix(err.Error(), "r.tsv:2: ") {
			t.Errorf("%q: error %v, want one naming r.tsv:2", bad, err)
		}
	}
}
