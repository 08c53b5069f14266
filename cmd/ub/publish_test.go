package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// checkBundle fails unless dir is a complete bundle: every file in it is
// listed in SHA256SUMS with its hash, but for the marker and the files
// named in extra (the user's, which ub keeps). It returns SHA256SUMS.
func checkBundle(t *testing.T, dir string, extra ...string) string {
	t.Helper()
	sums, err := os.ReadFile(filepath.Join(dir, "SHA256SUMS"))
	if err != nil {
		t.Fatalf("no complete bundle in %s: %v", dir, err)
	}
	listed := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(sums)), "\n") {
		h, rel, _ := strings.Cut(l, "  ")
		listed[rel] = h
	}
	var found []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			found = append(found, filepath.ToSlash(rel))
		}
		return err
	})
	for _, rel := range found {
		if rel == "SHA256SUMS" || rel == publishMarker || slices.Contains(extra, rel) {
			continue
		}
		h, ok := listed[rel]
		if !ok {
			t.Errorf("%s holds %s, which SHA256SUMS does not list", dir, rel)
			continue
		}
		b, _ := os.ReadFile(filepath.Join(dir, rel))
		if s := sha256.Sum256(b); hex.EncodeToString(s[:]) != h {
			t.Errorf("%s/%s does not match SHA256SUMS", dir, rel)
		}
	}
	for rel := range listed {
		if !slices.Contains(found, rel) {
			t.Errorf("%s lacks %s, listed in SHA256SUMS", dir, rel)
		}
	}
	return string(sums)
}

// TestPublishKeepsTheEarlierBundle: a publish that cannot open its
// workspace (missing: exit 6; held by another process: exit 4) leaves the
// earlier bundle as it was, and a DIR that is a file is a usage error.
func TestPublishKeepsTheEarlierBundle(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	demo := filepath.Join(dir, "d")
	demoDir(t, demo)
	db := filepath.Join(demo, "ub.duckdb")
	b := filepath.Join(dir, "b")
	// DIR written with a trailing slash is the same DIR.
	if code, _, stderr := runUB(t, "--db", db, "publish", b+"/"); code != exitOK {
		t.Fatalf("publish: exit %d: %s", code, stderr)
	}
	before := checkBundle(t, b)

	code, _, stderr := runUB(t, "--db", filepath.Join(dir, "nosuch.duckdb"), "publish", b)
	if code != exitNoData {
		t.Errorf("a mistyped --db: exit %d, want %d; stderr: %s", code, exitNoData, stderr)
	}
	if after := checkBundle(t, b); after != before {
		t.Errorf("a mistyped --db changed the earlier bundle")
	}

	// Another process holds the workspace (as ub review serve does).
	hold := exec.Command(os.Args[0], "-test.run=^$")
	hold.Env = append(os.Environ(), "UB_TEST_HOLD_WORKSPACE="+db)
	if err := hold.Start(); err != nil {
		t.Fatal(err)
	}
	defer hold.Process.Kill()
	for i := 0; ; i++ {
		if _, err := os.Stat(db + ".held"); err == nil {
			break
		}
		if i > 600 {
			t.Fatal("child never opened the workspace")
		}
		time.Sleep(50 * time.Millisecond)
	}
	code, _, stderr = runUB(t, "--db", db, "publish", b)
	if code != exitLocked {
		t.Errorf("a held workspace: exit %d, want %d; stderr: %s", code, exitLocked, stderr)
	}
	if after := checkBundle(t, b); after != before {
		t.Errorf("a held workspace changed the earlier bundle")
	}
	hold.Process.Kill()
	hold.Wait()
	os.Remove(db + ".held")

	file := filepath.Join(dir, "afile")
	os.WriteFile(file, []byte("mine\n"), 0o644)
	code, _, stderr = runUB(t, "--db", db, "publish", file)
	if code != exitUsage || !strings.Contains(stderr, "is a file, not a directory") {
		t.Errorf("DIR a regular file: exit %d, want %d; stderr: %s", code, exitUsage, stderr)
	}
	if got, _ := os.ReadFile(file); string(got) != "mine\n" {
		t.Errorf("the file DIR named was changed: %q", got)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".ub-publish-") {
			t.Errorf("left %s beside the bundle", e.Name())
		}
	}
}

