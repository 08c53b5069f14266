package main

import (
	"fmt"
	"os"
	"os/signal"
	"path"
	"path/filepath"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/cmd/internal/load"
	"github.com/ub-bench/ub/judge/review"
	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/reports/view"
)

// newViewCommand is ub view.
func newViewCommand(sio *streams) *cli.Command {
	return &cli.Command{
		Name:  "view",
		Usage: "serve the report and the evidence behind every number as web pages, read-only (prints a URL with a token)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "addr", Value: "127.0.0.1:0", Usage: "listen `ADDR` (loopback; port 0 picks a free one)"},
			&cli.StringFlag{Name: "judge", Usage: "score UserBench with the labels of judge `NAME` (default: as ub report chooses)"},
			&cli.StringFlag{Name: "grader", Usage: "user fidelity: the verdicts of grader `NAME` (default: as ub report chooses)"},
		},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			return runView(c, sio)
		},
	}
}

// viewSite draws the report into reportDir, as ub report draws it by
// default, and returns the site of its evidence over ws.
func viewSite(c *cli.Context, sio *streams, ws *queries.Workspace, judgeName, grader, reportDir string) (*view.Site, error) {
	ctx, db := c.Context, ws.Conn()
	qs, _ := parseQs("0.75,0.84,0.86")
	rep, err := loadStudy(c, sio, ws, load.Options{Judge: judgeName, Fidelity: load.Fidelity{Grader: grader, Qs: qs, Prompts: 1000, Rollouts: 64}})
	if err != nil {
		return nil, err
	}
	if _, err := rep.WriteAll(reportDir); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	judges, err := queries.StudyJudges(ctx, db)
	if err != nil {
		return nil, err
	}
	if judgeName, err = load.ChooseJudge(judges, judgeName); err != nil {
		return nil, err
	}
	graders, err := queries.Graders(ctx, db)
	if err != nil {
		return nil, err
	}
	grader, _ = load.ChooseGraders(graders, grader)
	return view.NewSite(ctx, db, view.Options{Judge: judgeName, Grader: grader, ReportDir: reportDir})
}

// runView serves the pages until Ctrl-C (exit 0). The workspace is opened
// read-only: the viewer writes nothing to it.
func runView(c *cli.Context, sio *streams) error {
	sigCtx, stop := signal.NotifyContext(c.Context, syscall.SIGTERM)
	defer stop()
	ln, hosts, err := review.Listen(c.Context, c.String("addr"), false)
	if err != nil {
		return usageError{err}
	}
	defer ln.Close()
	ws, err := openWorkspace(c, true)
	if err != nil {
		return err
	}
	defer ws.Close()
	tmp, err := os.MkdirTemp("", "ub-view-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	site, err := viewSite(c, sio, ws, c.String("judge"), c.String("grader"), tmp)
	if err != nil {
		return fmt.Errorf("view: %w", err)
	}
	counts, err := queries.ViewSummary(c.Context, ws.Conn())
	if err != nil {
		return fmt.Errorf("view: %w", err)
	}
	logf := func(format string, a ...any) { fmt.Fprintf(sio.err, "ub view: "+format+"\n", a...) }
	srv, err := view.NewServer(site, view.ServerOptions{Hosts: hosts, Logf: logf})
	if err != nil {
		return err
	}
	logf("%s, read-only: %d developers, %d points, %d generations, %d labels, %d episodes, %d verdicts",
		c.String("db"), counts.Developers, counts.Points, counts.Generations, counts.Labels, counts.Episodes, counts.Verdicts)
	fmt.Fprintf(sio.out, "ub view on http://%s (Ctrl-C stops; it writes nothing to %s)\n  %s\n", ln.Addr(), c.String("db"), srv.URL("http://"+ln.Addr().String()))
	return serveUntilSignal(sigCtx, ln, srv, func() { logf("stopped") })
}

// publishSite writes the bundle's static site into dir/site from the
// report already drawn in dir/report, and lists its files in the bundle.
func publishSite(c *cli.Context, sio *streams, ws *queries.Workspace, dir string, files []bundleFile) ([]bundleFile, error) {
	ctx, db := c.Context, ws.Conn()
	judges, err := queries.StudyJudges(ctx, db)
	if err != nil {
		return files, err
	}
	judgeName, err := load.ChooseJudge(judges, "")
	if err != nil {
		return files, err
	}
	graders, err := queries.Graders(ctx, db)
	if err != nil {
		return files, err
	}
	grader, _ := load.ChooseGraders(graders, "")
	site, err := view.NewSite(ctx, db, view.Options{Judge: judgeName, Grader: grader, ReportDir: filepath.Join(dir, "report")})
	if err != nil {
		return files, err
	}
	out := filepath.Join(dir, "site")
	if err := os.MkdirAll(out, 0o755); err != nil {
		return files, err
	}
	// Each file of the site is listed in the marker before it is written
	// (WriteSite records them a level of its walk at a time), so an
	// interrupted publish knows every file it left as its own.
	about := func(rel string) string {
		switch {
		case rel == "site/index.html":
			return "the report and the evidence behind its numbers as a static site: open it in a browser"
		case filepath.Ext(rel) == ".css":
			return "the static site's style sheet"
		case path.Dir(rel) == "site/fig":
			return "a figure of the static site (a copy of the report's)"
		}
		return "a page of the static site"
	}
	index := -1
	sum, err := site.WriteSite(ctx, out, func(rels []string) error {
		for _, r := range rels {
			rel := "site/" + r
			if rel == "site/index.html" {
				index = len(files)
			}
			files = append(files, bundleFile{rel, about(rel)})
		}
		return writePublishMarker(dir, files)
	})
	if err != nil {
		return files, fmt.Errorf("publish: %w", err)
	}
	if index >= 0 {
		files[index].about = fmt.Sprintf("the report and the evidence behind its numbers as a static site: open it in a browser (%d pages, no script; each list shows at most %d rows)", sum.Pages, view.Examples)
	}
	fmt.Fprintf(sio.err, "publish: site: %d pages, %d files, %d bytes\n", sum.Pages, sum.Files, sum.Bytes)
	return files, writePublishMarker(dir, files)
}
