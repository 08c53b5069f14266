package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"

	"github.com/ub-bench/ub/reports/visible"
)

// A bundle is built in a directory of its own beside DIR, named
// ".DIR.ub-publish-new-*", and swapped in only when complete: until then
// the earlier bundle in DIR stays as it was, whatever fails (a workspace
// that is missing or held, a full disk, kill -9). The earlier bundle is set
// aside during the swap as ".DIR.ub-publish-old-*". Both names are ub's
// alone: a later publish into DIR removes what a killed run left under
// them, and nothing else.
const (
	publishBuildTag = ".ub-publish-new-"
	publishOldTag   = ".ub-publish-old-"
)

// publishTarget is DIR as ub publish found it before building.
type publishTarget struct {
	dir   string   // DIR, symlinks resolved
	owned []string // the files an earlier ub publish listed in DIR's marker; nil when DIR is new or empty
}

// checkPublishDir says whether ub publish may write its bundle to dir:
// dir may be missing, an empty directory, or a bundle an earlier ub
// publish wrote. Anything else is a usage error. It changes nothing, but
// for putting back the earlier bundle a publish killed as it swapped
// bundles had set aside.
func checkPublishDir(dir string) (publishTarget, error) {
	dir = filepath.Clean(dir) // "b/" is b, beside which the bundle is built
	t := publishTarget{dir: dir}
	st, err := os.Stat(dir)
	if _, lerr := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) && lerr == nil {
		return t, usagef("publish: %s is a symbolic link to nothing; name a new or empty directory, or an earlier bundle", dir)
	}
	if errors.Is(err, fs.ErrNotExist) {
		if err := restoreSetAside(dir); err != nil {
			return t, err
		}
		st, err = os.Stat(dir)
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return t, nil
	case err != nil:
		return t, fmt.Errorf("publish: %w", err)
	case !st.IsDir():
		return t, usagef("publish: %s is a file, not a directory; name a new or empty directory, or an earlier bundle", dir)
	}
	if t.dir, err = filepath.EvalSymlinks(dir); err != nil {
		return t, fmt.Errorf("publish: %w", err)
	}
	entries, err := os.ReadDir(t.dir)
	if err != nil {
		return t, fmt.Errorf("publish: %w", err)
	}
	if len(entries) == 0 {
		return t, nil
	}
	owned, err := readPublishMarker(t.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return t, usagef("publish: %s is not empty and was not written by ub publish; name a new or empty directory", dir)
	}
	if err != nil {
		return t, err
	}
	t.owned = owned
	return t, nil
}

// restoreSetAside puts back in place of dir, which is missing, the
// earlier bundle a killed publish set aside (the newest, should there be
// several).
func restoreSetAside(dir string) error {
	parent, base := filepath.Split(filepath.Clean(dir))
	if parent == "" {
		parent = "."
	}
	entries, err := os.ReadDir(parent)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	var newest string
	var at int64
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "."+base+publishOldTag) {
			continue
		}
		p := filepath.Join(parent, e.Name())
		if _, err := os.Stat(filepath.Join(p, publishMarker)); err != nil {
			continue // already emptied of the bundle: nothing to put back
		}
		if info, err := e.Info(); err == nil && (newest == "" || info.ModTime().UnixNano() > at) {
			newest, at = p, info.ModTime().UnixNano()
		}
	}
	if newest == "" {
		return nil
	}
	if err := renameDir(newest, dir); err != nil {
		return fmt.Errorf("publish: putting back the earlier bundle: %w", err)
	}
	return nil
}

// readPublishMarker reads the list of files ub publish wrote in dir.
func readPublishMarker(dir string) ([]string, error) {
	p := filepath.Join(dir, publishMarker)
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	var owned []string
	if err := json.Unmarshal(b, &owned); err != nil {
		return nil, fmt.Errorf("publish: %s: %w", p, err)
	}
	for _, rel := range owned {
		if !filepath.IsLocal(filepath.FromSlash(rel)) {
			return nil, fmt.Errorf("publish: %s lists %s, outside the bundle", p, visible.Quote(rel))
		}
	}
	return owned, nil
}

// publishBuild is the directory a bundle is built in, locked (flock) while
// this process builds in it so that a publish running beside it does not
// take it for a killed run's leftover.
type publishBuild struct {
	dir  string
	lock *os.File
}

