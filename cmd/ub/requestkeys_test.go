package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ub-bench/ub/queries"
)

// TestGradeAndRubricsWriteRequestKeys pins the requests that ub grade and
// ub rubrics write send: the sha256 of their sorted canonical requests
// (the text each response-cache key hashes, with the test server's URL
// replaced by BASE). The digests were taken from the commands before they
// ran on runner.RunStep (commit dbfb4ca): equal digests mean equal keys, so
// answers cached in existing workspaces still count.
func TestGradeAndRubricsWriteRequestKeys(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := gradeWorkspace(t, dir)
	taskRE := regexp.MustCompile(`TASK airline/(\d+)`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Model    string
			Messages []struct{ Content string } `json:"messages"`
		}
		json.Unmarshal(body, &req)
		answer := `{"verdict": "pass", "turn_idx": null, "reason": "kept"}`
		switch req.Model {
		case "writer":
			answer = fmt.Sprintf(`{"criteria": [{"family": "disclosure", "mode": "volunteers_unasked_info", "quote": "Your user id is u_%[1]s.", "quote_source": "known_info", "text": "No id before asked."}]}`,
				taskRE.FindStringSubmatch(req.Messages[1].Content)[1])
		case "verifier":
			answer = `{"decisions": []}`
		}
		out, _ := json.Marshal(answer)
		fmt.Fprintf(w, `{"id":"c","object":"chat.completion","created":0,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}`, out)
	}))
	defer srv.Close()
	digest := func(model string) (int, string) {
		t.Helper()
		ws, err := queries.Open(t.Context(), db, queries.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer ws.Close()
		rows, err := ws.Conn().QueryContext(t.Context(), `SELECT CAST(request AS VARCHAR) FROM responses WHERE model = ? ORDER BY key`, model)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var reqs []string
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			reqs = append(reqs, strings.ReplaceAll(s, srv.URL, "BASE"))
		}
		slices.Sort(reqs) // the keys hash the server's URL: sort what does not
		h := sha256.Sum256([]byte(strings.Join(reqs, "\n")))
		return len(reqs), hex.EncodeToString(h[:])
	}
	if code, out, errs := runUB(t, "--db", db, "grade", "--model", "g", "--base-url", srv.URL+"/v1"); code != 0 {
		t.Fatalf("grade: %d\n%s\n%s", code, out, errs)
	}
	// The verifier keeps nothing (its answer decides no criterion): exit 0, all rejected.
	if code, out, errs := runUB(t, "--db", db, "rubrics", "write", "--model", "writer", "--verifier-model", "verifier", "--base-url", srv.URL+"/v1"); code != 0 {
		t.Fatalf("rubrics write: %d\n%s\n%s", code, out, errs)
	}
	for _, c := range []struct {
		model string
		n     int
		want  string
	}{
		{"g", 16, "5f8f18ffa2142411d43657e524662dfa72418400adc14f6fba5fdd1bd1b2793f"},
		{"writer", 4, "2e6483518e21fd98e4c8a2a2c45a5b78f5be224ea979fa7167e8e9e27a96e978"},
		{"verifier", 4, "ff097b7d8c12b13533bba8083d57e2eaa07297061153591426913b5cdb1fc130"},
	} {
		if n, got := digest(c.model); n != c.n || got != c.want {
			t.Errorf("%s: %d requests, digest %s; want %d, %s", c.model, n, got, c.n, c.want)
		}
	}
}
