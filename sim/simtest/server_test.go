package simtest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"
)

func post(t *testing.T, s *Server, msgs []Message) (*http.Response, []byte) {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"model": "m", "messages": msgs})
	resp, err := http.Post(s.BaseURL()+"/chat/completions", "application/json", bytes.NewReader(b))
	if err != nil {
		return nil, nil
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, body
}

func TestServerFaultsAndLog(t *testing.T) {
	msgs := []Message{{Role: "user", Content: "hello there"}}
	key := Key(msgs)
	s := New(Options{Plan: func(k string, attempt int) Fault {
		switch attempt {
		case 1:
			return Fault{Kind: RateLimit, RetryAfter: "3"}
		case 2:
			return Fault{Kind: Reset}
		}
		return Fault{}
	}})
	defer s.Close()

	resp, body := post(t, s, msgs)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "3" || !bytes.Contains(body, []byte(`"code":"rate_limit_exceeded"`)) {
		t.Errorf("attempt 1: %d %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	if resp, _ := post(t, s, msgs); resp != nil {
		t.Errorf("attempt 2: got a response (%d), want the connection closed", resp.StatusCode)
	}
	resp, body = post(t, s, msgs)
	var c struct {
		Object  string `json:"object"`
		Choices []struct {
			Message      Message `json:"message"`
			FinishReason string  `json:"finish_reason"`
		} `json:"choices"`
		Usage struct {
			PromptTokens, CompletionTokens int
		} `json:"usage"`
	}
	if err := json.Unmarshal(body, &c); err != nil || resp.StatusCode != 200 || c.Object != "chat.completion" ||
		c.Choices[0].Message.Content != Reply(key) || c.Choices[0].FinishReason != "stop" {
		t.Errorf("attempt 3: %d %s", resp.StatusCode, body)
	}
	post(t, s, msgs) // a fourth request, after the key was completed
	log := s.Log()
	if len(log) != 4 || log[0].Kind != RateLimit || log[1].Kind != Reset || !log[2].Completed || log[2].Attempt != 3 {
		t.Errorf("log %+v", log)
	}
	if bad := s.AfterCompletion(); len(bad) != 1 || bad[0].Attempt != 4 {
		t.Errorf("after completion %+v, want the 4th request", bad)
	}
	if s.Completed()[key] != 2 {
		t.Errorf("completed %v", s.Completed())
	}
}

func TestRandomPlanIsDeterministic(t *testing.T) {
	rates := map[Kind]float64{RateLimit: 0.3, ServerError: 0.3}
	a, b := RandomPlan(1, rates, Fault{}, 0), RandomPlan(1, rates, Fault{}, 0)
	counts := map[Kind]int{}
	for i := range 2000 {
		k := Key([]Message{{Role: "user", Content: string(rune('a' + i%26))}})
		if a(k, i) != b(k, i) {
			t.Fatal("same seed, different faults")
		}
		counts[a(k, i).Kind]++
	}
	// 2000 draws at 0.3: the count is 600 +- 3 sd (sd = sqrt(2000*0.3*0.7) = 20.5).
	for _, k := range []Kind{RateLimit, ServerError} {
		if counts[k] < 538 || counts[k] > 662 {
			t.Errorf("%v drawn %d times of 2000, want about 600", k, counts[k])
		}
	}
	if f := RandomPlan(1, map[Kind]float64{ServerError: 1}, Fault{}, 2)("k", 3); f.Kind != OK {
		t.Errorf("attempt past maxFaulty got %v", f.Kind)
	}
}
