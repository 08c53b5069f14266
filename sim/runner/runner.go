package runner

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
)

// RunOptions configures Run. The zero value is valid: 4 calls at once, no
// rate limit, 6 attempts per key, stored failures not sent again.
type RunOptions struct {
	Concurrency   int           // calls in flight at once; 0 means 4
	RatePerSecond float64       // token bucket refill in calls per second; 0 means unlimited
	Burst         int           // token bucket size; 0 means 1
	MaxAttempts   int           // calls per key in one run; 0 means 6
	BaseBackoff   time.Duration // ceiling of the first retry's wait; 0 means 1 s
	MaxBackoff    time.Duration // ceiling of any backoff; 0 means 60 s
	MaxRetryAfter time.Duration // longest Retry-After honoured; 0 means 5 min
	// RetryFailed sends again the keys stored with a retryable error (they
	// failed MaxAttempts times in an earlier run): --retry-failed.
	RetryFailed bool
	// RetryPermanent sends again the keys stored with a permanent error too.
	RetryPermanent bool
	// Grace is how long calls in flight when ctx is done may still finish;
	// what they bring back is stored. 0 aborts them at once.
	Grace time.Duration
	// MaxGroup is the most responses committed in one transaction; 0 means 256.
	MaxGroup int
	// CommitDelay is how long the writer, holding a response to commit,
	// may wait for more to commit with it, while calls are in flight and
	// answers have lately come faster than CommitDelay/2 apart: a DuckDB
	// commit costs milliseconds of CPU, so committing in groups keeps the
	// CPU per request low when answers are fast, and a slow endpoint's
	// answers are committed at once. 0 means 10 ms; negative means never
	// wait. It is measured on Clock; the wait itself is a timer of the
	// process (a fake Clock that does not advance makes every wait last
	// the whole CommitDelay, which only makes groups larger).
	CommitDelay time.Duration
	// Cost prices a response in USD (batch discount included); nil means 0.
	Cost func(Request, Response) float64
	// Progress is called with the totals so far after the cache lookup and
	// after every key that is finished and stored; calls never overlap. Keep
	// it cheap: workers wait for it. nil means silent.
	Progress func(RunStats)
	// Clock measures time and sleeps (backoff, rate limit); nil means WallClock.
	Clock Clock
	// Rand draws the backoff jitter; nil means a PCG source seeded (1, 2).
	Rand *rand.Rand
}

func (o RunOptions) withDefaults() RunOptions {
	if o.Concurrency <= 0 {
		o.Concurrency = 4
	}
	if o.Burst <= 0 {
		o.Burst = 1
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = 6
	}
	if o.BaseBackoff <= 0 {
		o.BaseBackoff = time.Second
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 60 * time.Second
	}
	if o.MaxRetryAfter <= 0 {
		o.MaxRetryAfter = 5 * time.Minute
	}
	if o.MaxGroup <= 0 {
		o.MaxGroup = 256
	}
	if o.CommitDelay == 0 {
		o.CommitDelay = 10 * time.Millisecond
	}
	if o.Clock == nil {
		o.Clock = WallClock{}
	}
	if o.Rand == nil {
		o.Rand = rand.New(rand.NewPCG(1, 2))
	}
	return o
}

// RunStats are the totals of a run. Keys count distinct requests.
type RunStats struct {
	Requests        int           // requests given, duplicates included
	Unique          int           // distinct keys among them: the run's total
	Cached          int           // keys answered in the store before the run: not sent
	SkippedFailed   int           // keys stored as failed and not sent again (see RetryFailed)
	ToSend          int           // keys the run set out to send
	Sent            int           // keys sent at least once
	Attempts        int           // calls made
	Retries         int           // calls after a key's first
	Answered        int           // keys answered in this run
	FailedPermanent int           // keys that failed permanently in this run
	FailedRetryable int           // keys still failing after MaxAttempts calls
	Unfinished      int           // keys left when the run stopped early (ctx done, endpoint error)
	TokensIn        int64         // input tokens of this run's answers
	TokensOut       int64         // output tokens of this run's answers
	Cost            float64       // USD of this run's answers (RunOptions.Cost)
	Elapsed         time.Duration // since the run started
}

// Failed is the number of keys that failed in this run.
func (s RunStats) Failed() int { return s.FailedPermanent + s.FailedRetryable }

