package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/judge/review"
)

// newReviewServeCommand is ub review serve.
func newReviewServeCommand(sio *streams) *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "serve the review page (prints one URL with a token per reviewer); the server is the workspace's one writer",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "batch", Usage: "batch `NAME` (default: the only one)"},
			&cli.StringFlag{Name: "addr", Value: "127.0.0.1:0", Usage: "listen `ADDR` (loopback; port 0 picks a free one)"},
			&cli.BoolFlag{Name: "allow-remote", Usage: "allow a non-loopback --addr (risky: plain HTTP, reachable from the network)"},
			&cli.StringFlag{Name: "adjudicator", Usage: "also print a URL for adjudicator `NAME`: the episodes whose reviewers disagree, decided as the final word"},
			&cli.StringSliceFlag{Name: "allow-host", Usage: "also answer requests whose Host header is `HOST:PORT` (with --allow-remote)"},
		},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			return runReviewServe(c, sio)
		},
	}
}

// serveMarker is the file beside the workspace that says a review server
// holds it, so other commands can say so.
func serveMarker(db string) string { return db + ".review-serve" }

// serveHolder names the ub review serve that holds the workspace at db
// ("ub review serve (pid N) on ADDR"), given the lock error of opening it;
// "" when no server's marker is there, or the marker is stale (its process
// is gone or is not the one DuckDB names as the lock's holder).
func serveHolder(db string, lockErr error) string {
	b, err := os.ReadFile(serveMarker(db))
	if err != nil {
		return ""
	}
	var pid int
	var addr string
	if _, err := fmt.Sscanf(strings.TrimSpace(string(b)), "pid %d, %s", &pid, &addr); err != nil || pid <= 0 {
		return ""
	}
	if m := regexp.MustCompile(`\(pid (\d+)\)`).FindStringSubmatch(lockErr.Error()); m != nil && m[1] != strconv.Itoa(pid) {
		return ""
	}
	if syscall.Kill(pid, 0) == syscall.ESRCH {
		return ""
	}
	return fmt.Sprintf("ub review serve (pid %d) on %s", pid, addr)
}

// runReviewServe serves the review page of a batch until ctx ends; the
// server is the workspace's one writer.
func runReviewServe(c *cli.Context, sio *streams) error {
	// Ctrl-C (SIGINT, which cancels c.Context) or SIGTERM is how a server
	// ends: exit 0, after the requests in flight are answered. Caught from
	// the start: the URLs are printed only after.
	sigCtx, stop := signal.NotifyContext(c.Context, syscall.SIGTERM)
	defer stop()
	// The address first: a refused address is a usage error whatever the
	// workspace holds.
	ln, hosts, err := review.Listen(c.Context, c.String("addr"), c.Bool("allow-remote"))
	if err != nil {
		return usageError{err}
	}
	defer ln.Close()
	ws, err := openWorkspace(c, false)
	if err != nil {
		return err
	}
	defer ws.Close()
	b, err := review.PickBatch(c.Context, ws.Conn(), c.String("batch"))
	if err != nil {
		return reviewError(fmt.Errorf("review serve: %w", err))
	}
	if c.Bool("allow-remote") {
		fmt.Fprintf(sio.err, "ub review serve: WARNING: listening on %s: anyone who can reach it and learns a URL below can read the conversations and record decisions; the traffic is plain HTTP\n", ln.Addr())
	}
	hosts = append(hosts, c.StringSlice("allow-host")...)
	logf := func(format string, a ...any) { fmt.Fprintf(sio.err, "ub review serve: "+format+"\n", a...) }
	srv, err := review.NewServer(ws, review.Options{Batch: b.Batch, Reviewers: splitList(b.Reviewers), Adjudicator: c.String("adjudicator"), Hosts: hosts, Logf: logf,
		Prefill: b.Prefill})
	if err != nil {
		return usageError{err}
	}
	if err := srv.Warm(c.Context); err != nil {
		return err
	}
	marker := serveMarker(c.String("db"))
	if err := os.WriteFile(marker, []byte("pid "+strconv.Itoa(os.Getpid())+", "+ln.Addr().String()+"\n"), 0o644); err == nil {
		defer os.Remove(marker)
	}
	fmt.Fprintf(sio.out, "review batch %s on http://%s (Ctrl-C stops; every saved decision is already in %s)\n", b.Batch, ln.Addr(), c.String("db"))
	for _, u := range srv.URLs("http://" + ln.Addr().String()) {
		fmt.Fprintf(sio.out, "  %-12s %s\n", u.Reviewer, u.URL)
	}
	return serveUntilSignal(sigCtx, ln, srv, func() {
		fmt.Fprintf(sio.err, "ub review serve: stopped; every decision is saved in %s (each was committed before the page said so)\n", c.String("db"))
	})
}

// serveUntilSignal serves h on ln until the server fails (its error) or
// sigCtx is done: then it shuts the server down, letting requests in
// flight finish for up to 5 s, calls stopped and returns errStopped.
func serveUntilSignal(sigCtx context.Context, ln net.Listener, h http.Handler, stopped func()) error {
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-sigCtx.Done():
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(ctx)
		stopped()
		return errStopped
	}
}

// errStopped is a server's normal end by a signal: Main exits 0 on it.
var errStopped = errors.New("stopped by a signal")
