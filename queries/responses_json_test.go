package queries

import (
	"context"
	"testing"
)

// TestResponsesStoreJSONObjects: request and raw are JSON objects in the
// table (queryable with ->>), not strings holding JSON.
func TestResponsesStoreJSONObjects(t *testing.T) {
	ctx := context.Background()
	ws, err := Open(ctx, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	row := ResponseRow{Key: "k1", Backend: "openai", Model: "m", Request: []byte(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`),
		Text: "yo", Raw: []byte(`{"id":"c1","usage":{"prompt_tokens":3}}`)}
	if err := AppendResponses(ctx, ws, []ResponseRow{row}); err != nil {
		t.Fatal(err)
	}
	row.Key = "k2"
	if err := PutResponses(ctx, ws, []ResponseRow{row}); err != nil {
		t.Fatal(err)
	}
	var n int
	ws.Conn().QueryRowContext(ctx, `SELECT count(*) FROM responses WHERE (request->>'model') = 'm' AND (raw->'usage'->>'prompt_tokens') = '3' AND json_type(request) = 'OBJECT'`).Scan(&n)
	if n != 2 {
		t.Errorf("%d of 2 rows hold JSON objects", n)
	}
}
