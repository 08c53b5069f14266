package runner

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Backend answers requests, one attempt at a time. The runner owns retries,
// rate limits and the cache; a backend makes exactly one call per Call.
type Backend interface {
	// Call makes one attempt at req. It returns the answer, or an error:
	// a *CallError says whether retrying can help and how long the server
	// asked to wait; any other error is treated as retryable. Call must be
	// safe for concurrent use.
	Call(ctx context.Context, req Request) (Response, error)
}

// BackendFunc adapts a function to Backend (offline simulators, tests).
type BackendFunc func(ctx context.Context, req Request) (Response, error)

// Call calls f.
func (f BackendFunc) Call(ctx context.Context, req Request) (Response, error) { return f(ctx, req) }

// CallError is a failed attempt, classified. Its message never holds a
// secret: backends redact the API key before building one.
type CallError struct {
	Status     int           // HTTP status; 0 when no response arrived (timeout, reset, malformed body)
	RetryAfter time.Duration // the wait the server asked for (Retry-After); 0 when none
	Permanent  bool          // retrying the same request cannot succeed (see Classify)
	Endpoint   bool          // the endpoint refuses us (401, 403, 404): no request can succeed, the run stops
	Msg        string        // what went wrong, for people and the responses.error column
	Raw        []byte        // the error body as received, when it is JSON; nil otherwise
}

// Error returns the message with the status, e.g. "HTTP 429: rate limited".
func (e *CallError) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("HTTP %d: %s", e.Status, e.Msg)
	}
	return e.Msg
}

// Classify tells whether a failed call with HTTP status (0: no response)
// and error message msg is permanent (retrying the same request cannot
// help) and whether it is an endpoint failure (no request to this endpoint
// can succeed until its configuration is fixed). The table:
//
//	400, 413, 422, other 4xx  permanent (the request itself is wrong)
//	401, 403, 404             permanent and endpoint (key, permission, URL or model)
//	408, 409, 425, 429        retryable (timeout, conflict, too early, rate limit)
//	5xx                       retryable (server trouble, overload)
//	0                         retryable (timeout, connection reset, malformed body)
//	"context length" in msg   permanent whatever the status (some servers answer 500)
func Classify(status int, msg string) (permanent, endpoint bool) {
	if IsContextLength(msg) {
		return true, false
	}
	switch {
	case status == 0:
		return false, false
	case status == http.StatusUnauthorized, status == http.StatusForbidden, status == http.StatusNotFound:
		return true, true
	case status == http.StatusRequestTimeout, status == http.StatusConflict,
		status == http.StatusTooEarly, status == http.StatusTooManyRequests:
		return false, false
	case status >= 500:
		return false, false
	case status >= 400:
		return true, false
	}
	return false, false
}

// contextLengthMarkers are what OpenAI ("context_length_exceeded", "This
// model's maximum context length is ..."), vLLM ("maximum context length"),
// llama.cpp ("exceeds the available context size") and Ollama say when a
// prompt is too long.
var contextLengthMarkers = []string{
	"context_length_exceeded",
	"context length",
	"maximum context",
	"context size",
	"context window",
	"prompt is too long",
}

// IsContextLength reports whether an error message says the prompt is
// longer than the model's context.
func IsContextLength(msg string) bool {
	m := strings.ToLower(msg)
	for _, s := range contextLengthMarkers {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

// ParseRetryAfter reads the wait a response asks for: OpenAI's
// retry-after-ms (milliseconds), else Retry-After as seconds or an HTTP
// date (RFC 9110 section 10.2.3) relative to now. 0 when absent or past.
func ParseRetryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// asCallError classifies any error from a backend: a *CallError as it is,
// anything else as a retryable failure without status.
func asCallError(err error) *CallError {
	var ce *CallError
	if errors.As(err, &ce) {
		return ce
	}
	return &CallError{Msg: err.Error()}
}

// Clock is the runner's time: the wall clock in production, a fake one in
// tests so that backoffs and Retry-After waits take no real time.
type Clock interface {
	Now() time.Time
	// Sleep waits d or until ctx is done, whichever is first; it returns
	// ctx.Err() in the second case.
	Sleep(ctx context.Context, d time.Duration) error
}

// WallClock is the real time.
type WallClock struct{}

// Now returns time.Now().
func (WallClock) Now() time.Time { return time.Now() }

// Sleep waits d or until ctx is done.
func (WallClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