// TestPublishAfterKill9: a publish killed as it builds leaves the earlier
// bundle complete, and the next publish ships none of the killed run's
// temporary files (nor those an older ub left in the bundle itself), keeps
// the user's own file, and removes the killed run's build directory.
func TestPublishAfterKill9(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	demo := filepath.Join(dir, "d")
	demoDir(t, demo)
	db := filepath.Join(demo, "ub.duckdb")
	b := filepath.Join(dir, "b")
	if code, _, stderr := runUB(t, "--db", db, "publish", b); code != exitOK {
		t.Fatalf("publish: exit %d: %s", code, stderr)
	}
	before := checkBundle(t, b)
	// The user's own file in the bundle, and what an older ub killed while
	// writing left there: temporary files beside the files it wrote.
	os.WriteFile(filepath.Join(b, "notes.txt"), []byte("my notes\n"), 0o644)
	for _, rel := range []string{"tmp_.generations.jsonl.123.tmp", ".generations.jsonl.123.tmp", "split/.components.jsonl.9.tmp", "report/.leaderboard.svg.77"} {
		os.WriteFile(filepath.Join(b, rel), []byte("partial"), 0o644)
	}

	args, _ := json.Marshal([]string{"--db", db, "publish", b})
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "UB_TEST_MAIN_ARGS="+string(args))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill it once it is writing the new bundle's files.
	killed := false
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		m, _ := filepath.Glob(filepath.Join(dir, ".b"+publishBuildTag+"*", "split", "*"))
		if len(m) > 0 {
			cmd.Process.Signal(syscall.SIGKILL)
			killed = true
			break
		}
	}
	err := cmd.Wait()
	if !killed || err == nil {
		t.Fatalf("the publish was not killed as it built (killed %v, exit %v)", killed, err)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".b"+publishBuildTag+"*")); len(m) != 1 {
		t.Fatalf("the killed run left %v, want its build directory", m)
	}
	if after := checkBundle(t, b, "notes.txt", "tmp_.generations.jsonl.123.tmp", ".generations.jsonl.123.tmp", "split/.components.jsonl.9.tmp", "report/.leaderboard.svg.77"); after != before {
		t.Errorf("the killed publish changed the earlier bundle")
	}

	if code, _, stderr := runUB(t, "--db", db, "publish", b); code != exitOK || stderr != "" && strings.Contains(stderr, "warning") {
		t.Fatalf("publish after kill -9: exit %d: %s", code, stderr)
	}
	if after := checkBundle(t, b, "notes.txt"); after != before {
		t.Errorf("the bundle after kill -9 differs from the first")
	}
	if got, _ := os.ReadFile(filepath.Join(b, "notes.txt")); string(got) != "my notes\n" {
		t.Errorf("the user's notes.txt: %q", got)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".ub-publish-") {
			t.Errorf("left %s beside the bundle", e.Name())
		}
	}
}

