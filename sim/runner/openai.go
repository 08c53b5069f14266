package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// DefaultOpenAIBaseURL is where the openai backend sends requests that name
// no base URL.
const DefaultOpenAIBaseURL = "https://api.openai.com/v1"

// OpenAIConfig configures the openai backend. The zero value talks to
// DefaultOpenAIBaseURL without a key.
type OpenAIConfig struct {
	// BaseURL of an OpenAI-compatible API ("http://localhost:8000/v1" for
	// vLLM, "http://localhost:11434/v1" for Ollama); "" means
	// DefaultOpenAIBaseURL. Every call goes here: a request's own BaseURL
	// is part of its key, not an address.
	BaseURL string
	// APIKeyEnv names the environment variable that holds the API key; it is
	// read at every call and never stored. "" sends no key (local servers).
	APIKeyEnv string
	// Timeout bounds one attempt, response body included; 0 means 120 s.
	Timeout time.Duration
	// MaxCompletionTokens sends Params.MaxTokens as max_completion_tokens
	// (what OpenAI's reasoning models require) instead of max_tokens.
	MaxCompletionTokens bool
	// HTTPClient makes the calls; nil means a client whose pool keeps
	// enough idle connections for the runner's concurrency.
	HTTPClient *http.Client
}

// OpenAI is the backend for OpenAI-compatible chat completion endpoints,
// through openai-go with its own retries off: the runner retries.
type OpenAI struct {
	cfg  OpenAIConfig
	chat openai.ChatCompletionService
}

// NewOpenAI returns an openai backend. It reads no environment variable
// but cfg.APIKeyEnv, and that only at call time: openai-go's own defaults
// (OPENAI_API_KEY, OPENAI_BASE_URL, ...) are deliberately not used, so a key
// meant for one endpoint is never sent to another.
func NewOpenAI(cfg OpenAIConfig) *OpenAI {
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultOpenAIBaseURL
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 120 * time.Second
	}
	if cfg.HTTPClient == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConns = 256
		t.MaxIdleConnsPerHost = 256 // the default 2 would reconnect for every call past the second
		cfg.HTTPClient = &http.Client{Transport: t}
	}
	return &OpenAI{
		cfg: cfg,
		chat: openai.NewChatCompletionService(
			option.WithHTTPClient(cfg.HTTPClient),
			option.WithBaseURL(cfg.BaseURL),
			option.WithMaxRetries(0),
		),
	}
}

// ChatBody is the chat completion request body of req
// (https://platform.openai.com/docs/api-reference/chat/create): model,
// messages, temperature, max tokens (as max_completion_tokens when
// maxCompletionTokens), reasoning effort, and Params.Extra merged in last,
// so an extra field overrides a built one of the same name. Keys are
// sorted, so equal requests give equal bytes. The live backend and the
// OpenAI batch files send exactly this body.
//
// It is built with encoding/json rather than openai-go's typed
// ChatCompletionNewParams (whose SetExtraFields would merge Extra the same
// way): the SDK's reflective encoder costs about 100 us per request, a
// tenth of the runner's CPU budget, this about 10 us.
func ChatBody(req Request, maxCompletionTokens bool) ([]byte, error) {
	for i, m := range req.Messages {
		switch m.Role {
		case "system", "developer", "user", "assistant":
		default:
			return nil, fmt.Errorf("message %d: role %q is not system, developer, user or assistant", i, m.Role)
		}
	}
	if req.Model == "" {
		return nil, errors.New("no model")
	}
	body := make(map[string]any, 6+len(req.Params.Extra))
	body["model"] = req.Model
	body["messages"] = req.Messages
	if req.Params.Temperature != nil {
		body["temperature"] = *req.Params.Temperature
	}
	if req.Params.MaxTokens > 0 {
		if maxCompletionTokens {
			body["max_completion_tokens"] = req.Params.MaxTokens
		} else {
			body["max_tokens"] = req.Params.MaxTokens
		}
	}
	if req.Params.ReasoningEffort != "" {
		body["reasoning_effort"] = req.Params.ReasoningEffort
	}
	for k, v := range req.Params.Extra {
		body[k] = v
	}
	return json.Marshal(body)
}

// Call sends req once and returns the first choice's text with its usage,
// finish reason, latency and the raw body. Failures are *CallError values
// (see Classify); their messages and bodies have the API key redacted.
func (o *OpenAI) Call(ctx context.Context, req Request) (Response, error) {
	key := ""
	if o.cfg.APIKeyEnv != "" {
		key = os.Getenv(o.cfg.APIKeyEnv)
		if key == "" {
			return Response{}, &CallError{Permanent: true, Endpoint: true,
				Msg: fmt.Sprintf("environment variable %s (the API key) is empty or unset", o.cfg.APIKeyEnv)}
		}
	}
	body, err := ChatBody(req, o.cfg.MaxCompletionTokens)
	if err != nil {
		return Response{}, &CallError{Permanent: true, Msg: err.Error()}
	}
	callCtx, cancel := context.WithTimeout(ctx, o.cfg.Timeout)
	defer cancel()
	var raw []byte
	var hr *http.Response
	opts := []option.RequestOption{
		option.WithRequestBody("application/json", body), // replaces the empty params' body
		option.WithResponseBodyInto(&raw),                // the body as received, undecoded
		option.WithResponseInto(&hr),                     // status and headers, on failure too
	}
	if key != "" {
		opts = append(opts, option.WithAPIKey(key))
	}
	start := time.Now()
	_, err = o.chat.New(callCtx, openai.ChatCompletionNewParams{}, opts...)
	latency := time.Since(start).Milliseconds()
	if err != nil {
		if ctx.Err() != nil {
			return Response{}, ctx.Err() // the caller stopped: not the endpoint's failure
		}
		return Response{LatencyMS: latency}, o.failure(err, hr, callCtx, key)
	}
	resp, perr := ParseChatCompletion(raw)
	resp.LatencyMS = latency
	if perr != nil {
		// Some servers answer 200 with an error object: say what it says,
		// and a context length error stays permanent.
		ce := &CallError{Msg: "malformed response body: " + perr.Error()}
		if len(resp.Raw) > 0 {
			ce.Msg += ": " + errorMessage(raw, "")
			ce.Raw = resp.Raw
		}
		ce.Permanent, ce.Endpoint = Classify(0, ce.Msg)
		return Response{LatencyMS: latency}, redact(ce, key)
	}
	if key != "" && strings.Contains(string(resp.Raw), key) {
		resp.Raw = []byte(strings.ReplaceAll(string(resp.Raw), key, "[redacted]"))
	}
	return resp, nil
}

