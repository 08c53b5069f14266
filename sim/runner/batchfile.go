package runner

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/ub-bench/ub/ingest/lines"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// BatchProvider names a provider's batch file format.
type BatchProvider string

// The batch formats ub writes and reads.
const (
	// OpenAIBatch is the OpenAI Batch API: a JSONL file of
	// {"custom_id","method","url","body"} lines, uploaded with purpose
	// "batch"; results come back as output (and error) JSONL files.
	OpenAIBatch BatchProvider = "openai"
	// AnthropicBatch is Anthropic's Message Batches API: ub writes one
	// {"custom_id","params"} request per line; POST them to
	// /v1/messages/batches as {"requests": [line, ...]} (e.g. with
	// jq -s '{requests: .}'). Results come back as one JSONL file.
	AnthropicBatch BatchProvider = "anthropic"
)

// The providers' documented limits per batch, in requests and bytes (MB
// read as 10^6 bytes, the smaller reading).
//
// OpenAI, API reference, "Create batch", input_file_id: "The file can
// contain up to 50,000 requests, and can be up to 200 MB in size"
// (https://platform.openai.com/docs/api-reference/batch/create; the same
// text is in openai-go v3.98.0 batch.go, BatchNewParams.InputFileID).
//
// Anthropic, "Batch processing", Batch limitations: "A Message Batch is
// limited to either 100,000 Message requests or 256 MB in size, whichever
// is reached first" (https://docs.anthropic.com/en/docs/build-with-claude/batch-processing);
// custom_id must match ^[a-zA-Z0-9_-]{1,64}$ (API reference, "Create a
// Message Batch").
const (
	OpenAIBatchMaxRequests    = 50_000
	OpenAIBatchMaxBytes       = 200_000_000
	AnthropicBatchMaxRequests = 100_000
	AnthropicBatchMaxBytes    = 256_000_000
)

// BatchOptions configures WriteBatchFiles. The zero value uses each
// provider's limits.
type BatchOptions struct {
	MaxRequests int   // requests per file; 0 (or more than the provider's) means the provider's limit
	MaxBytes    int64 // bytes per file (Anthropic: per request body); 0 (or more) means the provider's limit
	// IDLen is the number of hex digits of the request key used as
	// custom_id; 0 means 16 (64 bits). Two keys with one custom_id in a
	// call are an error.
	IDLen int
	// DefaultMaxTokens is Anthropic's required max_tokens when a request
	// has none; 0 means 4096.
	DefaultMaxTokens int
	// MaxCompletionTokens: see OpenAIConfig.MaxCompletionTokens.
	MaxCompletionTokens bool
}

// BatchFile is one request file written, with its key map beside it.
type BatchFile struct {
	Path     string // <dir>/<name>-NNN.jsonl: the file to upload
	KeysPath string // <dir>/<name>-NNN.keys.jsonl: custom_id -> key and request
	Requests int    // requests in the file
	Bytes    int64  // size of the request file
}

// batchKeyLine is one line of a keys file.
type batchKeyLine struct {
	CustomID string          `json:"custom_id"`
	Key      string          `json:"key"`
	Request  json.RawMessage `json:"request"` // canonical; hashes to Key
}

