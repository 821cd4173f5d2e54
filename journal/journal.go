// Package journal keeps the finished results of a long run on disk the
// moment each one finishes, so that a run killed at any moment (SIGKILL,
// power loss, a batch system's time limit) loses no finished work, and
// guards a run's files with a lock so that two runs never write them at
// once.
//
// A journal is an append-only text file. Its first line names the run it
// belongs to:
//
//	bernamp-journal 1 ID
//
// where ID is a string chosen by the caller (a hash of everything that
// changes the results), and every further line is one entry:
//
//	KEY CRC DATA
//
// KEY a decimal integer >= 0 (for a sweep, the index of a grid point), CRC
// the 8 hex digits of the IEEE CRC-32 of "KEY DATA", DATA any bytes but a
// newline. Entries are written with one write call each as they are added,
// so they survive the death of the process at once; the file is fsynced in
// batches, at most SyncInterval after an entry was added, and on Sync and
// Close, so they also survive a crash of the machine after that.
//
// A process killed in a write leaves at most one partial line, at the end:
// Open and Read drop it (Open also cuts it off the file, so that the next
// entry starts on a line of its own). Any other damage, a line with a bad
// checksum or a bad key anywhere else, is an error: the journal is not
// guessed at. A journal whose ID is not the caller's belongs to another
// run and is refused with ErrOtherRun.
package journal

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// SyncInterval is the longest time an added entry waits for its fsync.
const SyncInterval = 500 * time.Millisecond

// magic starts the first line of every journal; version is its format.
const (
	magic   = "bernamp-journal"
	version = "1"
)

var (
	// ErrOtherRun is wrapped by the error of Open and Read for a journal
	// written for another ID: another grid or other settings.
	ErrOtherRun = errors.New("journal of another run")
	// ErrCorrupt is wrapped by the error of Open and Read for a journal
	// damaged other than by a partial last line.
	ErrCorrupt = errors.New("journal is corrupt")
)

// Entry is one finished result: its key and its data.
type Entry struct {
	Key  int
	Data []byte
}

// checkID returns an error unless id can stand in the header: not empty,
// no white space.
func checkID(id string) error {
	if id == "" || strings.ContainsAny(id, " \t\r\n") {
		return fmt.Errorf("journal: id %q must be non-empty without white space", id)
	}
	return nil
}

// headerLine is the first line of the journal of id.
func headerLine(id string) string { return magic + " " + version + " " + id + "\n" }

// entryLine is the line of an entry, with its newline.
func entryLine(key int, data []byte) []byte {
	k := strconv.Itoa(key)
	crc := crc32.NewIEEE()
	crc.Write([]byte(k + " "))
	crc.Write(data)
	b := make([]byte, 0, len(k)+10+len(data)+1)
	b = append(b, k...)
	b = append(b, ' ')
	b = fmt.Appendf(b, "%08x", crc.Sum32())
	b = append(b, ' ')
	b = append(b, data...)
	return append(b, '\n')
}

// parse reads the content b of a journal for id. It returns the entries
// and the length of b up to the end of the last complete line (what is
// kept); a header cut short by a kill leaves no entries and length 0. A
// repeated key with the same data is one entry (written again after a
// resume that did not see it); with other data it is an error.
func parse(name string, b []byte, id string) ([]Entry, int, error) {
	nl := bytes.IndexByte(b, '\n')
	if nl < 0 {
		// A header cut short: nothing was ever added. A file that is not
		// a journal is not taken for one.
		if !strings.HasPrefix(string(b), magic+" ") && !strings.HasPrefix(magic+" ", string(b)) {
			return nil, 0, fmt.Errorf("%s: not a journal (first line %q): %w", name, clip(b), ErrCorrupt)
		}
		return nil, 0, nil
	}
	hdr := string(b[:nl])
	f := strings.Fields(hdr)
	switch {
	case len(f) != 3 || f[0] != magic:
		return nil, 0, fmt.Errorf("%s: not a journal (first line %q): %w", name, clip(b[:nl]), ErrCorrupt)
	case f[1] != version:
		return nil, 0, fmt.Errorf("%s: journal format %s, this program reads %s: %w", name, f[1], version, ErrCorrupt)
	case f[2] != id:
		return nil, 0, fmt.Errorf("%s: %w (id %s, this run's is %s)", name, ErrOtherRun, f[2], id)
	}
	var entries []Entry
	at := make(map[int]int) // key -> index in entries
	kept := nl + 1
	for line := 2; kept < len(b); line++ {
		end := bytes.IndexByte(b[kept:], '\n')
		if end < 0 {
			break // the partial last line of a killed writer
		}
		e, err := parseEntry(b[kept : kept+end])
		if err != nil {
			return nil, 0, fmt.Errorf("%s: line %d: %v: %w", name, line, err, ErrCorrupt)
		}
		if i, ok := at[e.Key]; ok {
			if !bytes.Equal(entries[i].Data, e.Data) {
				return nil, 0, fmt.Errorf("%s: line %d: key %d again with other data: %w", name, line, e.Key, ErrCorrupt)
			}
		} else {
			at[e.Key] = len(entries)
			entries = append(entries, e)
		}
		kept += end + 1
	}
	return entries, kept, nil
}

