// Package simtest is a fake OpenAI-compatible chat completions server for
// tests: it answers POST /v1/chat/completions in the documented wire format
// (https://platform.openai.com/docs/api-reference/chat/create), injects
// faults on demand (429 with Retry-After, 500, slow answers, malformed
// bodies, connection resets, 400s) and logs every request it receives by a
// key that tests can compute from the request's messages.
package simtest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// Kind is a fault the server can inject (or OK for none).
type Kind int

// The kinds of answer.
const (
	OK            Kind = iota // 200 with a chat completion
	RateLimit                 // 429 with Fault.RetryAfter as the Retry-After header
	ServerError               // 500 with an OpenAI error body
	Unavailable               // 503 with Fault.RetryAfter as the Retry-After header
	Slow                      // waits Fault.Delay, then answers 200 (if the client still listens)
	Malformed                 // 200 with a truncated JSON body
	Reset                     // hijacks the connection and closes it without a response
	BadRequest                // 400 invalid_request_error
	ContextLength             // 400 context_length_exceeded
	Unauthorized              // 401 invalid_api_key
	EchoAuth                  // 400 whose message repeats the Authorization header (a leaky server)
)

var kindNames = [...]string{"ok", "rate-limit", "server-error", "unavailable", "slow", "malformed", "reset",
	"bad-request", "context-length", "unauthorized", "echo-auth"}

// String names the kind.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Fault is what the server does with one request.
type Fault struct {
	Kind       Kind          // what to do
	RetryAfter string        // Retry-After header value for RateLimit and Unavailable ("" sends none)
	Delay      time.Duration // Slow's wait
}

// Plan decides the answer to a request: key is Key of its messages, attempt
// counts the requests with that key so far (1 for the first).
type Plan func(key string, attempt int) Fault

// Options configures New. The zero value answers everything at once.
type Options struct {
	Latency    time.Duration // added to every answer
	Plan       Plan          // nil means always OK
	KeepBodies bool          // log each request body (Entry.Body)
	// Answer, when set, writes the text of each completion from the
	// request's messages (e.g. a judge's JSON answer); nil answers Reply(key).
	Answer func(messages []Message) string
}

// Entry is one request the server received and what it did.
type Entry struct {
	Key       string // Key of the request's messages
	Attempt   int    // 1 for the first request with this key
	Kind      Kind   // the fault injected (OK for none)
	Model     string // the request's model
	Auth      string // the Authorization header as received
	Completed bool   // a 200 with a chat completion was written to a listening client
	Abandoned bool   // the client went away before the answer (timeout)
	Arrived   int64  // the server's event counter when the request arrived
	Finished  int64  // the server's event counter when the handler was done
	Body      []byte // the request body, with Options.KeepBodies
}

// Server is a running fake endpoint. Close it when done.
type Server struct {
	*httptest.Server
	opts Options

	mu       sync.Mutex
	log      []Entry
	attempts map[string]int
	events   int64
}

// New starts a server on a loopback port.
func New(opts Options) *Server {
	s := &Server{opts: opts, attempts: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	return s
}

// BaseURL is the server's API base, ".../v1".
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// Message is a chat message as the server reads it.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Key is the request key the server logs: the hex sha256 of the JSON array
// of messages, each {"role","content"} in that field order. Any value that
// marshals to the same JSON (e.g. []sim.Message) gives the same key.
func Key(messages any) string {
	b, err := json.Marshal(messages)
	if err != nil {
		panic(err)
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// Reply is the text the server answers for key.
func Reply(key string) string { return "reply to " + key[:12] }

type chatRequest struct {
	Model    string    `json:"model"`
	Messages []Message `json:"messages"`
}

// handle answers one chat completion request: it refuses anything but a
// POST to /v1/chat/completions, decodes the request, takes the fault the
// plan gives for the request's key and attempt, waits the server's latency
// (plus the delay of a Slow fault), and answers as the fault says (an answer,
// a rate limit with Retry-After, 503, 500, a malformed body, a reset
// connection, 400, a context-length error, 401, or the echo of the
// Authorization header); every outcome is logged once (record).
func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		writeError(w, http.StatusNotFound, "invalid_request_error", "not_found", "unknown path "+r.URL.Path)
		return
	}
	body, err := io.ReadAll(r.Body)
	var req chatRequest
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err != nil || len(req.Messages) == 0 {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", "body is not a chat completion request")
		return
	}
	key := Key(req.Messages)
	s.mu.Lock()
	s.attempts[key]++
	attempt := s.attempts[key]
	s.events++
	arrived := s.events
	s.mu.Unlock()
	f := Fault{}
	if s.opts.Plan != nil {
		f = s.opts.Plan(key, attempt)
	}
	e := Entry{Key: key, Attempt: attempt, Kind: f.Kind, Model: req.Model, Auth: r.Header.Get("Authorization"), Arrived: arrived}
	if s.opts.KeepBodies {
		e.Body = body
	}
	// record logs e once: when the handler returns (before net/http sends
	// the buffered response), or for Reset before the connection is
	// closed, so that a client that has seen the outcome finds it in Log.
	recorded := false
	record := func() {
		if recorded {
			return
		}
		recorded = true
		s.mu.Lock()
		s.events++
		e.Finished = s.events
		s.log = append(s.log, e)
		s.mu.Unlock()
	}
	defer record()

	wait := s.opts.Latency
	if f.Kind == Slow {
		wait += f.Delay
	}
	if wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			e.Abandoned = true
			return
		}
	}
	switch f.Kind {
	case OK, Slow:
		if r.Context().Err() != nil {
			e.Abandoned = true
			return
		}
		writeJSON(w, http.StatusOK, completion(key, req, s.opts.Answer))
		e.Completed = true
	case RateLimit:
		if f.RetryAfter != "" {
			w.Header().Set("Retry-After", f.RetryAfter)
		}
		writeError(w, http.StatusTooManyRequests, "rate_limit_exceeded", "rate_limit_exceeded", "Rate limit reached, please retry later.")
	case Unavailable:
		if f.RetryAfter != "" {
			w.Header().Set("Retry-After", f.RetryAfter)
		}
		writeError(w, http.StatusServiceUnavailable, "server_error", "", "The server is overloaded.")
	case ServerError:
		writeError(w, http.StatusInternalServerError, "server_error", "", "The server had an error while processing your request.")
	case Malformed:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, `{"id":"chatcmpl-x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assist`)
	case Reset:
		hj, ok := w.(http.Hijacker)
		if !ok {
			panic("simtest: connection cannot be hijacked")
		}
		conn, _, err := hj.Hijack()
		record()
		if err == nil {
			conn.Close()
		}
	case BadRequest:
		writeError(w, http.StatusBadRequest, "invalid_request_error", "invalid_value", "Invalid value for 'messages'.")
	case ContextLength:
		writeError(w, http.StatusBadRequest, "invalid_request_error", "context_length_exceeded",
			"This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.")
	case Unauthorized:
		writeError(w, http.StatusUnauthorized, "invalid_request_error", "invalid_api_key", "Incorrect API key provided.")
	case EchoAuth:
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", "bad header "+r.Header.Get("Authorization"))
	}
}