// WriteBatchFiles writes reqs (deduplicated by key, in order) as provider
// batch request files in dir, named <name>-001.jsonl, <name>-002.jsonl, ...,
// starting a new file before one would exceed the provider's request or
// byte limit. Beside each it writes <name>-NNN.keys.jsonl, one
// {"custom_id","key","request"} line per request, which ReadBatchKeys reads
// back to file the results under the same keys a live run uses. custom_id
// is the first IDLen hex digits of the request key (itself a sha256). The
// same requests give byte-identical files. dir is created if needed; files
// of an earlier call with the same name are replaced, not removed.
func WriteBatchFiles(dir, name string, provider BatchProvider, reqs []Request, opts BatchOptions) ([]BatchFile, error) {
	maxReq, maxBytes, overhead, err := batchLimits(provider, opts)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("batch: %w", err)
	}
	idLen := opts.IDLen
	if idLen <= 0 {
		idLen = 16
	}
	idLen = min(idLen, 64)
	ids := map[string]string{} // custom_id -> key, across the call's files
	var files []BatchFile
	var w *batchWriter
	for i, r := range reqs {
		canon := r.Canonical()
		key := keyOf(canon)
		id := key[:idLen]
		if other, ok := ids[id]; ok {
			if other == key {
				continue // the same request twice: written once
			}
			return nil, fmt.Errorf("batch: requests %s and %s share custom_id %s; use a longer IDLen", other, key, id)
		}
		ids[id] = key
		line, err := batchLine(provider, id, r, opts)
		if err != nil {
			return nil, fmt.Errorf("batch: request %d (%s): %w", i, key[:12], err)
		}
		size := int64(len(line)) + 1
		if size+overhead > maxBytes {
			return nil, fmt.Errorf("batch: request %d (%s) is %d bytes, over the %d-byte limit of a batch", i, key[:12], size, maxBytes)
		}
		if w == nil || w.file.Requests >= maxReq || w.file.Bytes+size+overhead > maxBytes {
			if w != nil {
				if err := w.close(); err != nil {
					return nil, err
				}
				files = append(files, w.file)
			}
			if w, err = newBatchWriter(dir, name, len(files)+1); err != nil {
				return nil, err
			}
		}
		kl, _ := json.Marshal(batchKeyLine{CustomID: id, Key: key, Request: canon})
		if err := w.add(line, kl); err != nil {
			return nil, err
		}
	}
	if w != nil {
		if err := w.close(); err != nil {
			return nil, err
		}
		files = append(files, w.file)
	}
	return files, nil
}

func batchLimits(p BatchProvider, opts BatchOptions) (maxReq int, maxBytes, overhead int64, err error) {
	switch p {
	case OpenAIBatch:
		maxReq, maxBytes = OpenAIBatchMaxRequests, OpenAIBatchMaxBytes
	case AnthropicBatch:
		// The lines go into one JSON body: {"requests":[...]}.
		maxReq, maxBytes, overhead = AnthropicBatchMaxRequests, AnthropicBatchMaxBytes, int64(len(`{"requests":[]}`))
	default:
		return 0, 0, 0, fmt.Errorf("batch: unknown provider %q (want %s or %s)", p, OpenAIBatch, AnthropicBatch)
	}
	if opts.MaxRequests > 0 && opts.MaxRequests < maxReq {
		maxReq = opts.MaxRequests
	}
	if opts.MaxBytes > 0 && opts.MaxBytes < maxBytes {
		maxBytes = opts.MaxBytes
	}
	return maxReq, maxBytes, overhead, nil
}

// batchLine is the request line of r in the provider's format.
func batchLine(p BatchProvider, id string, r Request, opts BatchOptions) ([]byte, error) {
	switch p {
	case OpenAIBatch:
		body, err := ChatBody(r, opts.MaxCompletionTokens)
		if err != nil {
			return nil, err
		}
		return json.Marshal(struct {
			CustomID string          `json:"custom_id"`
			Method   string          `json:"method"`
			URL      string          `json:"url"`
			Body     json.RawMessage `json:"body"`
		}{id, "POST", "/v1/chat/completions", body})
	default:
		params, err := anthropicParams(r, opts.DefaultMaxTokens)
		if err != nil {
			return nil, err
		}
		return json.Marshal(struct {
			CustomID string         `json:"custom_id"`
			Params   map[string]any `json:"params"`
		}{id, params})
	}
}

// anthropicParams are the Messages API parameters of r: system and
// developer messages joined into the top-level system field (Anthropic has
// no system role in messages), user and assistant messages in order,
// max_tokens (required), temperature, and Params.Extra merged in last.
func anthropicParams(r Request, defaultMax int) (map[string]any, error) {
	if r.Params.ReasoningEffort != "" {
		return nil, errors.New(`reasoning_effort has no Anthropic equivalent; set extra "thinking" instead`)
	}
	var system []string
	msgs := []map[string]string{}
	for i, m := range r.Messages {
		switch m.Role {
		case "system", "developer":
			system = append(system, m.Content)
		case "user", "assistant":
			msgs = append(msgs, map[string]string{"role": m.Role, "content": m.Content})
		default:
			return nil, fmt.Errorf("message %d: role %q is not system, user or assistant", i, m.Role)
		}
	}
	maxTokens := r.Params.MaxTokens
	if maxTokens <= 0 {
		maxTokens = defaultMax
	}
	if maxTokens <= 0 {
		maxTokens = 4096
	}
	p := map[string]any{"model": r.Model, "max_tokens": maxTokens, "messages": msgs}
	if len(system) > 0 {
		p["system"] = strings.Join(system, "\n\n")
	}
	if r.Params.Temperature != nil {
		p["temperature"] = *r.Params.Temperature
	}
	for k, v := range r.Params.Extra {
		p[k] = v
	}
	return p, nil
}

