package synth

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/ub-bench/ub/queries"
)

// BenchmarkWrite writes the UserBench study of seed 1 at scales 1 and 10
// into a workspace file.
func BenchmarkWrite(b *testing.B) {
	for _, scale := range []int{1, 10} {
		b.Run(fmt.Sprintf("scale=%d", scale), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				ctx := context.Background()
				ws, err := queries.Open(ctx, filepath.Join(b.TempDir(), "ub.duckdb"), queries.Options{})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := Write(ctx, ws, Options{Seed: 1, Scale: scale}); err != nil {
					b.Fatal(err)
				}
				ws.Close()
			}
		})
	}
}
