package journal

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// write returns a journal file of id with the entries given, as Add writes
// them.
func content(id string, entries ...Entry) []byte {
	b := []byte(headerLine(id))
	for _, e := range entries {
		b = append(b, entryLine(e.Key, e.Data)...)
	}
	return b
}

func writeFile(t *testing.T, b []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "j")
	if err := os.WriteFile(path, b, 0o666); err != nil {
		t.Fatal(err)
	}
	return path
}

func equal(a, b []Entry) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Key != b[i].Key || !bytes.Equal(a[i].Data, b[i].Data) {
			return false
		}
	}
	return true
}

var three = []Entry{{5, []byte("1,2,0.1,five")}, {0, []byte("zero")}, {12, []byte("")}}

// TestRoundTrip adds entries from several goroutines, closes, and reads
// them back with Read and Open; Open then appends after them.
func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j")
	w, err := Create(path, "id1")
	if err != nil {
		t.Fatal(err)
	}
	const n = 200
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := g; i < n; i += 4 {
				if err := w.Add(i, fmt.Appendf(nil, "data %d", i)); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Add(1, nil); err == nil {
		t.Error("Add after Close: no error")
	}
	got, err := Read(path, "id1")
	if err != nil || len(got) != n {
		t.Fatalf("Read: %d entries, %v; want %d", len(got), err, n)
	}
	seen := make(map[int]bool)
	for _, e := range got {
		if string(e.Data) != fmt.Sprintf("data %d", e.Key) || seen[e.Key] {
			t.Errorf("entry %d: %q (seen before: %v)", e.Key, e.Data, seen[e.Key])
		}
		seen[e.Key] = true
	}
	w, again, err := Open(path, "id1")
	if err != nil || !equal(again, got) {
		t.Fatalf("Open: %v, entries equal to Read's: %v", err, equal(again, got))
	}
	w.Add(n, []byte("last"))
	if err := w.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Remove left the file: %v", err)
	}
}

// TestTorn cuts a journal at every byte of its last line: the partial line
// is dropped, Open cuts it off, and the next entry is read back.
func TestTorn(t *testing.T) {
	full := content("id", three...)
	last := len(full) - len(entryLine(three[2].Key, three[2].Data))
	for cut := last; cut < len(full); cut++ {
		path := writeFile(t, full[:cut])
		got, err := Read(path, "id")
		if err != nil || !equal(got, three[:2]) {
			t.Fatalf("cut at %d: Read %v, %v; want the first two entries", cut, got, err)
		}
		w, got, err := Open(path, "id")
		if err != nil || !equal(got, three[:2]) {
			t.Fatalf("cut at %d: Open %v, %v", cut, got, err)
		}
		w.Add(9, []byte("nine"))
		w.Close()
		got, err = Read(path, "id")
		if want := append(three[:2:2], Entry{9, []byte("nine")}); err != nil || !equal(got, want) {
			t.Fatalf("cut at %d: after Add, %v, %v; want %v", cut, got, err, want)
		}
	}
	// A header cut short: nothing was added; Open starts the journal anew.
	for cut := range len(headerLine("id")) {
		path := writeFile(t, full[:cut])
		w, got, err := Open(path, "id")
		if err != nil || len(got) != 0 {
			t.Fatalf("header cut at %d: %v, %v", cut, got, err)
		}
		w.Close()
		if b, _ := os.ReadFile(path); string(b) != headerLine("id") {
			t.Errorf("header cut at %d: file %q after Open", cut, b)
		}
	}
}

