package runner

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// Message is one chat message sent to a model.
type Message struct {
	Role    string `json:"role"` // system | user | assistant
	Content string `json:"content"`
}

// Params are the generation parameters of a request. Zero values are left
// out of the request (the endpoint's default applies) and out of the key.
type Params struct {
	Temperature     *float64       `json:"temperature,omitempty"`
	MaxTokens       int            `json:"max_tokens,omitempty"`
	ReasoningEffort string         `json:"reasoning_effort,omitempty"`
	Extra           map[string]any `json:"extra,omitempty"` // extra body fields, sent as given
}

// Request is one call to a backend. Everything that can change the answer is
// in it, and nothing secret: the API key is read from the environment by the
// backend at call time.
type Request struct {
	Backend  string    `json:"backend"` // openai | mix | retrieve | ...
	BaseURL  string    `json:"base_url,omitempty"`
	Model    string    `json:"model"`
	Params   Params    `json:"params"`
	Messages []Message `json:"messages"`
	Sample   int       `json:"sample"` // 0 for the one trial a study makes; >0 draws again
}

// Canonical is the request's canonical JSON (map keys sorted by
// encoding/json), the text its key hashes.
func (r Request) Canonical() []byte {
	b, err := json.Marshal(r)
	if err != nil {
		panic("sim: request does not marshal: " + err.Error()) // Params.Extra holds JSON values only
	}
	return b
}

// Key is the content address of the request: the hex sha256 of Canonical.
// Two requests with the same key get the same cached answer.
func (r Request) Key() string {
	h := sha256.Sum256(r.Canonical())
	return hex.EncodeToString(h[:])
}

// Keys returns the key of each request, in order.
func Keys(reqs []Request) []string {
	keys := make([]string, len(reqs))
	for i, r := range reqs {
		keys[i] = r.Key()
	}
	return keys
}

// KeyParts names the parts of a request's key, each by its own hash, so that
// a cache miss can be explained part by part (ub cache explain).
type KeyParts struct {
	Backend  string   `json:"backend"`
	BaseURL  string   `json:"base_url,omitempty"`
	Model    string   `json:"model"`
	Params   string   `json:"params"`   // short hash of the canonical Params
	Messages []string `json:"messages"` // short hash of each message, in order
	Sample   int      `json:"sample"`
	Template string   `json:"template,omitempty"` // prompt template version, set by the caller
	// PoolFallback is an offline generation's stand-in pool scope (see
	// OfflineInput.PoolFallback); "" when none.
	PoolFallback string `json:"pool_fallback,omitempty"`
}

// Parts returns the request's KeyParts (Template left empty).
func (r Request) Parts() KeyParts {
	p := KeyParts{Backend: r.Backend, BaseURL: r.BaseURL, Model: r.Model, Sample: r.Sample}
	if f, ok := r.Params.Extra["pool_fallback"].(string); ok {
		p.PoolFallback = f
	}
	pb, _ := json.Marshal(r.Params)
	p.Params = shortHash(pb)
	for _, m := range r.Messages {
		mb, _ := json.Marshal(m)
		p.Messages = append(p.Messages, shortHash(mb))
	}
	return p
}

func shortHash(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:6])
}

// Response is a backend's answer to one request, or its failure.
type Response struct {
	Text         string
	TokensIn     int
	TokensOut    int
	LatencyMS    int64
	FinishReason string
	Raw          json.RawMessage // the provider's body as received; nil for offline backends
	ViaBatch     bool            // answered through a provider batch file
	Err          string          // "" when answered
	Permanent    bool            // Err cannot be fixed by retrying (400, context too long)
	Attempts     int
}
