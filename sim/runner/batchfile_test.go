package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ub-bench/ub/sim/simtest"
)

// fixtureRequests reads testdata/batch/requests.json.
func fixtureRequests(t *testing.T) []Request {
	t.Helper()
	b, err := os.ReadFile("testdata/batch/requests.json")
	if err != nil {
		t.Fatal(err)
	}
	var reqs []Request
	if err := json.Unmarshal(b, &reqs); err != nil {
		t.Fatal(err)
	}
	return reqs
}

// TestBatchFilesGolden writes the fixture requests in both formats and
// compares with the files in testdata/batch (refresh them with
// UB_UPDATE_GOLDEN=1 go test ./sim -run TestBatchFilesGolden).
func TestBatchFilesGolden(t *testing.T) {
	reqs := fixtureRequests(t)
	for _, p := range []BatchProvider{OpenAIBatch, AnthropicBatch} {
		rs := reqs
		if p == AnthropicBatch {
			rs = reqs[:2] // the others carry what the OpenAI format only has
			rs = append(rs, reqs[3])
		}
		dir := t.TempDir()
		files, err := WriteBatchFiles(dir, string(p), p, rs, BatchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(files) != 1 || files[0].Requests != len(rs) {
			t.Fatalf("%s: files %+v", p, files)
		}
		for _, path := range []string{files[0].Path, files[0].KeysPath} {
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata/batch", filepath.Base(path))
			if os.Getenv("UB_UPDATE_GOLDEN") != "" {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from %s:\n%s", path, golden, got)
			}
		}
	}
}

func TestBatchRequestFormats(t *testing.T) {
	reqs := fixtureRequests(t)
	dir := t.TempDir()
	files, err := WriteBatchFiles(dir, "o", OpenAIBatch, reqs, BatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lines := readLines(t, files[0].Path)
	var first struct {
		CustomID string         `json:"custom_id"`
		Method   string         `json:"method"`
		URL      string         `json:"url"`
		Body     map[string]any `json:"body"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
		t.Fatal(err)
	}
	if first.CustomID != reqs[0].Key()[:16] || first.Method != "POST" || first.URL != "/v1/chat/completions" {
		t.Errorf("openai line: %+v", first)
	}
	b := first.Body
	if b["model"] != "gpt-4.1-mini" || b["temperature"] != 0.2 || b["max_tokens"] != 128.0 || b["top_p"] != 0.9 || len(b["messages"].([]any)) != 4 {
		t.Errorf("openai body: %v", b)
	}

	files, err = WriteBatchFiles(dir, "a", AnthropicBatch, reqs[:3], BatchOptions{DefaultMaxTokens: 512})
	if err != nil {
		t.Fatal(err)
	}
	lines = readLines(t, files[0].Path)
	var a struct {
		CustomID string `json:"custom_id"`
		Params   struct {
			Model     string    `json:"model"`
			MaxTokens int       `json:"max_tokens"`
			System    string    `json:"system"`
			Messages  []Message `json:"messages"`
		} `json:"params"`
	}
	idRE := regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`) // Anthropic's custom_id pattern
	for i, l := range lines {
		a.Params.System = ""
		if err := json.Unmarshal([]byte(l), &a); err != nil {
			t.Fatal(err)
		}
		if !idRE.MatchString(a.CustomID) {
			t.Errorf("custom_id %q does not match Anthropic's pattern", a.CustomID)
		}
		for _, m := range a.Params.Messages {
			if m.Role == "system" {
				t.Errorf("line %d: system message left in messages", i)
			}
		}
		switch i {
		case 0:
			if !strings.HasPrefix(a.Params.System, "You are the developer") || len(a.Params.Messages) != 3 || a.Params.MaxTokens != 128 {
				t.Errorf("anthropic line 0: %+v", a)
			}
		case 1:
			if a.Params.System != "" || a.Params.MaxTokens != 512 {
				t.Errorf("anthropic line 1 (no system, default max_tokens): %+v", a)
			}
		}
	}
	bad := reqs[0]
	bad.Params.ReasoningEffort = "high"
	if _, err := WriteBatchFiles(t.TempDir(), "a", AnthropicBatch, []Request{bad}, BatchOptions{}); err == nil {
		t.Error("reasoning_effort written to an Anthropic batch without complaint")
	}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

func TestBatchFilesSplit(t *testing.T) {
	reqs := testRequests(25, "https://api.openai.com/v1")
	reqs = append(reqs, reqs[3]) // written once
	for _, p := range []BatchProvider{OpenAIBatch, AnthropicBatch} {
		t.Run(string(p)+"/by-count", func(t *testing.T) {
			files, err := WriteBatchFiles(t.TempDir(), "b", p, reqs, BatchOptions{MaxRequests: 10})
			if err != nil {
				t.Fatal(err)
			}
			if got := fileCounts(files); got != "10,10,5" {
				t.Errorf("requests per file %s, want 10,10,5", got)
			}
			keys, err := ReadBatchKeys(keysPaths(files)...)
			if err != nil || len(keys) != 25 {
				t.Errorf("keys %d %v", len(keys), err)
			}
		})
		t.Run(string(p)+"/by-size", func(t *testing.T) {
			dir := t.TempDir()
			files, err := WriteBatchFiles(dir, "b", p, reqs, BatchOptions{MaxBytes: 2000})
			if err != nil {
				t.Fatal(err)
			}
			if len(files) < 3 {
				t.Errorf("%d files for 25 requests of ~300 bytes under 2000 bytes each", len(files))
			}
			n := 0
			for _, f := range files {
				st, _ := os.Stat(f.Path)
				if st.Size() != f.Bytes || f.Bytes > 2000 {
					t.Errorf("%s: %d bytes on disk, %d reported, limit 2000", f.Path, st.Size(), f.Bytes)
				}
				n += f.Requests
			}
			if n != 25 {
				t.Errorf("%d requests written, want 25", n)
			}
			if m, _ := filepath.Glob(filepath.Join(dir, "*.tmp")); len(m) > 0 {
				t.Errorf("temporary files left: %v", m)
			}
		})
		t.Run(string(p)+"/too-big", func(t *testing.T) {
			if _, err := WriteBatchFiles(t.TempDir(), "b", p, reqs, BatchOptions{MaxBytes: 100}); err == nil || !strings.Contains(err.Error(), "over the 100-byte limit") {
				t.Errorf("err %v, want a request over the limit", err)
			}
		})
		t.Run(string(p)+"/custom-id-collision", func(t *testing.T) {
			// 25 keys, 16 one-digit ids: two must share one.
			if _, err := WriteBatchFiles(t.TempDir(), "b", p, reqs, BatchOptions{IDLen: 1}); err == nil || !strings.Contains(err.Error(), "share custom_id") {
				t.Errorf("err %v, want a custom_id collision", err)
			}
		})
	}
	if _, err := WriteBatchFiles(t.TempDir(), "b", "gemini", reqs, BatchOptions{}); err == nil {
		t.Error("unknown provider accepted")
	}
}

func fileCounts(files []BatchFile) string {
	var s []string
	for _, f := range files {
		s = append(s, fmt.Sprint(f.Requests))
	}
	return strings.Join(s, ",")
}

func keysPaths(files []BatchFile) []string {
	var p []string
	for _, f := range files {
		p = append(p, f.KeysPath)
	}
	return p
}

func TestReadBatchKeysRefusesEditedRequest(t *testing.T) {
	dir := t.TempDir()
	files, err := WriteBatchFiles(dir, "b", OpenAIBatch, testRequests(3, ""), BatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(files[0].KeysPath)
	b = bytes.Replace(b, []byte("step 1."), []byte("step 9."), 1)
	os.WriteFile(files[0].KeysPath, b, 0o644)
	if _, err := ReadBatchKeys(files[0].KeysPath); err == nil || !strings.Contains(err.Error(), ":2: request does not hash to its key") {
		t.Errorf("err %v, want line 2 refused", err)
	}
}

// TestImportOpenAIBatchFixtures imports hand-written OpenAI output and
// error files (testdata/batch/openai-output.jsonl, openai-errors.jsonl)
// for the golden request file, then checks that a live run of the same
// requests is served from them.
func TestImportOpenAIBatchFixtures(t *testing.T) {
	ctx := context.Background()
	reqs := fixtureRequests(t)
	keys, err := ReadBatchKeys("testdata/batch/openai-001.keys.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	store := NewDuckStore(memWorkspace(t))
	st, err := ImportBatchResults(ctx, OpenAIBatch, keys, store, "testdata/batch/openai-output.jsonl", "testdata/batch/openai-errors.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want := BatchImport{Lines: 6, Answered: 2, FailedPermanent: 1, FailedRetryable: 1, TokensIn: 61 + 18, TokensOut: 9 + 4}
	if len(st.Problems) != 2 || !strings.Contains(st.Problems[0], "openai-errors.jsonl:3: not a batch output line") ||
		!strings.Contains(st.Problems[1], `openai-errors.jsonl:4: custom_id "0000000000000000" is not in this batch's keys`) {
		t.Errorf("problems %q", st.Problems)
	}
	st.Problems = nil
	if fmt.Sprint(st) != fmt.Sprint(want) {
		t.Errorf("import %+v, want %+v", st, want)
	}
	got, err := store.Get(ctx, keysOf(reqs))
	if err != nil {
		t.Fatal(err)
	}
	r0 := got[reqs[0].Key()]
	if r0.Text != "Looks good, now add a test for the retry." || !r0.ViaBatch || r0.TokensIn != 61 || r0.FinishReason != "stop" || len(r0.Raw) == 0 {
		t.Errorf("answer 0: %+v", r0)
	}
	if r2 := got[reqs[2].Key()]; !r2.Permanent || !strings.Contains(r2.Err, "HTTP 400: context_length_exceeded") || !r2.ViaBatch {
		t.Errorf("answer 2: %+v, want a permanent context length error", r2)
	}
	if r3 := got[reqs[3].Key()]; r3.Permanent || !strings.Contains(r3.Err, "batch_expired") {
		t.Errorf("answer 3: %+v, want a retryable batch_expired", r3)
	}
	var backends string
	ws := store.ws
	if err := ws.Conn().QueryRowContext(ctx, `SELECT string_agg(DISTINCT backend, ',') FROM responses WHERE via_batch`).Scan(&backends); err != nil || backends != "openai-batch" {
		t.Errorf("backend column %q %v", backends, err)
	}

	// Batch and live are interchangeable: a live run of the same requests
	// sends only the retryable failure (with RetryFailed), nothing else.
	srv := simtest.New(simtest.Options{})
	defer srv.Close()
	live, err := Run(ctx, reqs, NewOpenAI(OpenAIConfig{BaseURL: srv.BaseURL()}), store, RunOptions{RetryFailed: true})
	if err != nil {
		t.Fatal(err)
	}
	if live.Cached != 2 || live.SkippedFailed != 1 || live.Sent != 1 || len(srv.Log()) != 1 {
		t.Errorf("live run after import %+v, server saw %d", live, len(srv.Log()))
	}
	// Importing again leaves the answers as they are.
	again, err := ImportBatchResults(ctx, OpenAIBatch, keys, store, "testdata/batch/openai-output.jsonl")
	if err != nil || again.AlreadyAnswered != 2 || again.Answered != 0 {
		t.Errorf("second import %+v %v", again, err)
	}
}

func TestImportAnthropicBatchFixtures(t *testing.T) {
	ctx := context.Background()
	reqs := fixtureRequests(t)
	keys, err := ReadBatchKeys("testdata/batch/anthropic-001.keys.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	store := NewMemStore()
	st, err := ImportBatchResults(ctx, AnthropicBatch, keys, store, "testdata/batch/anthropic-results.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want := BatchImport{Lines: 3, Answered: 1, FailedPermanent: 1, FailedRetryable: 1, TokensIn: 52, TokensOut: 11}
	if fmt.Sprint(st) != fmt.Sprint(want) {
		t.Errorf("import %+v, want %+v", st, want)
	}
	got, _ := store.Get(ctx, keysOf(reqs))
	if r := got[reqs[0].Key()]; r.Text != "Nice. Now run the integration tests." || r.FinishReason != "end_turn" || !r.ViaBatch {
		t.Errorf("answer 0: %+v", r)
	}
	if r := got[reqs[1].Key()]; !r.Permanent || !strings.Contains(r.Err, "invalid_request_error") {
		t.Errorf("answer 1: %+v", r)
	}
	if r := got[reqs[3].Key()]; r.Permanent || r.Err != "batch: request expired" {
		t.Errorf("answer 3: %+v", r)
	}
	if store.Backend(reqs[0].Key()) != "anthropic-batch" {
		t.Errorf("backend %q", store.Backend(reqs[0].Key()))
	}
}

// TestBatchRoundTrip writes requests, fabricates each provider's result
// file for them in its documented format, and imports it back.
func TestBatchRoundTrip(t *testing.T) {
	ctx := context.Background()
	reqs := testRequests(120, "https://api.openai.com/v1")
	for _, p := range []BatchProvider{OpenAIBatch, AnthropicBatch} {
		t.Run(string(p), func(t *testing.T) {
			dir := t.TempDir()
			files, err := WriteBatchFiles(dir, "rt", p, reqs, BatchOptions{MaxRequests: 50})
			if err != nil {
				t.Fatal(err)
			}
			var results []string
			for i, f := range files {
				var out bytes.Buffer
				for j, line := range readLines(t, f.Path) {
					var in struct {
						CustomID string `json:"custom_id"`
					}
					json.Unmarshal([]byte(line), &in)
					text := "answer " + in.CustomID
					if p == OpenAIBatch {
						fmt.Fprintf(&out, `{"id":"batch_req_%d_%d","custom_id":%q,"response":{"status_code":200,"request_id":"req_%d","body":{"id":"chatcmpl-%d","object":"chat.completion","created":1735689600,"model":"gpt-4.1-mini","choices":[{"index":0,"message":{"role":"assistant","content":%q,"refusal":null},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":20,"completion_tokens":3,"total_tokens":23}}},"error":null}`+"\n", i, j, in.CustomID, j, j, text)
					} else {
						fmt.Fprintf(&out, `{"custom_id":%q,"result":{"type":"succeeded","message":{"id":"msg_%d","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":%q}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":20,"output_tokens":3}}}}`+"\n", in.CustomID, j, text)
					}
				}
				path := filepath.Join(dir, fmt.Sprintf("results-%d.jsonl", i))
				os.WriteFile(path, out.Bytes(), 0o644)
				results = append(results, path)
			}
			keys, err := ReadBatchKeys(keysPaths(files)...)
			if err != nil {
				t.Fatal(err)
			}
			store := NewDuckStore(memWorkspace(t))
			st, err := ImportBatchResults(ctx, p, keys, store, results...)
			if err != nil {
				t.Fatal(err)
			}
			if st.Answered != 120 || st.Missing != 0 || len(st.Problems) != 0 || st.TokensIn != 2400 {
				t.Errorf("import %+v", st)
			}
			got, _ := store.Get(ctx, keysOf(reqs))
			for _, r := range reqs {
				g := got[r.Key()]
				if g.Text != "answer "+r.Key()[:16] || !g.ViaBatch || g.Attempts != 1 {
					t.Fatalf("row for %s: %+v", r.Key()[:16], g)
				}
			}
			// Half the results only: the rest are missing.
			keys2, _ := ReadBatchKeys(keysPaths(files)...)
			st2, _ := ImportBatchResults(ctx, p, keys2, NewMemStore(), results[0])
			if st2.Answered != 50 || st2.Missing != 70 {
				t.Errorf("partial import %+v", st2)
			}
		})
	}
}

// TestBatchLineOverLimit: a keys line longer than MaxBatchLineBytes is
// refused with file:line and the limit in words (not bufio's "token too
// long"); the lines around a long one are still read.
func TestBatchLineOverLimit(t *testing.T) {
	defer func(n int) { MaxBatchLineBytes = n }(MaxBatchLineBytes)
	dir := t.TempDir()
	files, err := WriteBatchFiles(dir, "b", OpenAIBatch, testRequests(3, ""), BatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(files[0].KeysPath)
	lines := strings.SplitAfter(string(b), "\n")
	MaxBatchLineBytes = len(lines[0]) + 10
	long := strings.TrimSuffix(lines[1], "\n") + strings.Repeat(" ", 2*MaxBatchLineBytes) + "\n"
	os.WriteFile(files[0].KeysPath, []byte(lines[0]+long+strings.Join(lines[2:], "")), 0o644)
	if _, err := ReadBatchKeys(files[0].KeysPath); err == nil || !strings.HasSuffix(err.Error(), ":2: line longer than the limit of "+sizeWords(MaxBatchLineBytes)) {
		t.Errorf("err %v, want line 2 refused with the limit", err)
	}
	var got []string
	err = eachLine(strings.NewReader("a\n"+strings.Repeat("x", 3*MaxBatchLineBytes)+"\n\nb"), func(n int, line []byte) error {
		got = append(got, fmt.Sprintf("%d:%s", n, line))
		return nil
	}, func(n int, limit string) error {
		got = append(got, fmt.Sprintf("%d: long", n))
		return nil
	})
	if err != nil || strings.Join(got, ",") != "1:a,2: long,4:b" {
		t.Errorf("lines %v, err %v", got, err)
	}
}
