package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/cmd/internal/load"
	"github.com/ub-bench/ub/judge"
	"github.com/ub-bench/ub/queries"
)

// publishMarker lists, in a bundle ub publish wrote, every file it wrote
// there: a second ub publish into the directory replaces those, and only
// those.
const publishMarker = ".ub-publish"

func newPublishCommand(sio *streams) *cli.Command {
	return &cli.Command{
		Name:      "publish",
		Usage:     "write the study's bundle to share: splits, points, generations with labels, judge prompt and taxonomy, rubrics and verdicts, the report with each figure's CSV, SHA256SUMS and a README",
		ArgsUsage: "DIR",
		Action: func(c *cli.Context) error {
			as, err := args(c)
			if err != nil {
				return err
			}
			if len(as) != 1 {
				return usagef("publish: want one DIR, got %d arguments", len(as))
			}
			return runPublish(c, sio, as[0])
		},
	}
}

// bundleFile is one file of the bundle: its path relative to the bundle
// and what it holds.
type bundleFile struct{ rel, about string }

// runPublish writes the study's bundle into target. In turn: it checks
// target and opens the workspace read-only; builds the bundle in a folder
// of its own beside target (every published table and the frozen points,
// the judge's prompt and taxonomy, the report as ub report draws it by
// default, and, last, the README listing every file and SHA256SUMS over
// them); then swaps it in for target's earlier bundle, so that nothing of
// the earlier bundle is removed before the new one is complete.
func runPublish(c *cli.Context, sio *streams, target string) error {
	t, err := checkPublishDir(target)
	if err != nil {
		return err
	}
	ws, err := openWorkspace(c, true)
	if err != nil {
		return err
	}
	defer ws.Close()
	// Built beside the earlier bundle, swapped in when complete.
	build, err := startPublishBuild(t, sio.err)
	if err != nil {
		return err
	}
	defer build.abandon()
	dir := build.dir
	ctx, db := c.Context, ws.Conn()
	var files []bundleFile
	// own records rel as written before it is, so an interrupted publish
	// still knows it as its own.
	own := func(rel, about string) (string, error) {
		files = append(files, bundleFile{rel, about})
		if err := writePublishMarker(dir, files); err != nil {
			return "", err
		}
		p := filepath.Join(dir, filepath.FromSlash(rel))
		return p, os.MkdirAll(filepath.Dir(p), 0o755)
	}
	for _, t := range queries.PublishTables() {
		if skip, err := t.Skip(ctx, db); err != nil {
			return fmt.Errorf("publish: %s: %w", t.File, err)
		} else if skip {
			continue
		}
		p, err := own(t.File, t.About)
		if err != nil {
			return fmt.Errorf("publish: %w", err)
		}
		if _, err := queries.Export(ctx, db, t.Query, p, "jsonl"); err != nil {
			return fmt.Errorf("publish: %s: %w", t.File, err)
		}
	}
	points, err := queries.Points(ctx, db)
	if err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	if len(points) > 0 {
		p, err := own("points.jsonl", "the frozen points every simulator is scored on (ub points import reads it)")
		if err != nil {
			return err
		}
		if err := writeFileAtomic(p, queries.EncodePoints(points)); err != nil {
			return err
		}
	}
	p, err := own("judge/prompt.txt", "the model judge's prompt, version "+judge.PromptVersion())
	if err != nil {
		return err
	}
	if err := writeFileAtomic(p, []byte(judge.Prompt())); err != nil {
		return err
	}
	if p, err = own("judge/taxonomy.json", "the taxonomy: the five moves, and the seven fine labels with the move each collapses to"); err != nil {
		return err
	}
	if err := writeFileAtomic(p, taxonomyJSON()); err != nil {
		return err
	}
	// The report, drawn as ub report draws it by default.
	defer debug.SetGCPercent(debug.SetGCPercent(load.GCPercent))
	qs, _ := parseQs("0.75,0.84,0.86")
	rep, err := loadStudy(c, sio, ws, load.Options{Fidelity: load.Fidelity{Qs: qs, Prompts: 1000, Rollouts: 64}})
	if err != nil {
		return err
	}
	// The report's files are known only once written: the marker lists
	// the report folder's, and they are recorded as they come.
	if _, err := own("report/report.md", "the report: every figure with its caption and table, the methods"); err != nil {
		return err
	}
	sum, err := rep.WriteAll(filepath.Join(dir, "report"))
	for _, f := range sum.Files {
		rel := "report/" + filepath.Base(f)
		if rel == "report/report.md" {
			continue
		}
		about := "figure " + strings.TrimSuffix(filepath.Base(f), filepath.Ext(f)) + ": " + map[string]string{".svg": "picture (SVG)", ".png": "picture (PNG, 150 dpi)", ".csv": "its table (CSV)", ".json": "the report's manifest: ub version and commit, seeds, hashes, counts"}[filepath.Ext(f)]
		if rel == "report/manifest.json" {
			about = "the report's manifest: ub version and commit, seeds, hashes, counts, the sha256 of every report file"
		}
		files = append(files, bundleFile{rel, about})
	}
	if merr := writePublishMarker(dir, files); err == nil {
		err = merr
	}
	if err != nil {
		return fmt.Errorf("publish: report: %w", err)
	}
	for _, s := range sum.Skipped {
		fmt.Fprintf(sio.err, "skipped %s: %s\n", s.Figure, s.Reason)
	}
	if files, err = publishSite(c, sio, ws, dir, files); err != nil {
		return fmt.Errorf("publish: site: %w", err)
	}
	files = append(files, bundleFile{"README.md", "this file"})
	sort.Slice(files, func(i, j int) bool { return files[i].rel < files[j].rel })
	if err := writePublishMarker(dir, append(files, bundleFile{"SHA256SUMS", ""})); err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(dir, "README.md"), []byte(bundleReadme(files))); err != nil {
		return err
	}
	var sums strings.Builder
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.rel)))
		if err != nil {
			return fmt.Errorf("publish: %w", err)
		}
		h := sha256.Sum256(b)
		fmt.Fprintf(&sums, "%s  %s\n", hex.EncodeToString(h[:]), f.rel)
	}
	if err := writeFileAtomic(filepath.Join(dir, "SHA256SUMS"), []byte(sums.String())); err != nil {
		return err
	}
	if err := build.swap(t, sio.err); err != nil {
		return err
	}
	fmt.Fprintf(sio.out, "wrote %s: %d files and SHA256SUMS (check with: cd %s && sha256sum -c SHA256SUMS)\n", filepath.ToSlash(target), len(files), filepath.ToSlash(target))
	return nil
}

