package main

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/bernamp/bernamp"
)

// A CSV file of rows is written one whole line per write call and flushed
// at once, so a run killed at any moment, SIGKILL included, leaves complete
// rows followed by at most one partial line; readOutFile drops that line.

// outFile is the content of a CSV file written by an earlier run.
type outFile struct {
	path   string
	header bool            // the file has its header line
	rows   int             // complete rows
	keys   map[string]bool // the points of the rows, as pointKey
	prefix bool            // the rows are the first rows of the selected points, in order (set by missing)
	order  []string        // keys in file order
}

// pointKey identifies a grid point by its CSV columns d,k,c,alpha,eps.
func pointKey(fields []string) string { return strings.Join(fields[:5], ",") }

// gridKey is pointKey of grid point i.
func gridKey(g *grid, i int) string { return strings.Join(pointFields(g.at(i)), ",") }

// readCSVRows reads a file of rows in the CSV format of bernamp: the header,
// then records of len(header) fields. A final line without its newline is
// the trace of a killed run: it is dropped, and when truncate is true also
// cut from the file. A missing or empty file has no rows (and no header).
func readCSVRows(path string, truncate bool) (rows [][]string, hasHeader bool, err error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if n := bytes.LastIndexByte(b, '\n') + 1; n < len(b) {
		b = b[:n]
		if truncate {
			if err := os.Truncate(path, int64(n)); err != nil {
				return nil, false, err
			}
		}
	}
	if len(b) == 0 {
		return nil, false, nil
	}
	r := csv.NewReader(bytes.NewReader(b))
	r.FieldsPerRecord = -1 // checked below, after the header
	recs, err := r.ReadAll()
	if err != nil {
		return nil, false, fmt.Errorf("%s: not a bernamp CSV file: %v", path, err)
	}
	if len(recs) == 0 { // blank lines only: the CSV reader skips them
		return nil, false, fmt.Errorf("%s: not a bernamp CSV file: blank lines and no header", path)
	}
	if !slices.Equal(recs[0], header) {
		return nil, false, fmt.Errorf("%s: header %q is not %q", path, strings.Join(recs[0], ","), strings.Join(header, ","))
	}
	for n, rec := range recs[1:] {
		if len(rec) != len(header) {
			return nil, false, fmt.Errorf("%s: not a bernamp CSV file: row %d has %d fields, want %d", path, n+1, len(rec), len(header))
		}
		if err := checkValues(rec); err != nil {
			return nil, false, fmt.Errorf("%s: row %d: %v", path, n+1, err)
		}
	}
	return recs[1:], true, nil
}

// checkValues checks the columns of a row after d,k,c,alpha,eps (those name
// the point and are matched against the grid): lb, ub, post, post_upper
// and seconds must be finite numbers, seconds >= 0, and status and check
// among bernamp's values. A row kept by --resume or merge is copied as is, so a
// corrupted value would otherwise reach the output.
func checkValues(rec []string) error {
	for j := 5; j < len(header); j++ {
		name, s := header[j], rec[j]
		if name == "status" {
			switch s {
			case bernamp.StatusCertified, bernamp.StatusWitness, bernamp.StatusBounds:
				continue
			}
			return fmt.Errorf("status is %q, must be %s, %s or %s", s, bernamp.StatusCertified, bernamp.StatusWitness, bernamp.StatusBounds)
		}
		if name == "check" {
			switch s {
			case bernamp.CheckVerified, bernamp.CheckRejected, bernamp.CheckOff, bernamp.CheckNone:
				continue
			}
			return fmt.Errorf("check is %q, must be %s, %s, %s or %s", s, bernamp.CheckVerified, bernamp.CheckRejected, bernamp.CheckOff, bernamp.CheckNone)
		}
		v, err := strconv.ParseFloat(s, 64)
		switch {
		case err != nil:
			return fmt.Errorf("%s %q is not a number", name, s)
		case math.IsNaN(v) || math.IsInf(v, 0):
			return fmt.Errorf("%s is %v, must be finite", name, v)
		case name == "seconds" && v < 0:
			return fmt.Errorf("seconds is %v, must be >= 0", v)
		}
	}
	return nil
}

// readOutFile reads the file to resume.
func readOutFile(path string) (*outFile, error) {
	rows, hasHeader, err := readCSVRows(path, true)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(path); os.IsNotExist(err) {
		if err := os.WriteFile(path, nil, 0o666); err != nil {
			return nil, err
		}
	}
	f := &outFile{path: path, header: hasHeader, rows: len(rows), keys: make(map[string]bool, len(rows))}
	for n, row := range rows {
		k := pointKey(row)
		if f.keys[k] {
			return nil, fmt.Errorf("--resume: %s: row %d repeats the point %s", path, n+1, k)
		}
		f.keys[k] = true
		f.order = append(f.order, k)
	}
	return f, nil
}

// missing returns the indices of idx, points of g, without a row in f. Every
// row of f must be one of them: a row of another grid or shard is an error.
func (f *outFile) missing(g *grid, idx []int) ([]int, error) {
	var todo []int
	in := make(map[string]bool, len(f.keys))
	f.prefix = true
	for r, i := range idx {
		k := gridKey(g, i)
		if f.keys[k] {
			in[k] = true
			f.prefix = f.prefix && r < len(f.order) && f.order[r] == k
			continue
		}
		todo = append(todo, i)
	}
	if len(in) != len(f.keys) {
		for _, k := range f.order {
			if !in[k] {
				return nil, fmt.Errorf("--resume: %s has a row for d,k,c,alpha,eps = %s, which is not a point of this run", f.path, k)
			}
		}
	}
	return todo, nil
}

// sortOutFile rewrites the CSV file at path with its rows in grid order,
// through a temporary file renamed over it, so the file is never partial.
func sortOutFile(path string, g *grid) error {
	rows, _, err := readCSVRows(path, false)
	if err != nil {
		return err
	}
	rank := make(map[string]int, g.n)
	for i := range g.n {
		rank[gridKey(g, i)] = i
	}
	slices.SortStableFunc(rows, func(a, b []string) int { return rank[pointKey(a)] - rank[pointKey(b)] })
	return writeFileAtomic(path, func(w io.Writer) error { return writeRows(w, rows) })
}

// writeRows writes the header and rows as CSV.
func writeRows(w io.Writer, rows [][]string) error {
	cw := csv.NewWriter(w)
	cw.Write(header)
	return cw.WriteAll(rows)
}

// writeFileAtomic writes a file through a temporary file in the same
// directory, renamed over path once complete. The file gets the usual
// permissions, 0666 less the umask (os.CreateTemp's 0600 kept a run's
// files from other users).
func writeFileAtomic(path string, write func(io.Writer) error) error {
	var tmp *os.File
	var err error
	for range 100 {
		name := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp"+strconv.FormatUint(rand.Uint64(), 36))
		if tmp, err = os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666); !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a successful rename, a no-op
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// csvWriterNoHeader appends rows to a CSV file that has its header.
func csvWriterNoHeader(w io.Writer) rowWriter { return csvWriter{csv.NewWriter(w)} }
