package ingest

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ub-bench/ub/queries"
)

// benchJSONL writes (once per size) a canonical JSONL file of about mb
// megabytes: sessions of 6-30 turns with texts of realistic length.
func benchJSONL(b *testing.B, mb int) string {
	b.Helper()
	path := filepath.Join(os.TempDir(), fmt.Sprintf("ub-bench-%dmb.jsonl", mb))
	if fi, err := os.Stat(path); err == nil && fi.Size() >= int64(mb)<<20 {
		return path
	}
	f, err := os.Create(path + ".tmp")
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("the parser cache retry loop fails when input is empty please add tests for config loader why does it crash on large files refactor into smaller functions looks good commit")
	text := func(n int) string {
		var sb strings.Builder
		for i := 0; i < n; i++ {
			if i > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(words[r.IntN(len(words))])
		}
		return sb.String()
	}
	var size int64
	roles := []string{"developer", "agent", "tool", "agent"}
	for i := 0; size < int64(mb)<<20; i++ {
		type turn struct {
			Role string `json:"role"`
			Text string `json:"text"`
			TS   string `json:"ts"`
		}
		s := struct {
			ID        string `json:"id"`
			Developer string `json:"developer"`
			Repo      string `json:"repo"`
			StartedAt string `json:"started_at"`
			Turns     []turn `json:"turns"`
		}{ID: fmt.Sprintf("s%07d", i), Developer: fmt.Sprintf("dev%d", i%5000), Repo: fmt.Sprintf("org/repo%d", i%7000),
			StartedAt: time.Date(2025, 1, 1, 0, 0, i, 0, time.UTC).Format(time.RFC3339)}
		for j := 0; j < 6+r.IntN(25); j++ {
			n := 5 + r.IntN(40)
			if roles[j%4] == "tool" {
				n = 20 + r.IntN(200)
			}
			s.Turns = append(s.Turns, turn{roles[j%4], text(n), time.Date(2025, 1, 1, 0, j, i, 0, time.UTC).Format(time.RFC3339)})
		}
		line, _ := json.Marshal(s)
		line = append(line, '\n')
		f.Write(line)
		size += int64(len(line))
	}
	f.Close()
	if err := os.Rename(path+".tmp", path); err != nil {
		b.Fatal(err)
	}
	return path
}

// peakHeap samples the Go heap while fn runs and returns its peak in bytes.
// DuckDB's own buffers are outside the Go heap; they are bounded by its
// memory_limit, the same for both sides of the comparison.
func peakHeap(fn func()) uint64 {
	return samplePeak(20*time.Millisecond, func() uint64 {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapInuse
	}, fn)
}

// samplePeak calls read every interval while fn runs and returns the
// largest value it read.
func samplePeak(interval time.Duration, read func() uint64, fn func()) uint64 {
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			if v := read(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-stop:
				return
			case <-time.After(interval):
			}
		}
	}()
	fn()
	close(stop)
	wg.Wait()
	return peak.Load()
}

// BenchmarkIngestJSONL compares ub ingest of a canonical JSONL file with
// DuckDB's read_json loading the same rows into the same tables, in the same
// run, at two file sizes (peak Go heap should stay flat as the file grows).
func BenchmarkIngestJSONL(b *testing.B) {
	for _, mb := range []int{100, 200, 400} {
		path := benchJSONL(b, mb)
		fi, _ := os.Stat(path)
		b.Run(fmt.Sprintf("ub/%dMB", mb), func(b *testing.B) {
			b.SetBytes(fi.Size())
			var peak uint64
			for i := 0; i < b.N; i++ {
				ws := benchWorkspace(b)
				b.StartTimer()
				peak = max(peak, peakHeap(func() {
					if _, err := Run(context.Background(), ws, []string{path}, Options{NewProber: testProber}); err != nil {
						b.Fatal(err)
					}
				}))
				b.StopTimer()
				ws.Close()
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
		})
		b.Run(fmt.Sprintf("read_json/%dMB", mb), func(b *testing.B) {
			b.SetBytes(fi.Size())
			var peak uint64
			for i := 0; i < b.N; i++ {
				ws := benchWorkspace(b)
				b.StartTimer()
				peak = max(peak, peakHeap(func() {
					if err := readJSONInto(ws, path); err != nil {
						b.Fatal(err)
					}
				}))
				b.StopTimer()
				ws.Close()
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
		})
	}
}

func benchWorkspace(b *testing.B) *queries.Workspace {
	b.StopTimer()
	dir := b.TempDir()
	ws, err := queries.Open(context.Background(), filepath.Join(dir, "b.duckdb"), queries.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return ws
}

// readJSONInto is the reference: DuckDB's read_json loads the same file into
// the same sessions and turns tables.
func readJSONInto(ws *queries.Workspace, path string) error {
	ctx := context.Background()
	lit := "'" + strings.ReplaceAll(path, "'", "''") + "'"
	stmts := []string{
		`BEGIN`,
		`CREATE TEMP TABLE raw AS SELECT * FROM read_json(` + lit + `, format = 'newline_delimited',
		   columns = {id: 'VARCHAR', developer: 'VARCHAR', repo: 'VARCHAR', started_at: 'VARCHAR',
		              turns: 'STRUCT(role VARCHAR, text VARCHAR, ts VARCHAR)[]'})`,
		`INSERT INTO sessions SELECT id, developer, repo, started_at::TIMESTAMP, 'jsonl', ` + lit + `, 0, id, len(turns), NULL FROM raw`,
		`INSERT INTO turns SELECT id, i - 1, turns[i].role, turns[i].text, turns[i].ts::TIMESTAMP, false, NULL
		   FROM (SELECT id, turns, generate_subscripts(turns, 1) AS i FROM raw)`,
		`DROP TABLE raw`,
		`COMMIT`,
	}
	for _, s := range stmts {
		if _, err := ws.Conn().ExecContext(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s[:min(len(s), 40)], err)
		}
	}
	return nil
}