// Done is the number of keys settled so far, cache hits included: the
// progress bar's position out of Unique.
func (s RunStats) Done() int { return s.Cached + s.SkippedFailed + s.Answered + s.Failed() }

// ETA estimates the time left from the pace of this run's finished keys;
// 0 before any has finished.
func (s RunStats) ETA() time.Duration {
	fin := s.Answered + s.Failed()
	if fin == 0 {
		return 0
	}
	left := s.ToSend - fin
	if left <= 0 {
		return 0
	}
	return time.Duration(float64(s.Elapsed) / float64(fin) * float64(left))
}

// ErrEndpoint is wrapped by Run's error when the endpoint refused a call in
// a way no request can overcome (401, 403, 404, missing API key): the run
// stops, and such failures are not stored, so fixing the configuration and
// running again sends what is missing.
var ErrEndpoint = errors.New("endpoint refused the call")

// Run sends every request whose key has no final answer in store to
// backend and stores each answer or final failure the moment it arrives.
//
// Requests with equal keys are sent once. A key the store has answered is a
// cache hit; a key stored as failed is sent again only with RetryFailed
// (retryable failures) or RetryPermanent. A call is retried, at most
// MaxAttempts calls in all, after a retryable failure (see Classify), with
// exponential backoff and full jitter: a wait drawn uniformly from
// [0, min(MaxBackoff, BaseBackoff * 2^(n-1))) after the n-th failure
// (Brooker, "Exponential Backoff And Jitter", AWS Architecture Blog, 2015),
// and never shorter than the server's Retry-After; a 429 or 503 with
// Retry-After also pauses every worker's next call until then. A permanent
// failure is stored at once; a retryable one after the last attempt, so
// that RetryFailed can send it again later.
//
// Durability: one writer goroutine owns the store for the run and commits
// whatever responses are queued in one transaction (group commit; see
// CommitDelay); a key counts as done, and its worker moves on, only once
// its commit returned. After a kill -9 every counted key is stored and a
// re-run sends none of them again; what can be lost is only what arrived
// in the last CommitDelay plus one commit (tens of milliseconds), and that
// is sent again.
//
// Run drives one endpoint (Concurrency and the rate limit are that
// endpoint's): run one per simulator, concurrently if wanted, over one
// Store, which is safe for concurrent use.
//
// When ctx is done no new call starts; calls in flight get opts.Grace to
// finish and are stored; Run returns the totals and ctx's error. Run
// returns an error wrapping ErrEndpoint when the endpoint refuses us, and
// the store's error when a commit fails.
func Run(ctx context.Context, reqs []Request, backend Backend, store Store, opts RunOptions) (RunStats, error) {
	return RunSeq(ctx, func(yield func(Request, error) bool) {
		for _, q := range reqs {
			if !yield(q, nil) {
				return
			}
		}
	}, backend, store, opts)
}

// RunSeq is Run over requests that are still being made: the first are sent
// while the rest are read from reqs, and the store is asked about their keys
// in chunks (of 1, 2, 4, ... up to 512 keys: the keys of one chunk are sent
// while the next is made), so that the first call starts as soon as the first
// request is made, however many follow. reqs runs on a goroutine of its
// own, never concurrently with itself, and has ended when RunSeq returns.
//
// The totals are those of Run over the same requests: they grow as reqs is
// read, and when the run stops early (ctx done, the endpoint refusing us) the
// rest of reqs is still read and looked up, unsent, so that it counts among
// ToSend and Unfinished. An error from reqs stops the run at once (nothing
// more is sent; the calls in flight are stored) and is returned.
func RunSeq(ctx context.Context, reqs iter.Seq2[Request, error], backend Backend, store Store, opts RunOptions) (RunStats, error) {
	opts = opts.withDefaults()
	r := &runner{opts: opts, backend: backend, store: store, start: opts.Clock.Now()}
	return r.run(ctx, reqs)
}

// maxLookup is the most keys looked up in the store at once.
const maxLookup = 512

