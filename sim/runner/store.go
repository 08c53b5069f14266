package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"sync"

	"github.com/ub-bench/ub/queries"
)

// Entry is one response to store with the request it answers.
type Entry struct {
	Request  Request
	Response Response
	// Backend is the responses.backend column; "" means Request.Backend.
	// Batch results use "openai-batch" or "anthropic-batch".
	Backend string

	canonical []byte // Request.Canonical(), when already computed
}

// Stored is what a store knows of a key without its text: answered (Err
// ""), or failed, permanently or not, after Attempts calls in all.
type Stored struct {
	Err       string
	Permanent bool
	Attempts  int
}

// Answered reports whether the key has an answer.
func (s Stored) Answered() bool { return s.Err == "" }

// Store is the durable, content-addressed response cache: one row per
// request key. Implementations are safe for concurrent use.
type Store interface {
	// Lookup returns the state of every key among keys that has a row.
	Lookup(ctx context.Context, keys []string) (map[string]Stored, error)
	// Put inserts or replaces the rows of entries: when it returns nil
	// every one of them survives a crash. On an error some may be stored
	// (each whole) and others not.
	Put(ctx context.Context, entries []Entry) error
	// Get returns the stored response of every key among keys that has a
	// row, answered or failed.
	Get(ctx context.Context, keys []string) (map[string]Response, error)
	// FailedKeys returns, sorted, the keys stored with a retryable error,
	// and with permanentToo those with a permanent error as well: what
	// `ub generate --retry-failed` sends again.
	FailedKeys(ctx context.Context, permanentToo bool) ([]string, error)
}

// keyOf is Request.Key over an already computed canonical JSON.
func keyOf(canonical []byte) string {
	h := sha256.Sum256(canonical)
	return hex.EncodeToString(h[:])
}

// DuckStore is the Store over the workspace's responses table. The
// workspace has one connection, so DuckStore serializes its use of it;
// while a Run writes through a DuckStore, use the workspace only through it.
type DuckStore struct {
	ws *queries.Workspace
	mu sync.Mutex
	// seen holds keys known to have a row (found by Lookup or Get, or
	// put): Put replaces those on the slow path and appends the others.
	seen map[string]bool
}

// NewDuckStore returns the store of ws.
func NewDuckStore(ws *queries.Workspace) *DuckStore {
	return &DuckStore{ws: ws, seen: map[string]bool{}}
}

// Do runs fn holding the store's use of the workspace: the way to read the
// workspace while a Run writes through the store (the requests of RunSeq
// made from the workspace), since its one connection would otherwise run
// fn's statements inside the store's open transaction.
func (s *DuckStore) Do(fn func() error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return fn()
}

// Lookup implements Store.
func (s *DuckStore) Lookup(ctx context.Context, keys []string) (map[string]Stored, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rows, err := queries.LookupResponses(ctx, s.ws, keys)
	if err != nil {
		return nil, err
	}
	out := make(map[string]Stored, len(rows))
	for k, r := range rows {
		out[k] = Stored{Err: r.Error, Permanent: r.Permanent, Attempts: r.Attempts}
		s.seen[k] = true
	}
	return out, nil
}

