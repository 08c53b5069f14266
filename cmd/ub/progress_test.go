package main

import (
	"strings"
	"testing"
	"time"
)

// TestIngestProgressRate: the ingest bar's rate is the bytes done over the
// wall time since the work began, and no rate is shown before a second has
// passed (a first update right after the start showed "(66 GB/s)").
func TestIngestProgressRate(t *testing.T) {
	var errb strings.Builder
	set, done := progress(&streams{err: &errb, tty: true}, "ingest")
	set(10_000_000_000, 20_000_000_000) // a whole file read at once, at once
	done()
	if s := errb.String(); !strings.Contains(s, "ingest  50% 10.0 GB / 20.0 GB") || strings.Contains(s, "/s") {
		t.Errorf("first update right after the start: %q, want 50%% and no rate", s)
	}

	// 100 MB in 2 s of wall time is 50 MB/s; 250 MB in 5 s is 50 MB/s.
	clock := time.Unix(0, 0)
	now := func() time.Time { return clock }
	errb.Reset()
	set, _ = progressAt(&streams{err: &errb, tty: true}, "ingest", now)
	clock = clock.Add(500 * time.Millisecond)
	set(30_000_000, 1_000_000_000)
	clock = clock.Add(1500 * time.Millisecond)
	set(100_000_000, 1_000_000_000)
	clock = clock.Add(3 * time.Second)
	set(250_000_000, 1_000_000_000)
	want := "\r" + "ingest   3% 30.0 MB / 1.0 GB\x1b[K" +
		"\r" + "ingest  10% 100 MB / 1.0 GB (50.0 MB/s)\x1b[K" +
		"\r" + "ingest  25% 250 MB / 1.0 GB (50.0 MB/s)\x1b[K"
	if got := errb.String(); got != want {
		t.Errorf("bar:\n got %q\nwant %q", got, want)
	}
}