// startPublishBuild removes what killed runs into t left beside it, and
// creates (and locks) the directory the new bundle is built in.
func startPublishBuild(t publishTarget, warn io.Writer) (*publishBuild, error) {
	parent, base := filepath.Split(t.dir)
	if parent == "" {
		parent = "."
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	if err := removePublishLeftovers(parent, base, warn); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(parent, "."+base+publishBuildTag+"*")
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	lock, err := lockDir(dir)
	if err != nil {
		os.Remove(dir)
		return nil, fmt.Errorf("publish: %w", err)
	}
	// MkdirTemp makes it 0700; the bundle is for sharing.
	if err := os.Chmod(dir, 0o755); err != nil {
		lock.Close()
		os.Remove(dir)
		return nil, fmt.Errorf("publish: %w", err)
	}
	return &publishBuild{dir: dir, lock: lock}, nil
}

// lockDir takes an exclusive flock on dir, held until the file is closed
// (or the process dies).
func lockDir(dir string) (*os.File, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// abandon removes the build directory unless it was swapped in: all of it
// is ub's.
func (b *publishBuild) abandon() {
	if b.lock != nil {
		os.RemoveAll(b.dir)
		b.lock.Close()
		b.lock = nil
	}
}

// swap puts the complete bundle in place of t.dir. A missing or empty
// t.dir is replaced in one rename. An earlier bundle is set aside, the new
// one renamed in, and then the earlier one's own files (those its marker
// lists, and ub's temporary files beside them) removed; any other file in
// it (the user's) is moved into the new bundle, or left where it is with a
// warning when the new bundle has a file of that name.
func (b *publishBuild) swap(t publishTarget, warn io.Writer) error {
	defer func() { b.lock.Close(); b.lock = nil }()
	if t.owned == nil {
		// syscall.Rename, not os.Rename: os.Rename refuses an existing
		// directory, where rename(2) replaces an empty one atomically (and
		// refuses one that is no longer empty).
		if err := renameDir(b.dir, t.dir); err != nil {
			os.RemoveAll(b.dir)
			return fmt.Errorf("publish: %w", err)
		}
		return nil
	}
	parent, base := filepath.Split(t.dir)
	if parent == "" {
		parent = "."
	}
	old, err := os.MkdirTemp(parent, "."+base+publishOldTag+"*")
	if err != nil {
		os.RemoveAll(b.dir)
		return fmt.Errorf("publish: %w", err)
	}
	if err := renameDir(t.dir, old); err != nil {
		os.Remove(old)
		os.RemoveAll(b.dir)
		return fmt.Errorf("publish: %w", err)
	}
	if err := renameDir(b.dir, t.dir); err != nil {
		renameDir(old, t.dir) // the earlier bundle back in place
		os.RemoveAll(b.dir)
		return fmt.Errorf("publish: %w", err)
	}
	left, err := retireOldBundle(old, t.owned, t.dir)
	if len(left) > 0 {
		fmt.Fprintf(warn, "warning: publish: the earlier bundle held %s, which ub did not write and which the new bundle also has; kept in %s\n",
			visible.List(left, 5), old)
	}
	return err
}

// renameDir renames the directory from to to, which must be missing or an
// empty directory (replaced in the same step).
func renameDir(from, to string) error {
	if err := syscall.Rename(from, to); err != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	return nil
}

// retireOldBundle empties old, a bundle set aside, of ub's own files and
// moves the rest into dir (when dir is not ""); it removes old when that
// leaves it empty, and otherwise returns what is left, relative to old.
func retireOldBundle(old string, owned []string, dir string) ([]string, error) {
	own := map[string]bool{publishMarker: true}
	for _, rel := range owned {
		own[filepath.FromSlash(rel)] = true
	}
	var files, dirs []string
	err := filepath.WalkDir(old, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(old, p)
		switch {
		case rel == ".":
		case d.IsDir():
			dirs = append(dirs, rel)
		default:
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	var left []string
	for _, rel := range files {
		p := filepath.Join(old, rel)
		if own[rel] || isPublishTemp(rel, own) {
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("publish: %w", err)
			}
			continue
		}
		if dir != "" {
			dst := filepath.Join(dir, rel)
			if _, err := os.Lstat(dst); errors.Is(err, fs.ErrNotExist) {
				if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
					return nil, fmt.Errorf("publish: %w", err)
				}
				if err := os.Rename(p, dst); err != nil {
					return nil, fmt.Errorf("publish: %w", err)
				}
				continue
			}
		}
		left = append(left, rel)
	}
	// Deepest first, so that a folder is empty when its turn comes.
	sort.Slice(dirs, func(i, j int) bool { return len(dirs[i]) > len(dirs[j]) })
	for _, rel := range dirs {
		os.Remove(filepath.Join(old, rel)) // only when empty
	}
	if len(left) == 0 {
		if err := os.Remove(old); err != nil {
			return nil, fmt.Errorf("publish: %w", err)
		}
	}
	return left, nil
}

// publishTempName matches the temporary names ub gives a file while it
// writes it (".NAME.123.tmp", ".NAME.123", and DuckDB's "tmp_" before
// those): group 1 is NAME.
var publishTempName = regexp.MustCompile(`^(?:tmp_)?\.(.+)\.[0-9]+(?:\.tmp)?$`)

// isPublishTemp says whether rel is a temporary file ub left while writing
// one of the files own lists, in the same folder.
func isPublishTemp(rel string, own map[string]bool) bool {
	m := publishTempName.FindStringSubmatch(filepath.Base(rel))
	return m != nil && own[filepath.Join(filepath.Dir(rel), m[1])]
}

// removePublishLeftovers removes what killed publishes into parent/base
// left beside it: build directories no process holds (all ub's), and
// earlier bundles set aside, of their own files only (the user's are moved
// into parent/base, the bundle in force).
func removePublishLeftovers(parent, base string, warn io.Writer) error {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || !strings.HasPrefix(name, "."+base+".ub-publish-") {
			continue
		}
		p := filepath.Join(parent, name)
		switch rest := strings.TrimPrefix(name, "."+base); {
		case strings.HasPrefix(rest, publishBuildTag):
			lock, err := lockDir(p)
			if err != nil {
				continue // a publish running now
			}
			err = os.RemoveAll(p)
			lock.Close()
			if err != nil {
				return fmt.Errorf("publish: %w", err)
			}
		case strings.HasPrefix(rest, publishOldTag):
			owned, err := readPublishMarker(p)
			if errors.Is(err, fs.ErrNotExist) {
				owned, err = nil, nil
			}
			if err != nil {
				return err
			}
			into := filepath.Join(parent, base)
			if _, err := os.Stat(filepath.Join(into, publishMarker)); err != nil {
				into = "" // no bundle in force to take the user's files
			}
			left, err := retireOldBundle(p, owned, into)
			if err != nil {
				return err
			}
			if len(left) > 0 {
				fmt.Fprintf(warn, "warning: publish: a publish into %s was killed as it swapped bundles; files ub did not write, %s, are kept in %s\n",
					filepath.Join(parent, base), visible.List(left, 5), p)
			}
		}
	}
	return nil
}
