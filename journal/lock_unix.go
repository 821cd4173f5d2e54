//go:build unix

package journal

import (
	"errors"
	"os"
	"syscall"
)

// Acquire takes the lock file at path, creating it: it returns a
// *HeldError at once, without waiting, if another process holds it. The
// lock is released by Release, or by the kernel when the process ends.
func Acquire(path string) (*Lock, error) {
	for range 10 {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o666)
		if err != nil {
			return nil, err
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, &HeldError{Path: path, Owner: readOwner(path)}
			}
			return nil, &os.PathError{Op: "flock", Path: path, Err: err}
		}
		// A holder that released the lock removed the file first: a lock
		// on the removed file locks nothing, so take the new file.
		if fi, err := f.Stat(); err == nil {
			if pi, err := os.Stat(path); err == nil && os.SameFile(fi, pi) {
				if err := f.Truncate(0); err == nil {
					f.WriteString(owner() + "\n")
				}
				return &Lock{path: path, f: f}, nil
			}
		}
		f.Close()
	}
	return nil, &HeldError{Path: path}
}

// Release removes the lock file and releases the lock. Calling it again
// does nothing.
func (l *Lock) Release() error {
	if l.f == nil {
		return nil
	}
	err := os.Remove(l.path)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	return err
}