// failure turns an openai-go error and the HTTP response it may carry into
// a classified, redacted *CallError.
func (o *OpenAI) failure(err error, hr *http.Response, callCtx context.Context, key string) *CallError {
	ce := &CallError{}
	switch {
	case hr != nil && hr.StatusCode >= 400:
		ce.Status = hr.StatusCode
		ce.RetryAfter = ParseRetryAfter(hr.Header, time.Now())
		body := readAllCapped(hr)
		ce.Msg = errorMessage(body, http.StatusText(hr.StatusCode))
		if json.Valid(body) {
			ce.Raw = body
		}
	case errors.Is(callCtx.Err(), context.DeadlineExceeded):
		ce.Msg = fmt.Sprintf("timeout after %s", o.cfg.Timeout)
	case hr != nil:
		ce.Msg = fmt.Sprintf("malformed response body (HTTP %d): %v", hr.StatusCode, err)
	default:
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			ce.Msg = "timeout: " + err.Error()
		} else {
			ce.Msg = "connection failed: " + err.Error()
		}
	}
	ce.Permanent, ce.Endpoint = Classify(ce.Status, ce.Msg)
	return redact(ce, key)
}

// readAllCapped reads an error body (openai-go has buffered it), at most
// 64 KiB: an error message needs no more.
func readAllCapped(hr *http.Response) []byte {
	if hr.Body == nil {
		return nil
	}
	defer hr.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(hr.Body, 64<<10))
	return b
}

// errorMessage finds the message in an error body: OpenAI's
// {"error":{"message"}}, vLLM's {"message"}, llama.cpp's {"error":{...}},
// Ollama's {"error":"..."}, else the body's start, else fallback.
func errorMessage(body []byte, fallback string) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  any             `json:"detail"`
	}
	if json.Unmarshal(body, &v) == nil {
		var inner struct {
			Message string `json:"message"`
			Code    any    `json:"code"`
		}
		var s string
		switch {
		case json.Unmarshal(v.Error, &inner) == nil && inner.Message != "":
			if c, ok := inner.Code.(string); ok && c != "" && !strings.Contains(inner.Message, c) {
				return c + ": " + inner.Message
			}
			return inner.Message
		case json.Unmarshal(v.Error, &s) == nil && s != "":
			return s
		case v.Message != "":
			return v.Message
		case v.Detail != nil:
			return fmt.Sprint(v.Detail)
		}
	}
	if t := strings.TrimSpace(string(body)); t != "" {
		if len(t) > 300 {
			t = t[:300] + "..."
		}
		return t
	}
	return fallback
}

// redact removes the key from everything a CallError carries.
func redact(ce *CallError, key string) *CallError {
	if key == "" {
		return ce
	}
	ce.Msg = strings.ReplaceAll(ce.Msg, key, "[redacted]")
	if len(ce.Raw) > 0 && strings.Contains(string(ce.Raw), key) {
		ce.Raw = []byte(strings.ReplaceAll(string(ce.Raw), key, "[redacted]"))
	}
	return ce
}

// chatCompletionBody is the part of a chat completion object ub reads
// (https://platform.openai.com/docs/api-reference/chat/object).
type chatCompletionBody struct {
	Choices []struct {
		FinishReason string `json:"finish_reason"`
		Message      struct {
			Content *string `json:"content"`
			Refusal *string `json:"refusal"`
		} `json:"message"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

// ParseChatCompletion reads a chat completion body (a live answer or the
// body of an OpenAI batch output line): the first choice's text (its
// refusal when it has no content), finish reason and the usage. A body
// that is not JSON, or has no choice, is an error; Raw is set to body when
// it is JSON.
func ParseChatCompletion(body []byte) (Response, error) {
	var c chatCompletionBody
	if err := json.Unmarshal(body, &c); err != nil {
		if !json.Valid(body) {
			return Response{}, errors.New("not JSON")
		}
		return Response{Raw: append(json.RawMessage(nil), body...)}, fmt.Errorf("not a chat completion: %w", err)
	}
	r := Response{Raw: append(json.RawMessage(nil), body...)}
	if len(c.Choices) == 0 {
		return r, errors.New("no choices")
	}
	ch := c.Choices[0]
	switch {
	case ch.Message.Content != nil:
		r.Text = *ch.Message.Content
	case ch.Message.Refusal != nil:
		r.Text = *ch.Message.Refusal
	}
	r.FinishReason = ch.FinishReason
	r.TokensIn = c.Usage.PromptTokens
	r.TokensOut = c.Usage.CompletionTokens
	return r, nil
}