// Put implements Store. New keys are appended in one DuckDB transaction
// (group commit); keys known to be stored, or all of them when the append
// finds one stored by someone else, are replaced in a second. Of two
// entries with one key the later wins.
func (s *DuckStore) Put(ctx context.Context, entries []Entry) error {
	rows := make([]queries.ResponseRow, 0, len(entries))
	at := make(map[string]int, len(entries))
	for _, e := range entries {
		r := entryRow(e)
		if i, ok := at[r.Key]; ok {
			rows[i] = r
			continue
		}
		at[r.Key] = len(rows)
		rows = append(rows, r)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var fresh, old []queries.ResponseRow
	for _, r := range rows {
		if s.seen[r.Key] {
			old = append(old, r)
		} else {
			fresh = append(fresh, r)
		}
	}
	if err := queries.AppendResponses(ctx, s.ws, fresh); err != nil {
		old = append(old, fresh...) // a key was stored meanwhile: replace them all
	}
	if err := queries.PutResponses(ctx, s.ws, old); err != nil {
		return err
	}
	for _, r := range rows {
		s.seen[r.Key] = true
	}
	return nil
}

func entryRow(e Entry) queries.ResponseRow {
	canon := e.canonical
	if canon == nil {
		canon = e.Request.Canonical()
	}
	b := e.Backend
	if b == "" {
		b = e.Request.Backend
	}
	r := e.Response
	row := queries.ResponseRow{
		Key: keyOf(canon), Backend: b, Model: e.Request.Model, Request: canon,
		Text: r.Text, TokensIn: r.TokensIn, TokensOut: r.TokensOut, LatencyMS: r.LatencyMS,
		FinishReason: r.FinishReason, Error: r.Err, Permanent: r.Err != "" && r.Permanent,
		Attempts: r.Attempts, ViaBatch: r.ViaBatch,
	}
	if len(r.Raw) > 0 && json.Valid(r.Raw) {
		row.Raw = r.Raw
	}
	return row
}

// Get implements Store.
func (s *DuckStore) Get(ctx context.Context, keys []string) (map[string]Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rows, err := queries.GetResponses(ctx, s.ws, keys)
	if err != nil {
		return nil, err
	}
	out := make(map[string]Response, len(rows))
	for k, r := range rows {
		s.seen[k] = true
		out[k] = Response{
			Text: r.Text, TokensIn: r.TokensIn, TokensOut: r.TokensOut, LatencyMS: r.LatencyMS,
			FinishReason: r.FinishReason, Raw: r.Raw, ViaBatch: r.ViaBatch,
			Err: r.Error, Permanent: r.Permanent, Attempts: r.Attempts,
		}
	}
	return out, nil
}

// FailedKeys implements Store.
func (s *DuckStore) FailedKeys(ctx context.Context, permanentToo bool) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return queries.FailedResponseKeys(ctx, s.ws.Conn(), permanentToo)
}

// MemStore is a Store in memory, for tests and throwaway runs.
type MemStore struct {
	mu   sync.Mutex
	rows map[string]memRow
	puts int
}

type memRow struct {
	req     []byte
	backend string
	resp    Response
}

// NewMemStore returns an empty MemStore.
func NewMemStore() *MemStore { return &MemStore{rows: map[string]memRow{}} }

// Lookup implements Store.
func (m *MemStore) Lookup(_ context.Context, keys []string) (map[string]Stored, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]Stored{}
	for _, k := range keys {
		if r, ok := m.rows[k]; ok {
			out[k] = Stored{Err: r.resp.Err, Permanent: r.resp.Permanent, Attempts: r.resp.Attempts}
		}
	}
	return out, nil
}

// Put implements Store.
func (m *MemStore) Put(_ context.Context, entries []Entry) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.puts++
	for _, e := range entries {
		row := entryRow(e)
		resp := e.Response
		resp.Permanent = row.Permanent
		resp.Attempts = row.Attempts
		if resp.Attempts < 1 {
			resp.Attempts = 1
		}
		resp.Raw = row.Raw
		m.rows[row.Key] = memRow{req: row.Request, backend: row.Backend, resp: resp}
	}
	return nil
}

// Get implements Store.
func (m *MemStore) Get(_ context.Context, keys []string) (map[string]Response, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]Response{}
	for _, k := range keys {
		if r, ok := m.rows[k]; ok {
			out[k] = r.resp
		}
	}
	return out, nil
}

// FailedKeys implements Store.
func (m *MemStore) FailedKeys(_ context.Context, permanentToo bool) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var keys []string
	for k, r := range m.rows {
		if r.resp.Err != "" && (!r.resp.Permanent || permanentToo) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys, nil
}

// Len is the number of stored rows.
func (m *MemStore) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.rows)
}

// Puts is the number of Put calls (commits) so far.
func (m *MemStore) Puts() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.puts
}

// Backend returns the backend column of key's row ("" when absent).
func (m *MemStore) Backend(key string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.rows[key].backend
}
