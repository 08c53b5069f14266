package runner

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ub-bench/ub/sim/simtest"
)

func TestOpenAIRequestBody(t *testing.T) {
	srv := simtest.New(simtest.Options{KeepBodies: true})
	defer srv.Close()
	temp := 0.3
	req := Request{Backend: "openai", Model: "qwen3-8b", Params: Params{
		Temperature: &temp, MaxTokens: 200, ReasoningEffort: "low",
		Extra: map[string]any{"top_k": 40, "chat_template_kwargs": map[string]any{"enable_thinking": false}},
	}, Messages: []Message{{Role: "system", Content: "s"}, {Role: "user", Content: "u"}, {Role: "assistant", Content: "a"}, {Role: "developer", Content: "d"}}}
	t.Setenv("UB_TEST_KEY", "sk-test-123")
	t.Setenv("OPENAI_API_KEY", "sk-must-not-travel")

	for _, tc := range []struct {
		name     string
		cfg      OpenAIConfig
		auth     string
		maxField string
	}{
		{"key from the named variable", OpenAIConfig{APIKeyEnv: "UB_TEST_KEY"}, "Bearer sk-test-123", "max_tokens"},
		{"no variable, no key (OPENAI_API_KEY is not read)", OpenAIConfig{}, "", "max_tokens"},
		{"max_completion_tokens", OpenAIConfig{MaxCompletionTokens: true}, "", "max_completion_tokens"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.BaseURL = srv.BaseURL()
			resp, err := NewOpenAI(tc.cfg).Call(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Text != simtest.Reply(simtest.Key(req.Messages)) || resp.TokensIn == 0 || resp.FinishReason != "stop" {
				t.Errorf("response %+v", resp)
			}
			log := srv.Log()
			e := log[len(log)-1]
			if e.Auth != tc.auth {
				t.Errorf("Authorization %q, want %q", e.Auth, tc.auth)
			}
			var body map[string]any
			if err := json.Unmarshal(e.Body, &body); err != nil {
				t.Fatal(err)
			}
			if body["model"] != "qwen3-8b" || body["temperature"] != 0.3 || body[tc.maxField] != 200.0 ||
				body["reasoning_effort"] != "low" || body["top_k"] != 40.0 ||
				body["chat_template_kwargs"].(map[string]any)["enable_thinking"] != false {
				t.Errorf("body %s", e.Body)
			}
			msgs := body["messages"].([]any)
			if len(msgs) != 4 || msgs[3].(map[string]any)["role"] != "developer" {
				t.Errorf("messages %v", msgs)
			}
		})
	}
	if _, err := NewOpenAI(OpenAIConfig{BaseURL: srv.BaseURL()}).Call(context.Background(),
		Request{Model: "m", Messages: []Message{{Role: "tool", Content: "x"}}}); err == nil {
		t.Error("a tool message was sent")
	} else if ce := asCallError(err); !ce.Permanent {
		t.Errorf("bad role: %+v, want permanent", ce)
	}
}

