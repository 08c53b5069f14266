package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// writeOut makes the output file out with produce, which writes a whole
// file at the path it is given (queries.Export, say, through a temporary and
// a rename). A regular file, or a new one, is replaced atomically; a symlink
// is followed, so the file it points to is replaced and the link stays; "-"
// is w (stdout); a FIFO, a device or /dev/stdout is written through, from a
// complete temporary copy, so it receives all the output or none and is
// never replaced by a regular file.
func writeOut(out string, w io.Writer, produce func(path string) error) error {
	target, through, err := outTarget(out)
	if err != nil {
		return err
	}
	if !through {
		return produce(target)
	}
	dir, err := os.MkdirTemp("", "ub-out-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	tmp := filepath.Join(dir, "out"+filepath.Ext(out))
	if err := produce(tmp); err != nil {
		return err
	}
	src, err := os.Open(tmp)
	if err != nil {
		return err
	}
	defer src.Close()
	if out == "-" {
		_, err = io.Copy(w, src)
		return err
	}
	dst, err := os.OpenFile(target, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return fmt.Errorf("write %s: %w", out, err)
	}
	return dst.Close()
}

// outTarget resolves an output path: the file to replace (a symlink
// followed to its regular file), or through true for stdout and special
// files, which are written into rather than replaced.
func outTarget(out string) (target string, through bool, err error) {
	if out == "-" {
		return out, true, nil
	}
	fi, err := os.Stat(out) // follows symlinks
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if li, lerr := os.Lstat(out); lerr == nil && li.Mode()&fs.ModeSymlink != 0 {
			return "", false, usagef("%s is a symlink to a missing file; write to the file itself", out)
		}
		if dir := filepath.Dir(out); !exists(dir) {
			return "", false, usagef("%s: the folder %s does not exist", out, dir)
		}
		return out, false, nil
	case err != nil:
		return "", false, err
	case fi.IsDir():
		return "", false, usagef("%s is a directory; name a file", out)
	case fi.Mode().IsRegular():
		resolved, err := filepath.EvalSymlinks(out)
		if err != nil {
			return "", false, err
		}
		return resolved, false, nil
	}
	return out, true, nil
}

// requireOutDir refuses, as a usage error, an output folder (--out DIR)
// that names something other than a folder, before any work is done; a
// folder that does not exist yet is made by the command.
func requireOutDir(cmd, dir string) error {
	if dir == "" {
		return nil
	}
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return usagef("%s: --out %s: a file, not a folder", cmd, dir)
	}
	return nil
}

// exists says whether path names something (a symlink is followed).
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// writeFileAtomic writes b to path through a temporary beside it and a
// rename, so a reader never sees half a file.
func writeFileAtomic(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