// completion is the documented chat completion object for req.
func completion(key string, req chatRequest, answer func([]Message) string) map[string]any {
	in := 0
	for _, m := range req.Messages {
		in += len(strings.Fields(m.Content)) + 4
	}
	text := Reply(key)
	if answer != nil {
		text = answer(req.Messages)
	}
	out := len(strings.Fields(text))
	return map[string]any{
		"id":      "chatcmpl-" + key[:16],
		"object":  "chat.completion",
		"created": 1735689600,
		"model":   req.Model,
		"choices": []any{map[string]any{
			"index":         0,
			"message":       map[string]any{"role": "assistant", "content": text, "refusal": nil},
			"logprobs":      nil,
			"finish_reason": "stop",
		}},
		"usage": map[string]any{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out},
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}

// writeError writes OpenAI's error object.
func writeError(w http.ResponseWriter, status int, typ, code, msg string) {
	var c any
	if code != "" {
		c = code
	}
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": c}})
}

// Log returns a copy of every request handled so far, in the order their
// handlers finished (see Entry.Arrived for the order of arrival).
func (s *Server) Log() []Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Entry(nil), s.log...)
}

// Events is the server's event counter: requests arrived plus handled.
// Entries whose Arrived exceeds a value read earlier came after that read.
func (s *Server) Events() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.events
}

// Completed counts, per key, the requests answered with a completion.
func (s *Server) Completed() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := map[string]int{}
	for _, e := range s.log {
		if e.Completed {
			m[e.Key]++
		}
	}
	return m
}

// AfterCompletion lists the requests that arrived for a key after a request
// for that key had been completed: what a correct runner never sends.
func (s *Server) AfterCompletion() []Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	first := map[string]int64{} // key -> when its first completion finished
	for _, e := range s.log {
		if e.Completed && (first[e.Key] == 0 || e.Finished < first[e.Key]) {
			first[e.Key] = e.Finished
		}
	}
	var bad []Entry
	for _, e := range s.log {
		if f, ok := first[e.Key]; ok && e.Arrived > f {
			bad = append(bad, e)
		}
	}
	return bad
}

// RandomPlan injects faults at the given rates (each in [0,1], summing to
// at most 1), chosen by a hash of (seed, key, attempt) so that the same
// request meets the same fault whatever the order of arrival. Attempts
// after maxFaulty always succeed (0: no limit).
func RandomPlan(seed uint64, rates map[Kind]float64, template Fault, maxFaulty int) Plan {
	kinds := []Kind{RateLimit, ServerError, Unavailable, Slow, Malformed, Reset, BadRequest, ContextLength}
	return func(key string, attempt int) Fault {
		if maxFaulty > 0 && attempt > maxFaulty {
			return Fault{}
		}
		h := fnv.New64a()
		fmt.Fprintf(h, "%d/%s/%d", seed, key, attempt)
		u := float64(mix(h.Sum64())>>11) / float64(1<<53)
		acc := 0.0
		for _, k := range kinds {
			acc += rates[k]
			if u < acc {
				f := template
				f.Kind = k
				return f
			}
		}
		return Fault{}
	}
}

// mix is splitmix64's finalizer: FNV alone leaves the high bits of short,
// similar inputs poorly mixed.
func mix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
