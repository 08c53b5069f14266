// Package runnertest provides fakes of the model runner's endpoint for the
// tests of the packages whose steps go through it (as net/http/httptest does
// for HTTP servers).
package runnertest

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ub-bench/ub/sim/runner"
)

// Echo answers every request with its upper-cased last message, 1000 tokens
// in and 500 out, and refuses (HTTP 400, permanent) a message starting
// "bad". It counts its calls in calls.
func Echo(calls *atomic.Int64) runner.Backend {
	return runner.BackendFunc(func(_ context.Context, r runner.Request) (runner.Response, error) {
		calls.Add(1)
		m := r.Messages[len(r.Messages)-1].Content
		if strings.HasPrefix(m, "bad") {
			return runner.Response{}, &runner.CallError{Status: 400, Permanent: true, Msg: "bad request"}
		}
		return runner.Response{Text: strings.ToUpper(m), TokensIn: 1000, TokensOut: 500}, nil
	})
}

// Clock is virtual time for the runner (runner.Clock): Sleep returns at
// once and moves the clock on, so that retries and rate limits cost a test
// no wall time.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a Clock at 2025-01-01 00:00 UTC.
func NewClock() *Clock { return &Clock{now: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)} }

// Now is the virtual time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Sleep moves the virtual time on by d, or returns ctx's error when ctx is
// done.
func (c *Clock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if d > 0 {
		c.now = c.now.Add(d)
	}
	return nil
}