// read pulls reqs, drops the keys seen before, looks up the new ones in the
// store in chunks and sends the chunks' keys to send on todo. Once runCtx
// is done it reads on and counts, but sends nothing.
func (r *runner) read(ctx, runCtx context.Context, reqs iter.Seq2[Request, error], todo chan<- []*item) error {
	lctx := context.WithoutCancel(ctx) // the rest is counted after a stop too
	index := map[string]bool{}
	var pending []*item
	size := 1
	flush := func() error {
		keys := make([]string, len(pending))
		for i, it := range pending {
			keys[i] = it.key
		}
		var stored map[string]Stored
		if len(keys) > 0 {
			var err error
			if stored, err = r.store.Lookup(lctx, keys); err != nil {
				return fmt.Errorf("run: look up the cache: %w", err)
			}
		}
		var send []*item
		r.mu.Lock()
		for _, it := range pending {
			s, ok := stored[it.key]
			switch {
			case !ok:
			case s.Answered():
				r.stats.Cached++
				continue
			case s.Permanent && !r.opts.RetryPermanent, !s.Permanent && !r.opts.RetryFailed:
				r.stats.SkippedFailed++
				continue
			default:
				it.prior = s.Attempts
			}
			send = append(send, it)
		}
		r.stats.ToSend += len(send)
		r.mu.Unlock()
		r.progress()
		pending = nil
		size = min(2*size, maxLookup)
		if len(send) > 0 && runCtx.Err() == nil {
			select {
			case todo <- send:
			case <-runCtx.Done():
			}
		}
		return nil
	}
	for q, err := range reqs {
		if err != nil {
			return err
		}
		canon := q.Canonical()
		k := keyOf(canon)
		r.mu.Lock()
		r.stats.Requests++
		if !index[k] {
			r.stats.Unique++
		}
		r.mu.Unlock()
		if index[k] {
			continue
		}
		index[k] = true
		pending = append(pending, &item{req: q, key: k, canonical: canon})
		if len(pending) >= size {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

type item struct {
	req       Request
	key       string
	canonical []byte
	prior     int // attempts of earlier runs
}

type runner struct {
	opts    RunOptions
	backend Backend
	store   Store
	start   time.Time

	mu     sync.Mutex // guards stats, runErr
	stats  RunStats
	runErr error

	progressMu sync.Mutex
	randMu     sync.Mutex
	inflight   atomic.Int64 // calls under way
	bucket     *bucket
	writes     chan commit
	stop       context.CancelCauseFunc
}

type commit struct {
	entry Entry
	done  chan error
}

// run sends the requests of reqs that the store lacks and stores every
// answer. It starts, in turn: the rate-limit bucket and a call context
// that outlives ctx by opts.Grace (answers in flight when the run stops
// still arrive and are stored); the writer, the one owner of the store,
// committing queued answers together; 4 x Concurrency workers sharing
// Concurrency call slots; and the reader, which looks requests up in the
// store and queues the keys to send. It then feeds the queue to the
// workers, waits for reader, workers and writer in that order, and returns
// the run's counts and its first error.
func (r *runner) run(ctx context.Context, reqs iter.Seq2[Request, error]) (RunStats, error) {
	opts := r.opts
	r.bucket = newBucket(opts.RatePerSecond, opts.Burst, opts.Clock)
	runCtx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	r.stop = stop

	// Calls run on a context that outlives ctx by opts.Grace, so answers in
	// flight when the run is stopped can still arrive and be stored.
	callCtx, abort := context.WithCancel(context.WithoutCancel(ctx))
	defer abort()
	go func() {
		select {
		case <-runCtx.Done():
		case <-callCtx.Done():
			return
		}
		if opts.Grace > 0 {
			_ = opts.Clock.Sleep(callCtx, opts.Grace)
		}
		abort()
	}()

	// The writer owns the store for the run: it commits whatever is queued
	// together, then tells each waiting worker.
	r.writes = make(chan commit, 4*opts.Concurrency)
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		wctx := context.WithoutCancel(ctx)
		batch := make([]commit, 0, opts.MaxGroup)
		entries := make([]Entry, 0, opts.MaxGroup)
		timer := time.NewTimer(time.Hour)
		timer.Stop()
		// The writer waits for company only when answers have been
		// arriving faster than CommitDelay/2 apart (an exponentially
		// weighted mean of the gaps): against a slow endpoint every answer
		// is committed at once.
		var last time.Time
		gap := 2 * opts.CommitDelay
		arrived := func() {
			now := opts.Clock.Now()
			if !last.IsZero() {
				gap = (4*gap + now.Sub(last)) / 5
			}
			last = now
		}
		for c := range r.writes {
			arrived()
			batch = append(batch[:0], c)
			deadline := opts.Clock.Now().Add(opts.CommitDelay)
		collect:
			for len(batch) < opts.MaxGroup {
				select {
				case c, ok := <-r.writes:
					if !ok {
						break collect
					}
					arrived()
					batch = append(batch, c)
					continue
				default:
				}
				wait := deadline.Sub(opts.Clock.Now())
				if wait <= 0 || gap > opts.CommitDelay/2 || r.inflight.Load() == 0 {
					break // nothing queued, and nothing worth waiting for
				}
				timer.Reset(wait)
				select {
				case c, ok := <-r.writes:
					timer.Stop() // Go >= 1.23: no stale tick survives Stop
					if !ok {
						break collect
					}
					arrived()
					batch = append(batch, c)
				case <-timer.C:
					break collect
				}
			}
			entries = entries[:0]
			for _, c := range batch {
				entries = append(entries, c.entry)
			}
			err := r.store.Put(wctx, entries)
			for _, c := range batch {
				c.done <- err
			}
		}
	}()

	// Four workers per call slot: a worker waiting for its commit (up to
	// CommitDelay plus the commit) or sleeping in backoff does not hold a
	// slot, and another can use it meanwhile.
	slots := make(chan struct{}, opts.Concurrency)
	jobs := make(chan *item)
	var workers errgroup.Group // a worker's outcome is in r.stats and r.runErr
	for range 4 * opts.Concurrency {
		workers.Go(func() error {
			for it := range jobs {
				r.do(runCtx, callCtx, slots, it)
			}
			return nil
		})
	}
	// The reader looks the requests up as they come; the keys to send wait
	// in queue until a worker takes them.
	chunks := make(chan []*item)
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		defer close(chunks)
		if err := r.read(ctx, runCtx, reqs, chunks); err != nil {
			r.fail(err)
		}
	}()
	var queue []*item
	in := chunks
feed:
	for in != nil || len(queue) > 0 {
		var out chan *item
		var head *item
		if len(queue) > 0 {
			out, head = jobs, queue[0]
		}
		select {
		case c, ok := <-in:
			if !ok {
				in = nil
				continue
			}
			queue = append(queue, c...)
		case out <- head:
			queue[0] = nil
			queue = queue[1:]
		case <-runCtx.Done():
			break feed
		}
	}
	close(jobs)
	if in != nil {
		for range in { // stopped: the reader counts the rest and sends none
		}
	}
	<-readDone
	workers.Wait()
	close(r.writes)
	<-writerDone

	s := r.snapshot()
	s.Unfinished = s.ToSend - s.Answered - s.Failed()
	r.mu.Lock()
	err := r.runErr
	r.mu.Unlock()
	if err == nil {
		err = ctx.Err()
	}
	return s, err
}

// do sends one key until it is answered, fails for good, or the run stops.
func (r *runner) do(runCtx, callCtx context.Context, slots chan struct{}, it *item) {
	opts := r.opts
	for attempt := 1; ; attempt++ {
		select {
		case slots <- struct{}{}:
		case <-runCtx.Done():
			return
		}
		if err := r.bucket.wait(runCtx); err != nil {
			<-slots
			return
		}
		r.inflight.Add(1)
		resp, err := r.backend.Call(callCtx, it.req)
		r.inflight.Add(-1)
		<-slots
		r.mu.Lock()
		r.stats.Attempts++
		if attempt == 1 {
			r.stats.Sent++
		} else {
			r.stats.Retries++
		}
		r.mu.Unlock()

		if err == nil {
			resp.Err, resp.Permanent = "", false
			resp.Attempts = it.prior + attempt
			r.finish(it, resp)
			return
		}
		if callCtx.Err() != nil {
			return // aborted by us: the key stays missing
		}
		ce := asCallError(err)
		if ce.Endpoint {
			r.fail(fmt.Errorf("%w: %s", ErrEndpoint, ce.Error()))
			return
		}
		failed := Response{Err: ce.Error(), Permanent: ce.Permanent, Attempts: it.prior + attempt,
			LatencyMS: resp.LatencyMS, Raw: ce.Raw}
		if ce.Permanent {
			r.finish(it, failed)
			return
		}
		if runCtx.Err() != nil {
			return // stopping: a retryable failure is not final
		}
		if attempt >= opts.MaxAttempts {
			r.finish(it, failed)
			return
		}
		ra := min(ce.RetryAfter, opts.MaxRetryAfter)
		if ra > 0 && (ce.Status == http.StatusTooManyRequests || ce.Status == http.StatusServiceUnavailable) {
			r.bucket.pauseUntil(opts.Clock.Now().Add(ra))
		}
		if opts.Clock.Sleep(runCtx, r.backoff(attempt, ra)) != nil {
			return
		}
	}
}

// backoff is the wait after the n-th failed call: full jitter over the
// exponential ceiling, and at least retryAfter.
func (r *runner) backoff(n int, retryAfter time.Duration) time.Duration {
	ceil := r.opts.MaxBackoff
	if n-1 < 32 {
		if c := r.opts.BaseBackoff << (n - 1); c > 0 && c < ceil {
			ceil = c
		}
	}
	r.randMu.Lock()
	d := time.Duration(r.opts.Rand.Float64() * float64(ceil))
	r.randMu.Unlock()
	return max(d, retryAfter)
}

// finish stores the key's final response, waits for the commit, then counts
// it and reports progress.
func (r *runner) finish(it *item, resp Response) {
	done := make(chan error, 1)
	r.writes <- commit{entry: Entry{Request: it.req, Response: resp, canonical: it.canonical}, done: done}
	if err := <-done; err != nil {
		r.fail(fmt.Errorf("run: store %s: %w", it.key, err))
		return
	}
	var cost float64
	if resp.Err == "" && r.opts.Cost != nil {
		cost = r.opts.Cost(it.req, resp)
	}
	r.mu.Lock()
	switch {
	case resp.Err == "":
		r.stats.Answered++
		r.stats.TokensIn += int64(resp.TokensIn)
		r.stats.TokensOut += int64(resp.TokensOut)
		r.stats.Cost += cost
	case resp.Permanent:
		r.stats.FailedPermanent++
	default:
		r.stats.FailedRetryable++
	}
	r.mu.Unlock()
	r.progress()
}

// fail records the run's first fatal error and stops the run.
func (r *runner) fail(err error) {
	r.mu.Lock()
	if r.runErr == nil {
		r.runErr = err
	}
	r.mu.Unlock()
	r.stop(err)
}

func (r *runner) snapshot() RunStats {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.stats
	s.Elapsed = r.opts.Clock.Now().Sub(r.start)
	return s
}

func (r *runner) progress() {
	if r.opts.Progress == nil {
		return
	}
	r.progressMu.Lock()
	defer r.progressMu.Unlock()
	r.opts.Progress(r.snapshot())
}

// bucket is a token bucket: rate tokens per second up to burst, one per
// call; a call without a token reserves the next one and waits for it.
// pauseUntil holds every call until a time (a server's Retry-After).
type bucket struct {
	mu     sync.Mutex
	rate   float64
	burst  float64
	tokens float64
	last   time.Time
	paused time.Time
	clock  Clock
}

func newBucket(rate float64, burst int, clock Clock) *bucket {
	return &bucket{rate: rate, burst: float64(burst), tokens: float64(burst), last: clock.Now(), clock: clock}
}

func (b *bucket) pauseUntil(t time.Time) {
	b.mu.Lock()
	if t.After(b.paused) {
		b.paused = t
	}
	b.mu.Unlock()
}

func (b *bucket) wait(ctx context.Context) error {
	for {
		b.mu.Lock()
		now := b.clock.Now()
		if now.Before(b.paused) {
			d := b.paused.Sub(now)
			b.mu.Unlock()
			if err := b.clock.Sleep(ctx, d); err != nil {
				return err
			}
			continue
		}
		if b.rate <= 0 {
			b.mu.Unlock()
			return ctx.Err()
		}
		if now.After(b.last) {
			b.tokens = min(b.burst, b.tokens+now.Sub(b.last).Seconds()*b.rate)
			b.last = now
		}
		b.tokens--
		if b.tokens >= 0 {
			b.mu.Unlock()
			return ctx.Err()
		}
		d := time.Duration(-b.tokens / b.rate * float64(time.Second))
		b.mu.Unlock()
		return b.clock.Sleep(ctx, d)
	}
}
