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
