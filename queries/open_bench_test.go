package queries

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
)

// Every ub command opens its workspace, and many tests make one: what an
// open costs, fresh in memory, fresh on disk (create's temporary file,
// migrated and linked into place) and an existing file.

func BenchmarkOpenFresh(b *testing.B) {
	for i := 0; i < b.N; i++ {
		ws, err := Open(context.Background(), "", Options{})
		if err != nil {
			b.Fatal(err)
		}
		ws.Close()
	}
}

func BenchmarkOpenFreshFile(b *testing.B) {
	d := b.TempDir()
	for i := 0; i < b.N; i++ {
		ws, err := Open(context.Background(), filepath.Join(d, fmt.Sprint(i)+".duckdb"), Options{})
		if err != nil {
			b.Fatal(err)
		}
		ws.Close()
	}
}

func BenchmarkOpenExisting(b *testing.B) {
	p := filepath.Join(b.TempDir(), "w.duckdb")
	ws, err := Open(context.Background(), p, Options{})
	if err != nil {
		b.Fatal(err)
	}
	ws.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ws, err := Open(context.Background(), p, Options{})
		if err != nil {
			b.Fatal(err)
		}
		ws.Close()
	}
}

// TestWordsOnEveryOpen: ub_words is known on every open of a workspace,
// the first and one of a workspace this process has open already (DuckDB
// gives it the same database, where the function is registered once).
func TestWordsOnEveryOpen(t *testing.T) {
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), "w.duckdb")
	var open []*Workspace
	defer func() {
		for _, ws := range open {
			ws.Close()
		}
	}()
	for i, o := range []Options{{}, {}, {}} {
		ws, err := Open(ctx, p, o)
		if err != nil {
			t.Fatalf("open %d: %v", i+1, err)
		}
		open = append(open, ws)
		var n int
		if err := ws.Conn().QueryRowContext(ctx, `SELECT ub_words('two words')`).Scan(&n); err != nil || n != 2 {
			t.Errorf("open %d: ub_words gives %d, %v; want 2", i+1, n, err)
		}
	}
}