type batchWriter struct {
	file      BatchFile
	f, kf     *os.File
	bw, kw    *bufio.Writer
	tmp, ktmp string
}

func newBatchWriter(dir, name string, n int) (*batchWriter, error) {
	base := filepath.Join(dir, fmt.Sprintf("%s-%03d", name, n))
	w := &batchWriter{file: BatchFile{Path: base + ".jsonl", KeysPath: base + ".keys.jsonl"}}
	var err error
	w.tmp, w.ktmp = w.file.Path+".tmp", w.file.KeysPath+".tmp"
	if w.f, err = os.Create(w.tmp); err != nil {
		return nil, fmt.Errorf("batch: %w", err)
	}
	if w.kf, err = os.Create(w.ktmp); err != nil {
		w.f.Close()
		return nil, fmt.Errorf("batch: %w", err)
	}
	w.bw, w.kw = bufio.NewWriterSize(w.f, 1<<20), bufio.NewWriter(w.kf)
	return w, nil
}

func (w *batchWriter) add(line, keyLine []byte) error {
	w.bw.Write(line)
	w.kw.Write(keyLine)
	w.kw.WriteByte('\n')
	if err := w.bw.WriteByte('\n'); err != nil {
		return fmt.Errorf("batch: write %s: %w", w.file.Path, err)
	}
	w.file.Requests++
	w.file.Bytes += int64(len(line)) + 1
	return nil
}

// close flushes both files and moves them into place, the request file
// last, so a request file never exists without its keys.
func (w *batchWriter) close() error {
	err := errors.Join(w.bw.Flush(), w.kw.Flush(), w.f.Close(), w.kf.Close())
	if err == nil {
		err = os.Rename(w.ktmp, w.file.KeysPath)
	}
	if err == nil {
		err = os.Rename(w.tmp, w.file.Path)
	}
	if err != nil {
		return fmt.Errorf("batch: write %s: %w", w.file.Path, err)
	}
	return nil
}

// BatchKeys maps a batch's custom_ids to the requests they stand for.
type BatchKeys map[string]KeyedRequest

// KeyedRequest is a request with its key.
type KeyedRequest struct {
	Key     string  // Request.Key()
	Request Request // as the keys file holds it (canonical JSON)
}

// ReadBatchKeys reads keys files written by WriteBatchFiles. A line whose
// request does not hash to its key is an error (the file was edited).
func ReadBatchKeys(paths ...string) (BatchKeys, error) {
	keys := BatchKeys{}
	for _, path := range paths {
		err := eachLineFile(path, func(n int, line []byte) error {
			var kl batchKeyLine
			if err := json.Unmarshal(line, &kl); err != nil {
				return fmt.Errorf("%s:%d: %w", path, n, err)
			}
			var r Request
			if err := json.Unmarshal(kl.Request, &r); err != nil {
				return fmt.Errorf("%s:%d: request: %w", path, n, err)
			}
			if r.Key() != kl.Key {
				return fmt.Errorf("%s:%d: request does not hash to its key %s", path, n, kl.Key)
			}
			if old, ok := keys[kl.CustomID]; ok && old.Key != kl.Key {
				return fmt.Errorf("%s:%d: custom_id %s names two keys", path, n, kl.CustomID)
			}
			keys[kl.CustomID] = KeyedRequest{Key: kl.Key, Request: r}
			return nil
		}, func(n int, reason string) error {
			return fmt.Errorf("%s:%d: %s", path, n, reason)
		})
		if err != nil {
			return nil, err
		}
	}
	return keys, nil
}

// MaxBatchLineBytes is the longest line of a batch keys or results file (a
// variable so that tests can lower it).
var MaxBatchLineBytes = 512 << 20

