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
	"github.com/bernamp/bernamp/journal"
)

// The --out file of a run is written in grid order, each row in one write
// as soon as it and every row before it are known, so a run killed at any
// moment, SIGKILL included, leaves complete rows followed by at most one
// partial line; readCSVRows drops that line. Every point is also added to
// the journal OUT.journal (package journal) the moment it finishes, in any
// order, so that a killed run loses no finished point; the journal is
// removed once the file is complete. OUT.lock keeps a second run off the
// same files.

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

// csvLine is the CSV line of fields, with its newline.
func csvLine(fields []string) []byte {
	var b bytes.Buffer
	cw := csv.NewWriter(&b)
	cw.Write(fields)
	cw.Flush()
	return b.Bytes()
}

// sweepOut is the --out file of a run, with its journal and its lock.
type sweepOut struct {
	path    string
	lock    *journal.Lock
	jw      *journal.Writer
	file    *os.File
	pending []keptRow // rows of an earlier run not yet in file, by position
	kept    int       // rows of an earlier run, in file or pending
	written int       // rows written to file by this run, kept ones included
}

// keptRow is a row of an earlier run: its position among the selected
// points and its CSV line.
type keptRow struct {
	pos  int
	line []byte
}

// lockError is the one line of a run refused because another holds the
// lock of its --out.
func lockError(out string, err error) error {
	var held *journal.HeldError
	if errors.As(err, &held) {
		return fmt.Errorf("--out %s: another run is writing it (%s holds %s); wait for it or stop it", out, held.Owner, held.Path)
	}
	return err
}

