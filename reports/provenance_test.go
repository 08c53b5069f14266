package reports

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ub-bench/ub/queries"
)

// TestSyntheticMark: a report drawn from made-up data says so in its title
// and on every figure, and its manifest names the commands that made the
// data and the ub that drew it; the user's own data carries no mark.
func TestSyntheticMark(t *testing.T) {
	r := synthReport(t, "", 1, 1)
	for _, synthetic := range []bool{false, true} {
		r.in.Synthetic = nil
		if synthetic {
			r.in.Synthetic = []queries.Origin{{Maker: "ub synth --study userbench", Detail: "seed 1, scale 1"}}
		}
		r.in.Build = Build{Version: "v1.2.3", Commit: "abc"}
		dir := t.TempDir()
		sum, err := r.WriteAll(dir)
		if err != nil {
			t.Fatal(err)
		}
		md, err := os.ReadFile(filepath.Join(dir, "report.md"))
		if err != nil {
			t.Fatal(err)
		}
		title := strings.SplitN(string(md), "\n", 2)[0]
		if got := strings.Contains(title, "synthetic data"); got != synthetic {
			t.Errorf("synthetic %v: title %q", synthetic, title)
		}
		const mark = "synthetic data (ub synth --study userbench, seed 1, scale 1): not measured"
		for _, name := range sum.Figures {
			svg, err := os.ReadFile(filepath.Join(dir, name+".svg"))
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(string(svg), ">"+mark+"</text>"); got != synthetic {
				t.Errorf("synthetic %v: %s.svg carries the mark: %v", synthetic, name, got)
			}
		}
		var man struct {
			UB        Build
			Synthetic []struct{ Maker, Detail string }
		}
		b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &man); err != nil {
			t.Fatal(err)
		}
		if man.UB != (Build{"v1.2.3", "abc"}) {
			t.Errorf("manifest ub = %+v", man.UB)
		}
		if got := len(man.Synthetic) == 1 && man.Synthetic[0].Maker == "ub synth --study userbench"; got != synthetic {
			t.Errorf("synthetic %v: manifest synthetic = %+v", synthetic, man.Synthetic)
		}
	}
}