// eachLine calls fn for every non-blank line of r (1-based numbers,
// lines.EachLine); a line longer than MaxBatchLineBytes, or one that is not
// valid UTF-8, goes to bad instead, with its number and the reason in words
// ("line longer than the limit of 512 MiB").
func eachLine(r io.Reader, fn func(n int, line []byte) error, bad func(n int, reason string) error) error {
	return lines.EachLine(r, "", MaxBatchLineBytes, fn, bad)
}

// eachLineFile is eachLine over the file at path.
func eachLineFile(path string, fn func(n int, line []byte) error, bad func(n int, reason string) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return eachLine(f, fn, bad)
}

// sizeWords says n bytes in words: "512 MiB", "4 KiB", "100 bytes".
func sizeWords(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// BatchImport counts what ImportBatchResults did.
type BatchImport struct {
	Lines           int      // result lines read
	Answered        int      // stored with an answer
	FailedPermanent int      // stored as permanent failures (e.g. invalid_request_error)
	FailedRetryable int      // stored as retryable failures (server errors, canceled, expired)
	AlreadyAnswered int      // results for keys the store had answered: left as they were
	Missing         int      // keys of the batch without a result line
	TokensIn        int64    // of the answers stored
	TokensOut       int64    // of the answers stored
	Problems        []string // bad lines, "path:line: reason"; the rest is imported
}

// ImportBatchResults reads a provider's result files (OpenAI: the output
// and the error file; Anthropic: the results file) and stores every result
// of a custom_id in keys under its request key with ViaBatch set, so that
// batch and live answers are interchangeable. A key the store has already
// answered is left as it is. Bad lines are reported in Problems and
// skipped; the error is for I/O and the store.
func ImportBatchResults(ctx context.Context, provider BatchProvider, keys BatchKeys, store Store, paths ...string) (BatchImport, error) {
	var st BatchImport
	if provider != OpenAIBatch && provider != AnthropicBatch {
		return st, fmt.Errorf("batch: unknown provider %q (want %s or %s)", provider, OpenAIBatch, AnthropicBatch)
	}
	seen := map[string]bool{}
	var pending []Entry
	var ks []string // pending's keys
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		stored, err := store.Lookup(ctx, ks)
		if err != nil {
			return err
		}
		var put []Entry
		for i, e := range pending {
			s, ok := stored[ks[i]]
			if ok && s.Answered() {
				st.AlreadyAnswered++
				continue
			}
			e.Response.Attempts = 1 + s.Attempts
			e.Backend = string(provider) + "-batch"
			put = append(put, e)
		}
		if err := store.Put(ctx, put); err != nil {
			return err
		}
		for _, e := range put {
			switch {
			case e.Response.Err == "":
				st.Answered++
				st.TokensIn += int64(e.Response.TokensIn)
				st.TokensOut += int64(e.Response.TokensOut)
			case e.Response.Permanent:
				st.FailedPermanent++
			default:
				st.FailedRetryable++
			}
		}
		pending, ks = pending[:0], ks[:0]
		return nil
	}
	for _, path := range paths {
		err := eachLineFile(path, func(n int, line []byte) error {
			st.Lines++
			id, resp, perr := parseBatchResult(provider, line)
			if perr != nil {
				st.Problems = append(st.Problems, fmt.Sprintf("%s:%d: %v", path, n, perr))
				return nil
			}
			kr, ok := keys[id]
			switch {
			case !ok:
				st.Problems = append(st.Problems, fmt.Sprintf("%s:%d: custom_id %q is not in this batch's keys", path, n, id))
				return nil
			case seen[id]:
				st.Problems = append(st.Problems, fmt.Sprintf("%s:%d: custom_id %q has a second result", path, n, id))
				return nil
			}
			seen[id] = true
			resp.ViaBatch = true
			pending = append(pending, Entry{Request: kr.Request, Response: resp})
			ks = append(ks, kr.Key)
			if len(pending) >= 512 {
				return flush()
			}
			return nil
		}, func(n int, reason string) error {
			st.Lines++
			st.Problems = append(st.Problems, fmt.Sprintf("%s:%d: %s", path, n, reason))
			return nil
		})
		if err != nil {
			return st, err
		}
	}
	if err := flush(); err != nil {
		return st, err
	}
	st.Missing = len(keys) - len(seen)
	return st, nil
}