// parseEntry parses a complete entry line without its newline.
func parseEntry(line []byte) (Entry, error) {
	ks, rest, ok1 := bytes.Cut(line, []byte(" "))
	cs, data, ok2 := bytes.Cut(rest, []byte(" "))
	if !ok1 || !ok2 {
		return Entry{}, fmt.Errorf("%q is not KEY CRC DATA", clip(line))
	}
	key, err := strconv.Atoi(string(ks))
	if err != nil || key < 0 || strconv.Itoa(key) != string(ks) {
		return Entry{}, fmt.Errorf("key %q is not an integer >= 0", clip(ks))
	}
	crc, err := strconv.ParseUint(string(cs), 16, 32)
	if err != nil || len(cs) != 8 {
		return Entry{}, fmt.Errorf("checksum %q is not 8 hex digits", clip(cs))
	}
	if want := entryLine(key, data); !bytes.Equal(want[len(ks)+1:len(ks)+9], cs) {
		return Entry{}, fmt.Errorf("checksum %08x does not match the entry of key %d", crc, key)
	}
	return Entry{Key: key, Data: bytes.Clone(data)}, nil
}

// clip shortens b for an error message.
func clip(b []byte) string {
	if len(b) > 60 {
		return string(b[:60]) + "..."
	}
	return string(b)
}

// Read returns the entries of the journal at path written for id, in the
// order they were added, without the partial last line a killed writer
// may have left; it does not change the file. A missing file is an error
// wrapping fs.ErrNotExist.
func Read(path, id string) ([]Entry, error) {
	if err := checkID(id); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	entries, _, err := parse(path, b, id)
	return entries, err
}

// Writer appends entries to a journal. Its methods may be called from
// several goroutines at once.
type Writer struct {
	path string
	mu   sync.Mutex
	f    *os.File // nil once closed
	err  error    // the first write or sync error; every later call returns it
	// dirty: entries written since the last fsync.
	dirty bool
	stop  chan struct{}
	done  chan struct{}
}

// Create starts a new journal at path for id, replacing any file there,
// and returns its writer. The header is on disk (fsynced) when it returns.
func Create(path, id string) (*Writer, error) {
	if err := checkID(id); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		return nil, err
	}
	if _, err := f.WriteString(headerLine(id)); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return nil, err
	}
	return start(path, f), nil
}

// Open opens the journal at path for id to go on with it: it returns the
// entries already there, in the order they were added, and a writer that
// appends after them. A partial last line is cut off the file; a missing
// file is created as by Create. A journal of another id is refused with
// an error wrapping ErrOtherRun, any other damage with ErrCorrupt, and the
// file is then left as it was.
func Open(path, id string) (*Writer, []Entry, error) {
	if err := checkID(id); err != nil {
		return nil, nil, err
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		w, err := Create(path, id)
		return w, nil, err
	}
	if err != nil {
		return nil, nil, err
	}
	entries, kept, err := parse(path, b, id)
	if err != nil {
		return nil, nil, err
	}
	if kept == 0 { // a header cut short
		w, err := Create(path, id)
		return w, nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return nil, nil, err
	}
	if kept < len(b) {
		if err := f.Truncate(int64(kept)); err != nil {
			f.Close()
			return nil, nil, err
		}
	}
	if _, err := f.Seek(int64(kept), 0); err != nil {
		f.Close()
		return nil, nil, err
	}
	return start(path, f), entries, nil
}

// start returns the writer of f and starts its batch syncs.
func start(path string, f *os.File) *Writer {
	w := &Writer{path: path, f: f, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		t := time.NewTicker(SyncInterval)
		defer t.Stop()
		for {
			select {
			case <-w.stop:
				return
			case <-t.C:
				w.Sync()
			}
		}
	}()
	return w
}

// Path returns the path of the journal.
func (w *Writer) Path() string { return w.path }

// Add appends the entry (key, data) with one write call: once Add returns,
// the entry survives the death of the process; it is fsynced within
// SyncInterval. key must be >= 0 and data must not hold a newline.
func (w *Writer) Add(key int, data []byte) error {
	if key < 0 {
		return fmt.Errorf("journal: key %d, must be >= 0", key)
	}
	if bytes.IndexByte(data, '\n') >= 0 {
		return fmt.Errorf("journal: data of key %d holds a newline", key)
	}
	line := entryLine(key, data)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if w.f == nil {
		return fmt.Errorf("journal %s: Add after Close", w.path)
	}
	if _, err := w.f.Write(line); err != nil {
		w.err = fmt.Errorf("journal %s: %w", w.path, err)
		return w.err
	}
	w.dirty = true
	return nil
}

// Sync fsyncs the entries added so far.
func (w *Writer) Sync() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.syncLocked()
}

func (w *Writer) syncLocked() error {
	if w.err != nil || !w.dirty || w.f == nil {
		return w.err
	}
	if err := w.f.Sync(); err != nil {
		w.err = fmt.Errorf("journal %s: %w", w.path, err)
		return w.err
	}
	w.dirty = false
	return nil
}

// Close fsyncs and closes the journal; the file stays, for a later Open.
// Calling Close again does nothing.
func (w *Writer) Close() error {
	w.mu.Lock()
	if w.f == nil {
		w.mu.Unlock()
		return w.err
	}
	err := w.syncLocked()
	if cerr := w.f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("journal %s: %w", w.path, cerr)
	}
	w.f = nil
	w.mu.Unlock()
	close(w.stop)
	<-w.done
	return err
}

// Remove closes the journal and deletes its file: the work it kept is
// somewhere safe now.
func (w *Writer) Remove() error {
	err := w.Close()
	if rerr := os.Remove(w.path); err == nil && rerr != nil {
		err = rerr
	}
	return err
}
