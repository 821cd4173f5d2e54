package journal

import (
	"fmt"
	"os"
	"strings"
)

// Lock is a lock on a file that a run holds while it writes a set of files,
// so that a second run on the same files refuses instead of writing beside
// the first. On Unix it is flock(2) on the lock file: the kernel releases
// it when the process dies, however it dies, so a lock is never stale and a
// killed run's files are taken over by the next run without any cleanup.
type Lock struct {
	path string
	f    *os.File
}

// HeldError is the error of Acquire when another process holds the lock.
type HeldError struct {
	Path  string // the lock file
	Owner string // "pid N on host H" as the holder wrote it; "" if unknown
}

func (e *HeldError) Error() string {
	owner := e.Owner
	if owner == "" {
		owner = "another process"
	}
	return fmt.Sprintf("%s is held by %s", e.Path, owner)
}

// owner is what a holder writes into its lock file.
func owner() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("pid %d on host %s", os.Getpid(), host)
}

// readOwner returns the owner written in the lock file at path, or "".
func readOwner(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// Path returns the path of the lock file.
func (l *Lock) Path() string { return l.path }