// TestRefused: a journal of another id, and every kind of damage other
// than a partial last line, is an error, and Open leaves the file as it
// was.
func TestRefused(t *testing.T) {
	good := content("id", three...)
	lines := strings.SplitAfter(string(good), "\n")
	flip := []byte(lines[1])
	flip[len(flip)-3] ^= 1 // one bit of the data: the checksum fails
	for _, tc := range []struct {
		name string
		b    string
		want error
	}{
		{"other id", string(content("other", three...)), ErrOtherRun},
		{"other id, no entries", headerLine("other"), ErrOtherRun},
		{"other format", "bernamp-journal 2 id\n", ErrCorrupt},
		{"not a journal", "d,k,c,alpha,eps\n1,1,0.1,5,1\n", ErrCorrupt},
		{"not a journal, one line", "hello", ErrCorrupt},
		{"bad checksum", lines[0] + string(flip) + lines[2] + lines[3], ErrCorrupt},
		{"bad checksum in the last complete line", lines[0] + lines[1] + string(flip), ErrCorrupt},
		{"lost line separator", lines[0] + strings.TrimSuffix(lines[1], "\n") + lines[2], ErrCorrupt},
		{"negative key", lines[0] + "-1 00000000 x\n", ErrCorrupt},
		{"key with sign", lines[0] + "+1 00000000 x\n", ErrCorrupt},
		{"short checksum", lines[0] + "1 0000 x\n", ErrCorrupt},
		{"no data field", lines[0] + "1\n", ErrCorrupt},
		{"blank line", lines[0] + "\n" + lines[1], ErrCorrupt},
		{"key again, other data", string(good) + string(entryLine(5, []byte("other"))), ErrCorrupt},
	} {
		path := writeFile(t, []byte(tc.b))
		if _, err := Read(path, "id"); !errors.Is(err, tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: Read error %v, want %v on one line", tc.name, err, tc.want)
		}
		if _, _, err := Open(path, "id"); !errors.Is(err, tc.want) {
			t.Errorf("%s: Open error %v, want %v", tc.name, err, tc.want)
		}
		if b, _ := os.ReadFile(path); string(b) != tc.b {
			t.Errorf("%s: Open changed the file", tc.name)
		}
	}
}

// TestRepeatedKey: a key added again with the same data is one entry.
func TestRepeatedKey(t *testing.T) {
	path := writeFile(t, append(content("id", three...), entryLine(5, three[0].Data)...))
	if got, err := Read(path, "id"); err != nil || !equal(got, three) {
		t.Errorf("got %v, %v; want %v", got, err, three)
	}
}

// TestBadInput: ids, keys and data the format cannot hold.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, id := range []string{"", "a b", "a\nb"} {
		if _, err := Create(filepath.Join(dir, "j"), id); err == nil {
			t.Errorf("Create with id %q: no error", id)
		}
		if _, _, err := Open(filepath.Join(dir, "j"), id); err == nil {
			t.Errorf("Open with id %q: no error", id)
		}
		if _, err := Read(filepath.Join(dir, "j"), id); err == nil {
			t.Errorf("Read with id %q: no error", id)
		}
	}
	w, err := Create(filepath.Join(dir, "j"), "id")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Add(-1, nil); err == nil {
		t.Error("Add(-1): no error")
	}
	if err := w.Add(1, []byte("a\nb")); err == nil {
		t.Error("Add with a newline: no error")
	}
	if _, err := Read(filepath.Join(dir, "missing"), "id"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Read of a missing file: %v", err)
	}
}

// TestLock: a second Acquire of a held lock fails at once with a
// *HeldError naming the holder; after Release it succeeds.
func TestLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.lock")
	l, err := Acquire(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Acquire(path)
	var held *HeldError
	if !errors.As(err, &held) || held.Owner != owner() || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Fatalf("second Acquire: %v, want a HeldError naming %q", err, owner())
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if err := l.Release(); err != nil {
		t.Errorf("second Release: %v", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Release left the lock file: %v", err)
	}
	l2, err := Acquire(path)
	if err != nil {
		t.Fatalf("Acquire after Release: %v", err)
	}
	l2.Release()
}

// TestSyncInBatches: an entry reaches the file at once (before any sync),
// and the writer syncs it within SyncInterval (dirty cleared).
func TestSyncInBatches(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j")
	w, err := Create(path, "id")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.Add(3, []byte("three"))
	if got, err := Read(path, "id"); err != nil || len(got) != 1 {
		t.Fatalf("before the sync: %v, %v; want the entry in the file", got, err)
	}
	deadline := time.Now().Add(20 * SyncInterval)
	for {
		w.mu.Lock()
		dirty := w.dirty
		w.mu.Unlock()
		if !dirty {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the entry was not synced")
		}
		time.Sleep(SyncInterval / 10)
	}
}
