package journal_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/bernamp/bernamp/journal"
)

// A run adds each result as it finishes, in any order; a later run with
// the same id opens the journal and gets them back, to compute only the
// rest.
func Example() {
	dir, err := os.MkdirTemp("", "journal")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "sweep.csv.journal")

	lock, err := journal.Acquire(path + ".lock")
	if err != nil {
		log.Fatal(err)
	}
	w, err := journal.Create(path, "grid-3f2a")
	if err != nil {
		log.Fatal(err)
	}
	w.Add(7, []byte("row seven"))
	w.Add(2, []byte("row two"))
	w.Close() // or the process is killed: the entries are in the file
	if _, err := journal.Acquire(path + ".lock"); err != nil {
		fmt.Println("second run:", err != nil)
	}
	lock.Release()

	w, entries, err := journal.Open(path, "grid-3f2a")
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range entries {
		fmt.Printf("%d: %s\n", e.Key, e.Data)
	}
	w.Remove() // the results are in their final file now

	// Output:
	// second run: true
	// 7: row seven
	// 2: row two
}
