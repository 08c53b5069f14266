package review

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ub-bench/ub/judge/review/reviewtest"
	"github.com/ub-bench/ub/queries"
)

// TestMain doubles as the server process of TestKilledServerKeepsAcknowledged:
// with UB_REVIEW_CHILD_DB set, the test binary serves that workspace and
// prints alice's start URL.
func TestMain(m *testing.M) {
	if db := os.Getenv("UB_REVIEW_CHILD_DB"); db != "" {
		os.Exit(serveChild(db))
	}
	os.Exit(m.Run())
}

func serveChild(db string) int {
	ctx := context.Background()
	ws, err := queries.Open(ctx, db, queries.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ln, hosts, err := Listen(ctx, "127.0.0.1:0", false)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	srv, err := NewServer(ws, Options{Batch: "b1", Reviewers: []string{"alice"}, Hosts: hosts})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("URL %s\n", srv.URLs("http://" + ln.Addr().String())[0].URL)
	return exitOf(http.Serve(ln, srv))
}

func exitOf(err error) int {
	fmt.Fprintln(os.Stderr, err)
	return 1
}

func TestKilledServerKeepsAcknowledged(t *testing.T) {
	db := filepath.Join(t.TempDir(), "ws.duckdb")
	ws := newWorkspace(t, db, reviewtest.Three(), "alice")
	if err := ws.Close(); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "UB_REVIEW_CHILD_DB="+db)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	defer func() {
		if !killed {
			cmd.Process.Kill()
			cmd.Wait()
		}
	}()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("child: %v", err)
	}
	start := strings.TrimSpace(strings.TrimPrefix(line, "URL "))
	u, _ := url.Parse(start)
	base := "http://" + u.Host
	c := loginURL(t, start)
	_, page := get(t, c, base+"/episode?id=sim-c")
	// Acknowledged: the server answered 303 after the commit. Do not follow
	// the redirect: the kill comes right after the acknowledgement.
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	form := url.Values{"csrf": {csrfOf(t, page)}, "id": {"sim-c"}, "outcome": {"error"},
		"turn0": {"1"}, "code0": {"inconsistent_behavior"}, "severity0": {"critical_hindered"}, "note0": {"claims a state it never checked"}}
	resp, err := c.PostForm(base+"/decision", form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("save: %d, want 303", resp.StatusCode)
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL: no shutdown, no checkpoint
		t.Fatal(err)
	}
	cmd.Wait()
	killed = true
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ws, err = queries.Open(ctx, db, queries.Options{})
	if err != nil {
		t.Fatalf("reopen after kill: %v", err)
	}
	defer ws.Close()
	d, ok, err := queries.GetDecision(ctx, ws.Conn(), "sim-c", "alice")
	if err != nil || !ok {
		t.Fatalf("acknowledged decision lost after kill: ok %v err %v", ok, err)
	}
	if d.Outcome != "error" || len(d.Errors) != 1 || d.Errors[0].Code != "inconsistent_behavior" || d.Errors[0].Severity != "critical_hindered" ||
		d.Errors[0].TurnIdx.Int64 != 1 || d.Errors[0].Note != "claims a state it never checked" {
		t.Errorf("after kill: %+v", d)
	}
}