func TestOpenAIClassifiesFaults(t *testing.T) {
	cases := []struct {
		fault     simtest.Fault
		status    int
		permanent bool
		endpoint  bool
		retry     time.Duration
		msg       string
	}{
		{simtest.Fault{Kind: simtest.RateLimit, RetryAfter: "7"}, 429, false, false, 7 * time.Second, "rate_limit_exceeded: Rate limit reached"},
		{simtest.Fault{Kind: simtest.Unavailable, RetryAfter: "0.5"}, 503, false, false, 500 * time.Millisecond, "overloaded"},
		{simtest.Fault{Kind: simtest.ServerError}, 500, false, false, 0, "had an error"},
		{simtest.Fault{Kind: simtest.Malformed}, 0, false, false, 0, "malformed response body"},
		{simtest.Fault{Kind: simtest.Reset}, 0, false, false, 0, "connection failed"},
		{simtest.Fault{Kind: simtest.Slow, Delay: time.Second}, 0, false, false, 0, "timeout after 100ms"},
		{simtest.Fault{Kind: simtest.BadRequest}, 400, true, false, 0, "invalid_value: Invalid value"},
		{simtest.Fault{Kind: simtest.ContextLength}, 400, true, false, 0, "context_length_exceeded"},
		{simtest.Fault{Kind: simtest.Unauthorized}, 401, true, true, 0, "Incorrect API key"},
	}
	for _, c := range cases {
		t.Run(c.fault.Kind.String(), func(t *testing.T) {
			srv := simtest.New(simtest.Options{Plan: func(string, int) simtest.Fault { return c.fault }})
			defer srv.Close()
			be := NewOpenAI(OpenAIConfig{BaseURL: srv.BaseURL(), Timeout: 100 * time.Millisecond})
			_, err := be.Call(context.Background(), testRequests(1, "")[0])
			var ce *CallError
			if !errors.As(err, &ce) {
				t.Fatalf("err %v (%T), want *CallError", err, err)
			}
			if ce.Status != c.status || ce.Permanent != c.permanent || ce.Endpoint != c.endpoint || ce.RetryAfter != c.retry || !strings.Contains(ce.Error(), c.msg) {
				t.Errorf("got status %d permanent %v endpoint %v retry-after %v %q", ce.Status, ce.Permanent, ce.Endpoint, ce.RetryAfter, ce.Error())
			}
		})
	}
}

func TestOpenAIKeyNeverLeaks(t *testing.T) {
	ctx := context.Background()
	const key = "sk-proj-SECRET-0123456789abcdef"
	t.Setenv("UB_LEAK_TEST_KEY", key)
	srv := simtest.New(simtest.Options{Plan: func(string, int) simtest.Fault { return simtest.Fault{Kind: simtest.EchoAuth} }})
	defer srv.Close()
	be := NewOpenAI(OpenAIConfig{BaseURL: srv.BaseURL(), APIKeyEnv: "UB_LEAK_TEST_KEY"})
	reqs := testRequests(2, "")
	_, err := be.Call(ctx, reqs[0])
	if err == nil || strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "bad header Bearer [redacted]") {
		t.Errorf("error %v: want the echoed key redacted", err)
	}
	if got := srv.Log()[0].Auth; got != "Bearer "+key {
		t.Errorf("server got Authorization %q", got)
	}
	// Through the runner into the database: neither the error nor the raw
	// body, nor the request, holds the key.
	ws := memWorkspace(t)
	st, err := Run(ctx, reqs, be, NewDuckStore(ws), RunOptions{})
	if err != nil || st.FailedPermanent != 2 {
		t.Fatalf("%+v %v", st, err)
	}
	var n int
	if err := ws.Conn().QueryRowContext(ctx, `SELECT count(*) FROM responses WHERE contains(error, ?) OR contains(CAST(raw AS VARCHAR), ?) OR contains(CAST(request AS VARCHAR), ?)`, key, key, key).Scan(&n); err != nil {
		t.Fatal(err)
	}
	var raw string
	ws.Conn().QueryRowContext(ctx, `SELECT CAST(raw AS VARCHAR) FROM responses LIMIT 1`).Scan(&raw)
	if n != 0 || !strings.Contains(raw, "[redacted]") {
		t.Errorf("%d rows hold the key; raw %s", n, raw)
	}
}

func TestOpenAICallerCancelIsNotAFailure(t *testing.T) {
	srv := simtest.New(simtest.Options{Latency: time.Second})
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := NewOpenAI(OpenAIConfig{BaseURL: srv.BaseURL()}).Call(ctx, testRequests(1, "")[0])
	var ce *CallError
	if !errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ce) {
		t.Errorf("err %v, want the caller's context error", err)
	}
}