// TestPublishKilledMidSwap: a publish killed between setting the earlier
// bundle aside and renaming the new one in leaves DIR missing; the next
// publish puts the earlier bundle back before anything else, and a set-
// aside bundle already emptied of ub's files gives the user's files back
// to the bundle in force.
func TestPublishKilledMidSwap(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	b := filepath.Join(parent, "b")
	write := func(p, s string) {
		t.Helper()
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	aside := filepath.Join(parent, ".b"+publishOldTag+"123")
	write(filepath.Join(aside, publishMarker), `["x.txt", "report/r.md"]`+"\n")
	write(filepath.Join(aside, "x.txt"), "ub's")
	write(filepath.Join(aside, "report", "r.md"), "ub's")
	write(filepath.Join(aside, "mine.txt"), "the user's")

	tg, err := checkPublishDir(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(tg.owned) != 2 {
		t.Errorf("the earlier bundle put back owns %v, want its two files", tg.owned)
	}
	for _, rel := range []string{"x.txt", "report/r.md", "mine.txt"} {
		if _, err := os.Stat(filepath.Join(b, rel)); err != nil {
			t.Errorf("not put back: %v", err)
		}
	}
	if _, err := os.Stat(aside); !os.IsNotExist(err) {
		t.Errorf("%s still there (%v)", aside, err)
	}

	// Killed after the swap, while emptying the earlier bundle: its own
	// files gone, the user's still in it.
	aside2 := filepath.Join(parent, ".b"+publishOldTag+"456")
	write(filepath.Join(aside2, "notes", "mine2.txt"), "the user's too")
	write(filepath.Join(aside2, ".x.txt.99.tmp"), "partial")
	write(filepath.Join(aside2, publishMarker), `["x.txt"]`+"\n")
	build := filepath.Join(parent, ".b"+publishBuildTag+"789")
	write(filepath.Join(build, "tmp_.generations.jsonl.5.tmp"), "partial")
	var warn strings.Builder
	pb, err := startPublishBuild(tg, &warn)
	if err != nil {
		t.Fatal(err)
	}
	defer pb.abandon()
	if got, _ := os.ReadFile(filepath.Join(b, "notes", "mine2.txt")); string(got) != "the user's too" {
		t.Errorf("the user's file in a set-aside bundle: %q in the bundle in force", got)
	}
	for _, p := range []string{aside2, build} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s still there (%v)", p, err)
		}
	}
	if warn.Len() > 0 {
		t.Errorf("warned: %s", warn.String())
	}
}

// TestPublishRecordsTheSiteAsItWrites: a publish stopped while it writes
// the static site has every file of its build directory listed in the
// build's marker (the site's files are recorded before they are written,
// not after the site is complete), so a killed run's files are all known
// as ub's; the next publish then removes the killed run's build.
func TestPublishRecordsTheSiteAsItWrites(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	demo := filepath.Join(dir, "d")
	demoDir(t, demo)
	db := filepath.Join(demo, "ub.duckdb")
	b := filepath.Join(dir, "b")
	args, _ := json.Marshal([]string{"--db", db, "publish", b})
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "UB_TEST_MAIN_ARGS="+string(args))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	// Stop it once the site holds a few pages, and look at what it left.
	var build string
	for deadline := time.Now().Add(120 * time.Second); time.Now().Before(deadline) && build == ""; time.Sleep(2 * time.Millisecond) {
		for _, d := range mustGlob(t, filepath.Join(dir, ".b"+publishBuildTag+"*")) {
			if len(mustGlob(t, filepath.Join(d, "site", "*.html"))) >= 20 {
				cmd.Process.Signal(syscall.SIGSTOP)
				build = d
			}
		}
	}
	if build == "" {
		t.Fatal("the publish never wrote 20 pages of its site")
	}
	owned, err := readPublishMarker(build)
	if err != nil {
		t.Fatal(err)
	}
	own := map[string]bool{publishMarker: true}
	for _, rel := range owned {
		own[filepath.FromSlash(rel)] = true
	}
	site := 0
	filepath.WalkDir(build, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(build, p)
		if strings.HasPrefix(rel, "site"+string(filepath.Separator)) {
			site++
		}
		if !own[rel] && !isPublishTemp(rel, own) {
			t.Errorf("%s is in the build but not in its marker", rel)
		}
		return nil
	})
	if site < 20 {
		t.Errorf("%d files of the site in the build", site)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if code, _, stderr := runUB(t, "--db", db, "publish", b); code != exitOK {
		t.Fatalf("publish after the kill: exit %d: %s", code, stderr)
	}
	checkBundle(t, b)
	if m := mustGlob(t, filepath.Join(dir, ".b.ub-publish-*")); len(m) != 0 {
		t.Errorf("left %v beside the bundle", m)
	}
}

func mustGlob(t *testing.T, pattern string) []string {
	t.Helper()
	m, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
