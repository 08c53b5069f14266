package main

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// demoMarker is the file by which the demo knows a directory as its own. It
// lists, one slash-separated relative path a line, every file the demo wrote
// there; a later run deletes exactly those and nothing else.
const demoMarker = ".ub-demo"

const demoMarkerHeader = "# written by ub demo: the files below are the demo's own and are replaced by the next ub demo"

// claimDemoDir makes dir the demo's directory: it creates it when missing,
// adopts it when empty, and, when it carries the demo's marker, deletes the
// files the previous demo listed there (only those). A non-empty directory
// without the marker is refused: the demo never deletes what it did not
// create.
func claimDemoDir(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		return writeDemoMarker(dir, nil)
	case err != nil:
		return fmt.Errorf("demo: %w", err)
	case len(entries) == 0:
		return writeDemoMarker(dir, nil)
	}
	owned, err := readDemoMarker(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return usagef("demo: %s is not empty and was not made by ub demo; name a new or empty directory with --dir", dir)
	}
	if err != nil {
		return err
	}
	for _, rel := range owned {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("demo: %w", err)
		}
	}
	// Folders the demo's files lived in go too when nothing else is left in
	// them, deepest first.
	dirs := map[string]bool{}
	for _, rel := range owned {
		for d := filepath.Dir(filepath.FromSlash(rel)); d != "." && d != string(filepath.Separator); d = filepath.Dir(d) {
			dirs[d] = true
		}
	}
	var ds []string
	for d := range dirs {
		ds = append(ds, d)
	}
	sort.Slice(ds, func(i, j int) bool { return len(ds[i]) > len(ds[j]) || len(ds[i]) == len(ds[j]) && ds[i] < ds[j] })
	for _, d := range ds {
		os.Remove(filepath.Join(dir, d)) // fails, and keeps it, when not empty
	}
	return writeDemoMarker(dir, nil)
}

// recordDemoFiles adds paths (inside dir) to the demo's marker, before they
// are written, so that an interrupted demo still knows them as its own.
func recordDemoFiles(dir string, paths ...string) error {
	owned, err := readDemoMarker(dir)
	if err != nil {
		return err
	}
	for _, p := range paths {
		rel, err := filepath.Rel(dir, p)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return fmt.Errorf("demo: %s is outside %s", p, dir)
		}
		owned = append(owned, filepath.ToSlash(rel))
	}
	return writeDemoMarker(dir, owned)
}

func readDemoMarker(dir string) ([]string, error) {
	f, err := os.Open(filepath.Join(dir, demoMarker))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var owned []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		// A hand-edited marker must not make the demo delete outside dir.
		if filepath.IsAbs(l) || l == ".." || strings.HasPrefix(l, "../") || strings.Contains(l, "/../") {
			return nil, fmt.Errorf("demo: %s: refusing path %q outside the demo directory", filepath.Join(dir, demoMarker), l)
		}
		owned = append(owned, l)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	return owned, nil
}

func writeDemoMarker(dir string, owned []string) error {
	seen := map[string]bool{}
	var b strings.Builder
	b.WriteString(demoMarkerHeader + "\n")
	sort.Strings(owned)
	for _, o := range owned {
		if !seen[o] {
			seen[o] = true
			b.WriteString(o + "\n")
		}
	}
	if err := os.WriteFile(filepath.Join(dir, demoMarker), []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	return nil
}

// filesUnder is the set of regular files below dir (none when it is
// missing).
func filesUnder(dir string) map[string]bool {
	out := map[string]bool{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			out[p] = true
		}
		return nil
	})
	return out
}

// newFilesUnder lists, sorted, the regular files below dir that are not in
// before: what the demo just wrote there.
func newFilesUnder(dir string, before map[string]bool) []string {
	var out []string
	for p := range filesUnder(dir) {
		if !before[p] {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}