func TestClassify(t *testing.T) {
	for _, c := range []struct {
		status              int
		msg                 string
		permanent, endpoint bool
	}{
		{400, "bad", true, false},
		{401, "", true, true},
		{403, "", true, true},
		{404, "model not found", true, true},
		{413, "", true, false},
		{422, "", true, false},
		{408, "", false, false},
		{409, "", false, false},
		{425, "", false, false},
		{429, "", false, false},
		{500, "", false, false},
		{502, "", false, false},
		{503, "", false, false},
		{504, "", false, false},
		{0, "connection reset by peer", false, false},
		{500, "This model's maximum context length is 4096 tokens", true, false},                // OpenAI wording, on a 500 from a proxy
		{400, "the request exceeds the available context size, try increasing it", true, false}, // llama.cpp
		{0, "prompt is too long: 210000 tokens > 200000 maximum", true, false},                  // Anthropic
	} {
		p, e := Classify(c.status, c.msg)
		if p != c.permanent || e != c.endpoint {
			t.Errorf("Classify(%d, %q) = %v, %v; want %v, %v", c.status, c.msg, p, e, c.permanent, c.endpoint)
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		h    http.Header
		want time.Duration
	}{
		{http.Header{"Retry-After": {"7"}}, 7 * time.Second},
		{http.Header{"Retry-After": {"1.5"}}, 1500 * time.Millisecond},
		{http.Header{"Retry-After": {"Sat, 01 Mar 2025 12:00:30 GMT"}}, 30 * time.Second},
		{http.Header{"Retry-After": {"Sat, 01 Mar 2025 11:00:00 GMT"}}, 0},
		{http.Header{"Retry-After": {"soon"}}, 0},
		{http.Header{"Retry-After": {"-3"}}, 0},
		{http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"1"}}, 250 * time.Millisecond},
		{http.Header{}, 0},
	} {
		if got := ParseRetryAfter(c.h, now); got != c.want {
			t.Errorf("ParseRetryAfter(%v) = %v, want %v", c.h, got, c.want)
		}
	}
}

func TestParseChatCompletion(t *testing.T) {
	r, err := ParseChatCompletion([]byte(`{"choices":[{"message":{"role":"assistant","content":null,"refusal":"I can't help with that."},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":7}}`))
	if err != nil || r.Text != "I can't help with that." || r.TokensIn != 5 || r.TokensOut != 7 {
		t.Errorf("refusal: %+v %v", r, err)
	}
	for _, body := range []string{`{"choices":[]}`, `{"object":"error"}`, `{"choices":`, `<html>502</html>`, `{"choices":"x"}`} {
		if _, err := ParseChatCompletion([]byte(body)); err == nil {
			t.Errorf("%s parsed without error", body)
		}
	}
}

func FuzzParseChatCompletion(f *testing.F) {
	f.Add([]byte(`{"choices":[{"message":{"content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1}}`))
	f.Add([]byte(`{"choices":[{"message":{"content":null}}]}`))
	f.Add([]byte(`{`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ParseChatCompletion(b)
		if err == nil && !json.Valid(r.Raw) {
			t.Errorf("accepted a body that is not JSON: %q", b)
		}
	})
}

func FuzzParseBatchResult(f *testing.F) {
	for _, s := range []string{
		`{"id":"b","custom_id":"c","response":{"status_code":200,"body":{"choices":[{"message":{"content":"x"}}]}},"error":null}`,
		`{"custom_id":"c","response":{"status_code":400,"body":{"error":{"message":"m","code":"context_length_exceeded"}}}}`,
		`{"custom_id":"c","response":null,"error":{"code":"batch_expired","message":"m"}}`,
		`{"custom_id":"c","result":{"type":"succeeded","message":{"content":[{"type":"text","text":"x"}],"usage":{"input_tokens":1}}}}`,
		`{"custom_id":"c","result":{"type":"errored","error":{"type":"error","error":{"type":"invalid_request_error","message":"m"}}}}`,
		`{"custom_id":"c","result":{"type":"expired"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, p := range []BatchProvider{OpenAIBatch, AnthropicBatch} {
			id, r, err := parseBatchResult(p, b)
			if err == nil && id == "" {
				t.Errorf("%s: result without custom_id accepted: %q", p, b)
			}
			if err == nil && r.Err == "" && r.Permanent {
				t.Errorf("%s: answer marked permanent: %q", p, b)
			}
		}
	})
}
