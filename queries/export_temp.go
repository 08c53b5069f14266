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
// new inode), which would drop a lock held on the temporary itself.
type exportTemp struct {
	path string   // the temporary
	lock *os.File // held while the export runs
}

// tempAttempts bounds how often newExportTemp makes a new lock when
// another process's clean-up took the one it made.
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
		// Between its creation and the flock, another export's clean-up
		// may take and remove the lock: then make another.
		if !lockedInPlace(lock) {
			lock.Close()
			continue
		}
		t := &exportTemp{path: strings.TrimSuffix(lock.Name(), ".lock"), lock: lock}
		if dir {
			err = os.Mkdir(t.path, 0o700)
		} else {
			var f *os.File
			if f, err = os.OpenFile(t.path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
				err = f.Close()
			}
		}
		if err != nil {
			t.done()
			return nil, err
		}
		return t, nil
	}
	return nil, fmt.Errorf("make a temporary beside %s: its lock was taken %d times", dest, tempAttempts)
}

// lockedInPlace takes f's flock without waiting and says whether f is
// then still the file at its name (a clean-up removes a lock it could
// take).
func lockedInPlace(f *os.File) bool {
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return false
	}
	held, err1 := f.Stat()
	named, err2 := os.Stat(f.Name())
	return err1 == nil && err2 == nil && os.SameFile(held, named)
}

// done removes the temporary (if the rename has not taken it) and then the
// lock.
func (t *exportTemp) done() {
	os.RemoveAll(t.path)
	os.Remove(t.lock.Name())
	t.lock.Close()
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
		if lockedInPlace(f) {
			tmp := strings.TrimSuffix(lockPath, ".lock")
			if err := os.RemoveAll(tmp); err == nil || errors.Is(err, os.ErrNotExist) {
				os.Remove(lockPath)
			}
		}
		f.Close()
	}
}