// openSweepOut takes the lock of path, then starts its file and journal
// for the selected points idx (grid indices in grid order) of g, or with
// resume, reads what an earlier run left in both and returns the
// positions in idx still to compute. id names the grid and settings (a
// journal of another id is refused); hdr is the CSV header.
func openSweepOut(path string, g *grid, idx []int, id string, resume bool, hdr []string) (s *sweepOut, todo []int, err error) {
	lock, err := journal.Acquire(path + ".lock")
	if err != nil {
		return nil, nil, lockError(path, err)
	}
	s = &sweepOut{path: path, lock: lock}
	defer func() {
		if err != nil {
			s.close(false)
			s = nil
		}
	}()
	if !resume {
		if s.file, err = os.Create(path); err != nil {
			return s, nil, err
		}
		if s.jw, err = journal.Create(path+".journal", id); err != nil {
			return s, nil, err
		}
		_, err = s.file.Write(csvLine(hdr))
		return s, allPositions(len(idx)), err
	}

	rows, hasHeader, err := readCSVRows(path, true) // cuts a partial last line
	if err != nil {
		return s, nil, err
	}
	jw, entries, err := journal.Open(path+".journal", id)
	if errors.Is(err, journal.ErrOtherRun) {
		return s, nil, fmt.Errorf("--resume: %s was written by a run of another grid, shard or settings; run that command again with --resume, or remove the file (losing its rows)", path+".journal")
	}
	if err != nil {
		return s, nil, fmt.Errorf("--resume: %w", err)
	}
	s.jw = jw
	pos := func(i int) int { p, _ := slices.BinarySearch(idx, i); return p }
	known := make(map[int][]byte, len(rows)+len(entries)) // position -> line
	inFile := make(map[int]bool, len(rows))
	rank := make(map[string]int, len(idx))
	for _, i := range idx {
		rank[gridKey(g, i)] = i
	}
	prefix := true
	for n, row := range rows {
		k := pointKey(row)
		i, ok := rank[k]
		switch {
		case !ok:
			return s, nil, fmt.Errorf("--resume: %s has a row for d,k,c,alpha,eps = %s, which is not a point of this run", path, k)
		case inFile[pos(i)]:
			return s, nil, fmt.Errorf("--resume: %s: row %d repeats the point %s", path, n+1, k)
		}
		p := pos(i)
		prefix = prefix && p == n
		known[p], inFile[p] = csvLine(row), true
	}
	var fromJournal []int
	for _, e := range entries {
		i := e.Key
		row, err := csv.NewReader(bytes.NewReader(e.Data)).Read()
		if err == nil && len(row) != len(hdr) {
			err = fmt.Errorf("%d fields, want %d", len(row), len(hdr))
		}
		if err == nil {
			err = checkValues(row)
		}
		if err == nil && (i >= g.n || pointKey(row) != gridKey(g, i)) {
			err = fmt.Errorf("the row of d,k,c,alpha,eps = %s is not grid point %d", pointKey(row), i)
		}
		p := pos(i)
		if err == nil && (p == len(idx) || idx[p] != i) {
			err = fmt.Errorf("grid point %d (%s) is not a point of this run", i, gridKey(g, i))
		}
		if err != nil {
			return s, nil, fmt.Errorf("--resume: %s: entry %d: %v", s.jw.Path(), i, err)
		}
		line := csvLine(row)
		if old, ok := known[p]; ok {
			if !bytes.Equal(old, line) {
				return s, nil, fmt.Errorf("--resume: %s and %s differ at d,k,c,alpha,eps = %s", path, s.jw.Path(), pointKey(row))
			}
			continue
		}
		known[p] = line
		fromJournal = append(fromJournal, p)
	}

	// Rows in file order are kept where they are; otherwise the file is
	// written again in grid order, after its rows are safe in the journal.
	keepFile := prefix && hasHeader
	if !keepFile {
		for p := range inFile {
			if err := s.jw.Add(idx[p], bytes.TrimSuffix(known[p], []byte("\n"))); err != nil {
				return s, nil, err
			}
			fromJournal = append(fromJournal, p)
		}
		if err := s.jw.Sync(); err != nil {
			return s, nil, err
		}
	}
	flags := os.O_WRONLY | os.O_APPEND
	if !keepFile {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	if s.file, err = os.OpenFile(path, flags, 0o666); err != nil {
		return s, nil, err
	}
	if keepFile {
		s.written = len(rows)
	} else if _, err := s.file.Write(csvLine(hdr)); err != nil {
		return s, nil, err
	}
	slices.Sort(fromJournal)
	for _, p := range fromJournal {
		s.pending = append(s.pending, keptRow{p, known[p]})
	}
	s.kept = len(known)
	for p := range idx {
		if known[p] == nil {
			todo = append(todo, p)
		}
	}
	return s, todo, nil
}

// allPositions returns 0, 1, ..., n-1.
func allPositions(n int) []int {
	ps := make([]int, n)
	for p := range ps {
		ps[p] = p
	}
	return ps
}

// finished adds the row of grid point i to the journal: from any goroutine,
// the moment the point is done.
func (s *sweepOut) finished(i int, line []byte) error {
	return s.jw.Add(i, bytes.TrimSuffix(line, []byte("\n")))
}

// write writes the row at position pos to the file, after the kept rows
// before it; rows come in increasing position.
func (s *sweepOut) write(pos int, line []byte) error {
	for len(s.pending) > 0 && s.pending[0].pos < pos {
		if err := s.writeLine(s.pending[0].line); err != nil {
			return err
		}
		s.pending = s.pending[1:]
	}
	return s.writeLine(line)
}

func (s *sweepOut) writeLine(line []byte) error {
	if _, err := s.file.Write(line); err != nil {
		return err
	}
	s.written++
	return nil
}

// flushKept writes the kept rows after the last computed one.
func (s *sweepOut) flushKept() error {
	for _, r := range s.pending {
		if err := s.writeLine(r.line); err != nil {
			return err
		}
	}
	s.pending = nil
	return nil
}

// close closes the file; when complete, the rows are all in it, and the
// journal is removed, else it is synced and kept for --resume. The lock is
// released last.
func (s *sweepOut) close(complete bool) error {
	var err error
	if s.file != nil {
		if complete {
			err = s.file.Sync() // on disk before the journal goes
		}
		if cerr := s.file.Close(); err == nil {
			err = cerr
		}
	}
	if s.jw != nil {
		var jerr error
		if complete && err == nil {
			jerr = s.jw.Remove()
		} else {
			jerr = s.jw.Close()
		}
		if err == nil {
			err = jerr
		}
	}
	if lerr := s.lock.Release(); err == nil {
		err = lerr
	}
	return err
}
