package queries

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// exportTemp is the temporary file or directory an export writes beside
// its destination before renaming it into place, ".BASE.N.tmp", with its
// lock ".BASE.N.tmp.lock", a file the exporting process holds (flock)
// until it is done. A run killed as it exports (kill -9 runs no deferred
// remove) leaves both; the next export beside the same destination removes
// them, once no process holds the lock (removeAbandonedTemps). The lock is
// a file of its own because DuckDB's COPY replaces the file it writes (a
// new inode), which would drop a lock held on the temporary itself. On a
// file system without flock the export goes on without a lock (and what a
// kill leaves there stays, as a temporary without its lock).
type exportTemp struct {
	path    string   // the temporary
	lock    *os.File // held while the export runs; nil: no lock
	created bool     // the temporary was made (and so is this export's)
}

// tempAttempts bounds how often newExportTemp makes a new lock when
// another process's clean-up took the one it made, or its temporary's
// name was taken.
const tempAttempts = 5

// newExportTemp removes what killed exports to dest left, then makes the
// lock and the temporary (a directory when dir is true) beside dest.
func newExportTemp(dest string, dir bool) (*exportTemp, error) {
	parent, base := filepath.Split(dest)
	if parent == "" {
		parent = "."
	}
	removeAbandonedTemps(parent, base)
	for range tempAttempts {
		lock, err := os.CreateTemp(parent, "."+base+".*.tmp.lock")
		if err != nil {
			return nil, err
		}
		t := &exportTemp{path: strings.TrimSuffix(lock.Name(), ".lock"), lock: lock}
		held, err := lockedInPlace(lock)
		switch {
		case err != nil: // no flock here: go on without a lock
			os.Remove(lock.Name())
			lock.Close()
			t.lock = nil
		case !held:
			// Between its creation and the flock, another export's
			// clean-up took the lock (and removed it): make another.
			lock.Close()
			continue
		}
		if dir {
			err = os.Mkdir(t.path, 0o700)
		} else {
			var f *os.File
			if f, err = os.OpenFile(t.path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
				err = f.Close()
			}
		}
		if errors.Is(err, os.ErrExist) {
			// The name is taken by what is not this export's: leave it,
			// and make another.
			t.done()
			continue
		}
		if err != nil {
			t.done()
			return nil, err
		}
		t.created = true
		return t, nil
	}
	return nil, fmt.Errorf("make a temporary beside %s: %d names taken", dest, tempAttempts)
}

// lockedInPlace takes f's flock without waiting and says whether f is
// then still the file at its name (a clean-up removes a lock it could
// take); false with no error when another process holds it. An error is a
// file system that has no flock.
func lockedInPlace(f *os.File) (bool, error) {
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return false, nil
		}
		return false, err
	}
	held, err1 := f.Stat()
	named, err2 := os.Stat(f.Name())
	return err1 == nil && err2 == nil && os.SameFile(held, named), nil
}

// done removes the temporary, if this export made it and the rename has
// not taken it, and then the lock: a temporary that could not be removed
// keeps its lock, for a later export to remove both.
func (t *exportTemp) done() {
	gone := true
	if t.created {
		if err := os.RemoveAll(t.path); err != nil && !errors.Is(err, os.ErrNotExist) {
			gone = false
		}
	}
	if t.lock != nil {
		if gone {
			os.Remove(t.lock.Name())
		}
		t.lock.Close()
	}
}

// removeAbandonedTemps removes, in dir, the temporaries of exports to base
// whose process is gone: each ".BASE.N.tmp" (N digits, as os.CreateTemp
// names them) whose ".BASE.N.tmp.lock" no process holds, and that lock. A
// temporary without its lock is left alone (an export of an older ub, or
// not ub's), as is one whose export still runs. Failures are ignored: the
// new export does not need them gone.
func removeAbandonedTemps(dir, base string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	prefix := "." + base + "."
	for _, e := range entries {
		digits, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok {
			continue
		}
		if digits, ok = strings.CutSuffix(digits, ".tmp.lock"); !ok || digits == "" || strings.Trim(digits, "0123456789") != "" || !e.Type().IsRegular() {
			continue
		}
		lockPath := filepath.Join(dir, e.Name())
		f, err := os.Open(lockPath)
		if err != nil {
			continue
		}
		if held, err := lockedInPlace(f); err == nil && held {
			tmp := strings.TrimSuffix(lockPath, ".lock")
			if err := os.RemoveAll(tmp); err == nil || errors.Is(err, os.ErrNotExist) {
				os.Remove(lockPath)
			}
		}
		f.Close()
	}
}
