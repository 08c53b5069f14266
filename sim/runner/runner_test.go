package runner

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/sim/simtest"
)

// fakeClock is virtual time: Sleep returns at once and moves the clock on,
// and every wait is recorded.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sleeps = append(c.sleeps, d)
	if d > 0 {
		c.now = c.now.Add(d)
	}
	return nil
}

func (c *fakeClock) waits() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.sleeps...)
}

// testRequests returns n distinct requests to baseURL; the i-th asks about
// item i.
func testRequests(n int, baseURL string) []Request {
	t := 0.7
	reqs := make([]Request, n)
	for i := range reqs {
		reqs[i] = Request{
			Backend: "openai", BaseURL: baseURL, Model: "test-model",
			Params: Params{Temperature: &t, MaxTokens: 64},
			Messages: []Message{
				{Role: "system", Content: "You are the developer."},
				{Role: "user", Content: fmt.Sprintf("The agent finished step %d. What do you say next?", i)},
			},
		}
	}
	return reqs
}

func memWorkspace(t testing.TB) *queries.Workspace {
	t.Helper()
	ws, err := queries.Open(context.Background(), "", queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}

func keysOf(reqs []Request) []string {
	keys := make([]string, len(reqs))
	for i, r := range reqs {
		keys[i] = r.Key()
	}
	return keys
}

// planByKey answers the requests of the listed server keys with the given
// faults (one per attempt, OK after the list), every other request OK.
func planByKey(m map[string][]simtest.Fault) simtest.Plan {
	return func(key string, attempt int) simtest.Fault {
		fs := m[key]
		if attempt <= len(fs) {
			return fs[attempt-1]
		}
		return simtest.Fault{}
	}
}

func TestRunFaultyServerEveryKeySettledNoneResent(t *testing.T) {
	ctx := context.Background()
	const n = 240
	// Rates chosen so that most keys meet at least one fault over six
	// attempts, and a few a permanent 400.
	plan := simtest.RandomPlan(7, map[simtest.Kind]float64{
		simtest.RateLimit: 0.10, simtest.ServerError: 0.08, simtest.Unavailable: 0.04,
		simtest.Slow: 0.04, simtest.Malformed: 0.06, simtest.Reset: 0.06, simtest.BadRequest: 0.02,
	}, simtest.Fault{RetryAfter: "2", Delay: 3 * time.Second}, 0)
	srv := simtest.New(simtest.Options{Plan: plan})
	defer srv.Close()
	reqs := testRequests(n, srv.BaseURL())
	reqs = append(reqs, reqs[:20]...) // duplicates are sent once
	store := NewDuckStore(memWorkspace(t))
	clock := newFakeClock()
	// Slow answers (3 s) time out (1 s); the timeout is loose enough that a
	// normal answer never does, even under -race on a busy machine (a
	// timeout racing a written answer would be a second completion).
	be := NewOpenAI(OpenAIConfig{BaseURL: srv.BaseURL(), Timeout: time.Second})
	var last RunStats
	st, err := Run(ctx, reqs, be, store, RunOptions{
		Concurrency: 8, MaxAttempts: 6, Clock: clock, Rand: rand.New(rand.NewPCG(3, 4)),
		Progress: func(s RunStats) {
			if s.Done() < last.Done() {
				t.Errorf("progress went back: %d after %d", s.Done(), last.Done())
			}
			last = s
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if st.Requests != n+20 || st.Unique != n || st.ToSend != n || st.Sent != n {
		t.Errorf("requests %d unique %d to send %d sent %d, want %d %d %d %d", st.Requests, st.Unique, st.ToSend, st.Sent, n+20, n, n, n)
	}
	if st.Answered+st.Failed() != n || st.Unfinished != 0 {
		t.Errorf("answered %d + failed %d != %d (unfinished %d)", st.Answered, st.Failed(), n, st.Unfinished)
	}
	if st.Retries == 0 || st.FailedPermanent == 0 {
		t.Errorf("the plan should force retries and permanent failures: %+v", st)
	}
	if last.Done() != n {
		t.Errorf("last progress done %d, want %d", last.Done(), n)
	}
	if bad := srv.AfterCompletion(); len(bad) > 0 {
		t.Errorf("%d requests sent after their key was completed, first %+v", len(bad), bad[0])
	}
	got, err := store.Get(ctx, keysOf(reqs[:n]))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n {
		t.Fatalf("%d rows, want %d", len(got), n)
	}
	completed := srv.Completed()
	for _, r := range reqs[:n] {
		sk := simtest.Key(r.Messages)
		resp := got[r.Key()]
		switch {
		case resp.Err == "":
			if resp.Text != simtest.Reply(sk) || completed[sk] != 1 {
				t.Errorf("key %s: text %q, completions %d", sk[:8], resp.Text, completed[sk])
			}
			if resp.TokensIn == 0 || resp.TokensOut == 0 || resp.FinishReason != "stop" || len(resp.Raw) == 0 {
				t.Errorf("key %s: answer without usage, finish reason or body: %+v", sk[:8], resp)
			}
		case resp.Permanent:
			if plan(sk, resp.Attempts).Kind != simtest.BadRequest {
				t.Errorf("key %s: permanent %q on attempt %d, the plan said %v", sk[:8], resp.Err, resp.Attempts, plan(sk, resp.Attempts).Kind)
			}
		default:
			if resp.Attempts != 6 {
				t.Errorf("key %s: retryable failure after %d attempts, want 6", sk[:8], resp.Attempts)
			}
		}
	}
}

func TestRunHonoursRetryAfter(t *testing.T) {
	ctx := context.Background()
	reqs := testRequests(1, "")
	sk := simtest.Key(reqs[0].Messages)
	srv := simtest.New(simtest.Options{Plan: planByKey(map[string][]simtest.Fault{
		sk: {{Kind: simtest.RateLimit, RetryAfter: "7"}, {Kind: simtest.Unavailable, RetryAfter: "3"}},
	})})
	defer srv.Close()
	store := NewMemStore()
	clock := newFakeClock()
	st, err := Run(ctx, reqs, NewOpenAI(OpenAIConfig{BaseURL: srv.BaseURL()}), store,
		RunOptions{BaseBackoff: time.Millisecond, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	if st.Answered != 1 || st.Retries != 2 || st.Attempts != 3 {
		t.Errorf("stats %+v, want 1 answered, 2 retries, 3 attempts", st)
	}
	// The backoffs alone are under 1 and 2 ms; the server asked for 7 s,
	// then 3 s. (The bucket's pause ends when the worker's own wait does.)
	w := clock.waits()
	if len(w) != 2 || w[0] != 7*time.Second || w[1] != 3*time.Second {
		t.Errorf("waits %v, want [7s 3s]", w)
	}
	if r := mustGet(t, store, reqs[0]); r.Err != "" || r.Attempts != 3 {
		t.Errorf("row %+v, want answered after 3 attempts", r)
	}
}

func TestRunPermanentFailureStoredOnceNotRetried(t *testing.T) {
	ctx := context.Background()
	reqs := testRequests(4, "")
	bad, long := simtest.Key(reqs[1].Messages), simtest.Key(reqs[2].Messages)
	srv := simtest.New(simtest.Options{Plan: planByKey(map[string][]simtest.Fault{
		bad:  {{Kind: simtest.BadRequest}},
		long: {{Kind: simtest.ContextLength}},
	})})
	defer srv.Close()
	store := NewDuckStore(memWorkspace(t))
	be := NewOpenAI(OpenAIConfig{BaseURL: srv.BaseURL()})
	opts := RunOptions{Concurrency: 2, Clock: newFakeClock()}
	st, err := Run(ctx, reqs, be, store, opts)
	if err != nil {
		t.Fatal(err)
	}
	if st.Answered != 2 || st.FailedPermanent != 2 || st.Retries != 0 {
		t.Errorf("stats %+v, want 2 answered, 2 permanent, no retry", st)
	}
	got, _ := store.Get(ctx, keysOf(reqs))
	for _, i := range []int{1, 2} {
		r := got[reqs[i].Key()]
		if !r.Permanent || r.Err == "" || r.Attempts != 1 {
			t.Errorf("request %d: %+v, want a permanent error after one attempt", i, r)
		}
	}
	if want := "HTTP 400: context_length_exceeded: This model's maximum context length"; got[reqs[2].Key()].Err[:len(want)] != want {
		t.Errorf("context length error %q", got[reqs[2].Key()].Err)
	}
	before := len(srv.Log())
	st, err = Run(ctx, reqs, be, store, opts)
	if err != nil {
		t.Fatal(err)
	}
	if st.Cached != 2 || st.SkippedFailed != 2 || st.Sent != 0 || len(srv.Log()) != before {
		t.Errorf("second run %+v sent %d requests, want none", st, len(srv.Log())-before)
	}
	opts.RetryPermanent = true
	st, err = Run(ctx, reqs, be, store, opts)
	if err != nil {
		t.Fatal(err)
	}
	if st.Sent != 2 || st.Answered != 2 {
		t.Errorf("run with RetryPermanent: %+v, want the 2 permanent failures sent and answered", st)
	}
}

func TestRunRetryableFailureStoredThenRetryFailed(t *testing.T) {
	ctx := context.Background()
	reqs := testRequests(3, "")
	sk := simtest.Key(reqs[0].Messages)
	five := []simtest.Fault{{Kind: simtest.ServerError}, {Kind: simtest.Malformed}, {Kind: simtest.Reset}}
	srv := simtest.New(simtest.Options{Plan: planByKey(map[string][]simtest.Fault{sk: five})})
	defer srv.Close()
	store := NewDuckStore(memWorkspace(t))
	be := NewOpenAI(OpenAIConfig{BaseURL: srv.BaseURL()})
	opts := RunOptions{MaxAttempts: 3, Clock: newFakeClock()}
	st, err := Run(ctx, reqs, be, store, opts)
	if err != nil {
		t.Fatal(err)
	}
	if st.Answered != 2 || st.FailedRetryable != 1 || st.Retries != 2 {
		t.Errorf("stats %+v", st)
	}
	failed, _ := store.FailedKeys(ctx, false)
	if len(failed) != 1 || failed[0] != reqs[0].Key() {
		t.Errorf("failed keys %v, want [%s]", failed, reqs[0].Key())
	}
	row := mustGet(t, store, reqs[0])
	if row.Permanent || row.Attempts != 3 || row.Err == "" {
		t.Errorf("row %+v, want a retryable error after 3 attempts", row)
	}
	before := len(srv.Log())
	if st, _ = Run(ctx, reqs, be, store, opts); st.Sent != 0 || st.SkippedFailed != 1 || len(srv.Log()) != before {
		t.Errorf("plain re-run %+v sent something", st)
	}
	opts.RetryFailed = true
	if st, _ = Run(ctx, reqs, be, store, opts); st.Sent != 1 || st.Answered != 1 {
		t.Errorf("re-run with RetryFailed %+v, want the failed key sent and answered", st)
	}
	if row = mustGet(t, store, reqs[0]); row.Err != "" || row.Attempts != 4 {
		t.Errorf("row %+v, want answered on the 4th attempt in all", row)
	}
	if failed, _ = store.FailedKeys(ctx, true); len(failed) != 0 {
		t.Errorf("failed keys %v after retry", failed)
	}
}

func mustGet(t *testing.T, s Store, r Request) Response {
	t.Helper()
	m, err := s.Get(context.Background(), []string{r.Key()})
	if err != nil {
		t.Fatal(err)
	}
	resp, ok := m[r.Key()]
	if !ok {
		t.Fatalf("no row for %s", r.Key())
	}
	return resp
}

func TestRunSecondRunIsAllCacheHits(t *testing.T) {
	ctx := context.Background()
	srv := simtest.New(simtest.Options{})
	defer srv.Close()
	reqs := testRequests(50, srv.BaseURL())
	store := NewDuckStore(memWorkspace(t))
	be := NewOpenAI(OpenAIConfig{BaseURL: srv.BaseURL()})
	price := func(_ Request, r Response) float64 { return float64(r.TokensIn)*2e-6 + float64(r.TokensOut)*8e-6 }
	st, err := Run(ctx, reqs, be, store, RunOptions{Concurrency: 8, Cost: price})
	if err != nil || st.Answered != 50 {
		t.Fatalf("first run %+v %v", st, err)
	}
	if st.Cost <= 0 || st.TokensIn == 0 || st.TokensOut == 0 {
		t.Errorf("first run without tokens or cost: %+v", st)
	}
	sent := len(srv.Log())
	st, err = Run(ctx, reqs, be, store, RunOptions{Concurrency: 8, Cost: price})
	if err != nil {
		t.Fatal(err)
	}
	if st.Cached != 50 || st.Sent != 0 || st.Cost != 0 || len(srv.Log()) != sent {
		t.Errorf("second run %+v sent %d requests, want 50 cache hits and none", st, len(srv.Log())-sent)
	}
}

func TestRunEndpointRefusalStopsAndStoresNothing(t *testing.T) {
	ctx := context.Background()
	srv := simtest.New(simtest.Options{Plan: func(string, int) simtest.Fault { return simtest.Fault{Kind: simtest.Unauthorized} }})
	defer srv.Close()
	reqs := testRequests(40, "")
	store := NewMemStore()
	st, err := Run(ctx, reqs, NewOpenAI(OpenAIConfig{BaseURL: srv.BaseURL()}), store, RunOptions{Concurrency: 2})
	if !errors.Is(err, ErrEndpoint) {
		t.Fatalf("err %v, want ErrEndpoint", err)
	}
	if store.Len() != 0 || st.Unfinished != 40 || len(srv.Log()) > 4 {
		t.Errorf("stored %d, unfinished %d, sent %d: want nothing stored and the run stopped", store.Len(), st.Unfinished, len(srv.Log()))
	}
	// A missing key is the same refusal, found before any call.
	t.Setenv("UB_TEST_MISSING_KEY", "")
	_, err = Run(ctx, reqs, NewOpenAI(OpenAIConfig{BaseURL: srv.BaseURL(), APIKeyEnv: "UB_TEST_MISSING_KEY"}), store, RunOptions{})
	if !errors.Is(err, ErrEndpoint) || store.Len() != 0 {
		t.Errorf("missing key: err %v, stored %d", err, store.Len())
	}
}

func TestRunCancelStoresCallsInFlight(t *testing.T) {
	srv := simtest.New(simtest.Options{Latency: 300 * time.Millisecond})
	defer srv.Close()
	reqs := testRequests(20, "")
	store := NewMemStore()
	ctx, cancel := context.WithCancel(context.Background())
	go func() { // cancel once the first 4 calls have reached the server
		for srv.Events() < 4 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	st, err := Run(ctx, reqs, NewOpenAI(OpenAIConfig{BaseURL: srv.BaseURL()}), store,
		RunOptions{Concurrency: 4, Grace: 5 * time.Second})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if st.Answered != 4 || store.Len() != 4 || st.Unfinished != 16 {
		t.Errorf("answered %d, stored %d, unfinished %d: want the 4 calls in flight stored, 16 left", st.Answered, store.Len(), st.Unfinished)
	}
	if n := len(srv.Log()); n != 4 {
		t.Errorf("server saw %d requests, want 4", n)
	}
}

func TestRunGroupCommit(t *testing.T) {
	// A store whose commits take 20 ms while 32 answers arrive at once:
	// they must be committed in groups, not one by one.
	inner := NewMemStore()
	store := &slowStore{MemStore: inner, delay: 20 * time.Millisecond}
	be := BackendFunc(func(_ context.Context, r Request) (Response, error) {
		return Response{Text: "ok " + r.Messages[1].Content}, nil
	})
	reqs := testRequests(64, "")
	st, err := Run(context.Background(), reqs, be, store, RunOptions{Concurrency: 32})
	if err != nil || st.Answered != 64 {
		t.Fatalf("%+v %v", st, err)
	}
	if p := inner.Puts(); p > 16 {
		t.Errorf("%d commits for 64 answers, want groups", p)
	}
}

type slowStore struct {
	*MemStore
	delay time.Duration
}

func (s *slowStore) Put(ctx context.Context, e []Entry) error {
	time.Sleep(s.delay)
	return s.MemStore.Put(ctx, e)
}

func TestRunStoreFailureStopsRun(t *testing.T) {
	be := BackendFunc(func(context.Context, Request) (Response, error) { return Response{Text: "x"}, nil })
	boom := errors.New("disk full")
	store := &failStore{MemStore: NewMemStore(), err: boom}
	st, err := Run(context.Background(), testRequests(30, ""), be, store, RunOptions{Concurrency: 2})
	if !errors.Is(err, boom) || st.Answered != 0 {
		t.Errorf("err %v, answered %d: want the store's error and nothing counted", err, st.Answered)
	}
}

type failStore struct {
	*MemStore
	err error
}

func (s *failStore) Put(context.Context, []Entry) error { return s.err }

func TestBucketRate(t *testing.T) {
	clock := newFakeClock()
	b := newBucket(10, 2, clock)
	start := clock.Now()
	for range 22 {
		if err := b.wait(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	// Two calls from the full bucket, then one every 100 ms.
	if got := clock.Now().Sub(start); got < 1990*time.Millisecond || got > 2010*time.Millisecond {
		t.Errorf("22 calls at 10/s with burst 2 took %v, want 2 s", got)
	}
	b.pauseUntil(clock.Now().Add(30 * time.Second))
	before := clock.Now()
	_ = b.wait(context.Background())
	if got := clock.Now().Sub(before); got < 30*time.Second {
		t.Errorf("paused bucket let a call through after %v", got)
	}
}

func TestRunRateLimitWallClock(t *testing.T) {
	be := BackendFunc(func(context.Context, Request) (Response, error) { return Response{Text: "x"}, nil })
	start := time.Now()
	_, err := Run(context.Background(), testRequests(11, ""), be, NewMemStore(), RunOptions{Concurrency: 8, RatePerSecond: 50})
	if err != nil {
		t.Fatal(err)
	}
	// 11 calls at 50/s with burst 1: the last starts 10 * 20 ms after the first.
	if d := time.Since(start); d < 190*time.Millisecond {
		t.Errorf("11 calls at 50/s took %v, want >= 200 ms", d)
	}
}

func TestBackoffFullJitter(t *testing.T) {
	r := &runner{opts: RunOptions{BaseBackoff: time.Second, MaxBackoff: 10 * time.Second}.withDefaults()}
	r.opts.Rand = rand.New(rand.NewPCG(9, 9))
	for n := 1; n <= 40; n++ {
		ceil := min(10*time.Second, time.Second<<min(n-1, 20))
		for range 50 {
			d := r.backoff(n, 0)
			if d < 0 || d >= ceil {
				t.Fatalf("backoff(%d) = %v outside [0, %v)", n, d, ceil)
			}
		}
		if d := r.backoff(n, 12*time.Second); d < 12*time.Second {
			t.Fatalf("backoff(%d, Retry-After 12s) = %v", n, d)
		}
	}
	// The same seed gives the same waits.
	a := &runner{opts: RunOptions{Rand: rand.New(rand.NewPCG(5, 6))}.withDefaults()}
	b := &runner{opts: RunOptions{Rand: rand.New(rand.NewPCG(5, 6))}.withDefaults()}
	for n := 1; n < 8; n++ {
		if x, y := a.backoff(n, 0), b.backoff(n, 0); x != y {
			t.Fatalf("seeded backoffs differ: %v %v", x, y)
		}
	}
}

func TestRunStatsETA(t *testing.T) {
	s := RunStats{ToSend: 100, Answered: 20, FailedPermanent: 5, Elapsed: 50 * time.Second}
	if got, want := s.ETA(), 150*time.Second; got != want {
		t.Errorf("ETA %v, want %v (25 done in 50 s, 75 left)", got, want)
	}
	if (RunStats{ToSend: 3}).ETA() != 0 {
		t.Error("ETA before any finished key should be 0")
	}
}

// The crash test runs the runner in a child process (this test binary,
// re-executed into TestCrashChild), kills it with SIGKILL mid-run, and runs
// again to completion in this process.
const (
	crashEnv = "UB_SIM_CRASH_CHILD"
	crashN   = 300
	crashC   = 8
)

func TestCrashChild(t *testing.T) {
	if os.Getenv(crashEnv) == "" {
		return // only the child of TestRunSurvivesKill9 runs this
	}
	ctx := context.Background()
	ws, err := queries.Open(ctx, os.Getenv("UB_SIM_CRASH_DB"), queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	url := os.Getenv("UB_SIM_CRASH_URL")
	_, err = Run(ctx, testRequests(crashN, url), NewOpenAI(OpenAIConfig{BaseURL: url}), NewDuckStore(ws), RunOptions{Concurrency: crashC})
	t.Fatalf("the child should have been killed, but its run ended: %v", err)
}

func TestRunSurvivesKill9(t *testing.T) {
	ctx := context.Background()
	srv := simtest.New(simtest.Options{Latency: 25 * time.Millisecond})
	defer srv.Close()
	db := filepath.Join(t.TempDir(), "ub.duckdb")
	ws, err := queries.Open(ctx, db, queries.Options{}) // migrate before the child runs
	if err != nil {
		t.Fatal(err)
	}
	ws.Close()

	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashEnv+"=1", "UB_SIM_CRASH_DB="+db, "UB_SIM_CRASH_URL="+srv.BaseURL())
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() }) // if the test fails before the kill
	deadline := time.Now().Add(60 * time.Second)
	for len(srv.Completed()) < crashN/3 {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("child made no progress: %s", out.String())
		}
		time.Sleep(2 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil {
		t.Fatalf("child exited cleanly before the kill: %s", out.String())
	}

	ws, err = queries.Open(ctx, db, queries.Options{})
	if err != nil {
		t.Fatalf("reopen after kill -9: %v", err)
	}
	defer ws.Close()
	store := NewDuckStore(ws)
	reqs := testRequests(crashN, srv.BaseURL())
	before, err := store.Get(ctx, keysOf(reqs))
	if err != nil {
		t.Fatal(err)
	}
	if len(before) == 0 || len(before) == crashN {
		t.Fatalf("%d of %d keys stored at the kill, want some but not all", len(before), crashN)
	}
	mark := srv.Events()

	st, err := Run(ctx, reqs, NewOpenAI(OpenAIConfig{BaseURL: srv.BaseURL()}), store, RunOptions{Concurrency: crashC})
	if err != nil {
		t.Fatal(err)
	}
	if st.Cached != len(before) || st.Answered != crashN-len(before) {
		t.Errorf("re-run: %d cached, %d answered; %d were stored before", st.Cached, st.Answered, len(before))
	}
	// Nothing stored before the kill was sent again.
	for _, e := range srv.Log() {
		if e.Arrived <= mark {
			continue
		}
		for _, r := range reqs {
			if simtest.Key(r.Messages) == e.Key {
				if _, ok := before[r.Key()]; ok {
					t.Errorf("key %s was stored before the kill and sent again", e.Key[:8])
				}
			}
		}
	}
	// Every key has exactly one row.
	var rows, keys int
	if err := ws.Conn().QueryRowContext(ctx, `SELECT count(*), count(DISTINCT key) FROM responses`).Scan(&rows, &keys); err != nil {
		t.Fatal(err)
	}
	if rows != crashN || keys != crashN {
		t.Errorf("%d rows for %d keys, want %d each", rows, keys, crashN)
	}
	// The server completed each stored key once; a key it completed twice
	// was answered to the child but not yet committed at the kill, at most
	// one per worker.
	twice := 0
	for _, r := range reqs {
		c := srv.Completed()[simtest.Key(r.Messages)]
		_, stored := before[r.Key()]
		switch {
		case c == 1:
		case c == 2 && !stored:
			twice++
		default:
			t.Errorf("key %s completed %d times (stored before kill: %v)", r.Key()[:8], c, stored)
		}
	}
	if twice > 4*crashC {
		t.Errorf("%d keys answered to the child and lost, want at most %d (the workers)", twice, 4*crashC)
	}
	t.Logf("stored before kill: %d of %d; answered but lost in flight: %d", len(before), crashN, twice)
}

type lockedBuffer struct {
	mu sync.Mutex
	b  []byte
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b = append(l.b, p...)
	return len(p), nil
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return string(l.b)
}

// BenchmarkRunnerThroughput measures the runner against the fake server
// with a fixed latency L and concurrency C over a file-backed workspace, so
// every commit is real. The server runs in a child process (this test
// binary, re-executed into TestFakeServerChild) so that the CPU measured is
// the runner's alone. Metrics: share-of-C/L is the throughput as a share of
// the ideal C/L (target >= 0.9); cpu-us/req is the runner process's user +
// sys CPU time (getrusage) per request (target < 1000).
func BenchmarkRunnerThroughput(b *testing.B) {
	for _, c := range []struct {
		conc    int
		latency time.Duration
		n       int
	}{{16, 20 * time.Millisecond, 2000}, {64, 20 * time.Millisecond, 4000}, {64, 100 * time.Millisecond, 3000}} {
		b.Run(fmt.Sprintf("C=%d/L=%v/N=%d", c.conc, c.latency, c.n), func(b *testing.B) {
			ctx := context.Background()
			url := startServerChild(b, c.latency)
			ws, err := queries.Open(ctx, filepath.Join(b.TempDir(), "bench.duckdb"), queries.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer ws.Close()
			store := NewDuckStore(ws)
			be := NewOpenAI(OpenAIConfig{BaseURL: url})
			b.ReportAllocs()
			var elapsed, cpu time.Duration
			total := 0
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				reqs := testRequests(c.n, url)
				for j := range reqs {
					reqs[j].Sample = i + 1 // fresh keys every iteration
				}
				cpu0 := cpuTime()
				t0 := time.Now()
				st, err := Run(ctx, reqs, be, store, RunOptions{Concurrency: c.conc})
				elapsed += time.Since(t0)
				cpu += cpuTime() - cpu0
				if err != nil || st.Answered != c.n {
					b.Fatalf("%+v %v", st, err)
				}
				total += c.n
			}
			ideal := float64(c.conc) / c.latency.Seconds()
			rate := float64(total) / elapsed.Seconds()
			b.ReportMetric(rate, "req/s")
			b.ReportMetric(rate/ideal, "share-of-C/L")
			b.ReportMetric(float64(cpu.Microseconds())/float64(total), "cpu-us/req")
		})
	}
}

// TestFakeServerChild is the fake server process of the benchmark: it
// prints its base URL and serves until its standard input closes.
func TestFakeServerChild(t *testing.T) {
	lat := os.Getenv("UB_SIM_SERVER_CHILD")
	if lat == "" {
		return // only the benchmark's child runs this
	}
	d, err := time.ParseDuration(lat)
	if err != nil {
		t.Fatal(err)
	}
	srv := simtest.New(simtest.Options{Latency: d})
	defer srv.Close()
	fmt.Printf("URL %s\n", srv.BaseURL())
	io.Copy(io.Discard, os.Stdin)
}

// startServerChild starts TestFakeServerChild and returns its base URL.
func startServerChild(b *testing.B, latency time.Duration) string {
	cmd := exec.Command(os.Args[0], "-test.run=^TestFakeServerChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "UB_SIM_SERVER_CHILD="+latency.String())
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
	})
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if url, ok := strings.CutPrefix(sc.Text(), "URL "); ok {
			go io.Copy(io.Discard, stdout)
			return url
		}
	}
	b.Fatalf("fake server child gave no URL: %v", sc.Err())
	return ""
}

// cpuTime is the process's user plus system CPU time (getrusage).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestDuckStoreReplacesKeyItHasNotSeen(t *testing.T) {
	ctx := context.Background()
	ws := memWorkspace(t)
	req := testRequests(2, "")
	first := NewDuckStore(ws)
	if err := first.Put(ctx, []Entry{{Request: req[0], Response: Response{Err: "HTTP 500: boom", Attempts: 6}}}); err != nil {
		t.Fatal(err)
	}
	// A second store over the same workspace has not seen the key: its
	// append fails on the primary key and it falls back to replacing.
	second := NewDuckStore(ws)
	err := second.Put(ctx, []Entry{
		{Request: req[0], Response: Response{Text: "late answer", Attempts: 7, Raw: json.RawMessage(`{"ok":true}`)}},
		{Request: req[1], Response: Response{Text: "other", Raw: json.RawMessage(`not json`)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := first.Get(ctx, keysOf(req))
	if err != nil {
		t.Fatal(err)
	}
	if r := got[req[0].Key()]; r.Text != "late answer" || r.Err != "" || r.Attempts != 7 || string(r.Raw) != `{"ok":true}` {
		t.Errorf("replaced row %+v", r)
	}
	if r := got[req[1].Key()]; r.Text != "other" || r.Raw != nil {
		t.Errorf("row with a body that is not JSON: %+v (want the body dropped)", r)
	}
	var n int
	ws.Conn().QueryRowContext(ctx, `SELECT count(*) FROM responses`).Scan(&n)
	if n != 2 {
		t.Errorf("%d rows, want 2", n)
	}
	var req0 string
	ws.Conn().QueryRowContext(ctx, `SELECT CAST(request AS VARCHAR) FROM responses WHERE key = ?`, req[0].Key()).Scan(&req0)
	if req0 != string(req[0].Canonical()) {
		t.Errorf("request column %s, want the canonical request", req0)
	}
	failed, _ := second.FailedKeys(ctx, true)
	if len(failed) != 0 {
		t.Errorf("failed keys %v", failed)
	}
}
