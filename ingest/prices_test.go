package ingest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadPricesRefusesNonPrices: NaN, infinite and negative prices and a
// read_on that is no date are refused with the file and the line.
func TestReadPricesRefusesNonPrices(t *testing.T) {
	cases := []struct{ name, toml, want string }{
		{"nan in", "read_on = \"2025-08-01\"\n[models.\"m\"]\nin = nan\nout = 1.0\n", "p.toml:3: model \"m\": in = NaN: want a price >= 0 ($ per million input tokens)"},
		{"inf out", "read_on = \"2025-08-01\"\n[models.\"m\"]\nin = 1.0\nout = inf\n", "p.toml:4: model \"m\": out = +Inf: want a price >= 0 ($ per million output tokens)"},
		{"-inf out", "read_on = \"2025-08-01\"\n[models.\"a\"]\nin = 1.0\nout = 2.0\n[models.\"m\"]\nin = 1.0\nout = -inf\n", "p.toml:7: model \"m\": out = -Inf"},
		{"negative in", "read_on = \"2025-08-01\"\n[models.m]\n  in = -0.5\nout = 1.0\n", "p.toml:3: model \"m\": in = -0.5: want a price >= 0"},
		{"not a date", "read_on = \"not a date\"\n[models.\"m\"]\nin = 1.0\nout = 1.0\n", "p.toml:1: read_on = \"not a date\": want a date YYYY-MM-DD"},
		{"model's date", "read_on = \"2025-08-01\"\n[models.\"m\"]\nin = 1.0\nout = 1.0\nread_on = \"2025-13-45\"\n", "p.toml:5: read_on = \"2025-13-45\": want a date YYYY-MM-DD"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "p.toml")
			os.WriteFile(p, []byte(c.toml), 0o644)
			_, err := ReadPrices(p)
			if err == nil {
				t.Fatal("accepted")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q, want it to hold %q", err, c.want)
			}
		})
	}
	p := filepath.Join(t.TempDir(), "p.toml")
	os.WriteFile(p, []byte("read_on = \"2025-08-01\"\n[models.\"m\"]\nin = 0.0\nout = 8.0\n"), 0o644)
	if ps, err := ReadPrices(p); err != nil || len(ps) != 1 || ps[0].PriceOut != 8 {
		t.Errorf("good table: %v %v", ps, err)
	}
}