// parseBatchResult reads one result line: its custom_id and the response
// or failure it reports.
func parseBatchResult(p BatchProvider, line []byte) (string, Response, error) {
	if p == OpenAIBatch {
		// {"id","custom_id","response":{"status_code","request_id","body"},"error":{"code","message"}|null}
		var v struct {
			CustomID string `json:"custom_id"`
			Response *struct {
				StatusCode int             `json:"status_code"`
				Body       json.RawMessage `json:"body"`
			} `json:"response"`
			Error *struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(line, &v); err != nil {
			return "", Response{}, fmt.Errorf("not a batch output line: %w", err)
		}
		if v.CustomID == "" {
			return "", Response{}, errors.New("no custom_id")
		}
		switch {
		case v.Error != nil:
			msg := "batch: " + strings.TrimPrefix(v.Error.Code+": "+v.Error.Message, ": ")
			perm, _ := Classify(0, msg)
			return v.CustomID, Response{Err: msg, Permanent: perm}, nil
		case v.Response == nil:
			return "", Response{}, errors.New("neither response nor error")
		case v.Response.StatusCode == 200:
			resp, err := ParseChatCompletion(v.Response.Body)
			if err != nil {
				return v.CustomID, Response{Err: "batch: malformed response body: " + err.Error(), Raw: resp.Raw}, nil
			}
			return v.CustomID, resp, nil
		default:
			ce := &CallError{Status: v.Response.StatusCode, Msg: errorMessage(v.Response.Body, "error")}
			ce.Permanent, _ = Classify(ce.Status, ce.Msg)
			resp := Response{Err: ce.Error(), Permanent: ce.Permanent}
			if json.Valid(v.Response.Body) {
				resp.Raw = append(json.RawMessage(nil), v.Response.Body...)
			}
			return v.CustomID, resp, nil
		}
	}
	// {"custom_id","result":{"type":"succeeded","message":{...}} | {"type":"errored","error":{"type":"error","error":{"type","message"}}} | {"type":"canceled"} | {"type":"expired"}}
	var v struct {
		CustomID string `json:"custom_id"`
		Result   struct {
			Type    string          `json:"type"`
			Message json.RawMessage `json:"message"`
			Error   json.RawMessage `json:"error"`
		} `json:"result"`
	}
	if err := json.Unmarshal(line, &v); err != nil {
		return "", Response{}, fmt.Errorf("not a batch result line: %w", err)
	}
	if v.CustomID == "" {
		return "", Response{}, errors.New("no custom_id")
	}
	switch v.Result.Type {
	case "succeeded":
		var m struct {
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
			StopReason string `json:"stop_reason"`
			Usage      struct {
				InputTokens  int `json:"input_tokens"`
				OutputTokens int `json:"output_tokens"`
			} `json:"usage"`
		}
		if err := json.Unmarshal(v.Result.Message, &m); err != nil {
			return v.CustomID, Response{Err: "batch: malformed message: " + err.Error()}, nil
		}
		var text strings.Builder
		for _, c := range m.Content {
			if c.Type == "text" {
				text.WriteString(c.Text)
			}
		}
		return v.CustomID, Response{Text: text.String(), FinishReason: m.StopReason,
			TokensIn: m.Usage.InputTokens, TokensOut: m.Usage.OutputTokens,
			Raw: append(json.RawMessage(nil), v.Result.Message...)}, nil
	case "errored":
		var e struct {
			Type  string `json:"type"`
			Error struct {
				Type    string `json:"type"`
				Message string `json:"message"`
			} `json:"error"`
		}
		_ = json.Unmarshal(v.Result.Error, &e)
		typ, msg := e.Error.Type, e.Error.Message
		if typ == "" {
			typ = e.Type
		}
		// invalid_request_error is the request's fault: sending it again
		// cannot help. api_error, overloaded_error and the like can pass.
		perm := typ == "invalid_request_error" || IsContextLength(msg)
		resp := Response{Err: "batch: " + strings.TrimPrefix(typ+": "+msg, ": "), Permanent: perm}
		if json.Valid(v.Result.Error) {
			resp.Raw = append(json.RawMessage(nil), v.Result.Error...)
		}
		return v.CustomID, resp, nil
	case "canceled", "expired":
		return v.CustomID, Response{Err: "batch: request " + v.Result.Type}, nil
	default:
		return "", Response{}, fmt.Errorf("result type %q is not succeeded, errored, canceled or expired", v.Result.Type)
	}
}