// taxonomyJSON is judge/taxonomy.json.
func taxonomyJSON() []byte {
	type fine struct {
		Label string `json:"label"`
		Move  string `json:"move"`
	}
	var t struct {
		Moves []string `json:"moves"`
		Fine  []fine   `json:"fine"`
	}
	for _, m := range judge.Moves() {
		t.Moves = append(t.Moves, m.String())
	}
	for _, f := range judge.Fines() {
		t.Fine = append(t.Fine, fine{f.String(), f.Move().String()})
	}
	b, _ := json.MarshalIndent(t, "", "  ") // strings only: it always encodes
	return append(b, '\n')
}

// bundleReadme is the bundle's README.md: what each file holds.
func bundleReadme(files []bundleFile) string {
	var b strings.Builder
	ver, rev := buildVersion()
	fmt.Fprintf(&b, "# Study bundle\n\nWritten by `ub publish` (ub %s, commit %s). Every file is listed in `SHA256SUMS`; "+
		"check the bundle with `sha256sum -c SHA256SUMS`. Tables are JSON Lines, one row a line, in a stable order.\n\n", ver, rev)
	b.WriteString("| file | what it holds |\n| --- | --- |\n")
	for _, f := range files {
		fmt.Fprintf(&b, "| `%s` | %s |\n", f.rel, f.about)
	}
	b.WriteString("| `SHA256SUMS` | the sha256 of every file above, in `sha256sum -c` format |\n")
	return b.String()
}

func writePublishMarker(dir string, files []bundleFile) error {
	rels := make([]string, len(files))
	for i, f := range files {
		rels[i] = f.rel
	}
	b, _ := json.MarshalIndent(rels, "", "  ")
	return writeFileAtomic(filepath.Join(dir, publishMarker), append(b, '\n'))
}
