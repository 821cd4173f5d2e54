//go:build !unix

package journal

import (
	"errors"
	"io/fs"
	"os"
)

// Acquire creates the lock file at path, exclusively: it returns a
// *HeldError if the file exists. Without flock(2) a lock file left by a
// process that died stays; the error names it, to be removed by hand.
func Acquire(path string) (*Lock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
	if errors.Is(err, fs.ErrExist) {
		return nil, &HeldError{Path: path, Owner: readOwner(path) + " (remove the file if that run is gone)"}
	}
	if err != nil {
		return nil, err
	}
	f.WriteString(owner() + "\n")
	return &Lock{path: path, f: f}, nil
}

// Release removes the lock file. Calling it again does nothing.
func (l *Lock) Release() error {
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	if rerr := os.Remove(l.path); err == nil {
		err = rerr
	}
	l.f = nil
	return err
}
