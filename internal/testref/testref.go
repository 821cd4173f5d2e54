// Package testref loads the reference tables of testdata/ref (values
// computed independently of the Go code; see testdata/ref/README.md) for
// tests.
package testref

import (
	"encoding/csv"
	"os"
	"strconv"
	"testing"
)

// Floats returns the rows of the CSV file at path, header dropped, with the
// first cols columns parsed as floats; an empty field reads as 0 and is
// marked false in present. It fails the test when the file cannot be read
// or has fewer than minRows rows.
func Floats(t testing.TB, path string, cols, minRows int) (rows [][]float64, present [][]bool) {
	t.Helper()
	recs := Records(t, path)
	if len(recs) < minRows+1 {
		t.Fatalf("%s: %d rows, want at least %d", path, len(recs)-1, minRows)
	}
	for _, rec := range recs[1:] {
		v := make([]float64, cols)
		ok := make([]bool, cols)
		for i := range cols {
			if rec[i] == "" {
				continue
			}
			var err error
			if v[i], err = strconv.ParseFloat(rec[i], 64); err != nil {
				t.Fatalf("%s: %v: %v", path, rec, err)
			}
			ok[i] = true
		}
		rows, present = append(rows, v), append(present, ok)
	}
	return rows, present
}

// Records returns every record of the CSV file at path, header included.
// It fails the test when the file cannot be read or parsed.
func Records(t testing.TB, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return recs
}

// Rows returns the records of the CSV file at path after its header, and
// fails the test when there are fewer than minRows.
func Rows(t testing.TB, path string, minRows int) [][]string {
	t.Helper()
	recs := Records(t, path)
	if len(recs) < minRows+1 {
		t.Fatalf("%s: %d rows, want at least %d", path, len(recs)-1, minRows)
	}
	return recs[1:]
}

// Float parses a field of a reference table, failing the test if it is
// not a number.
func Float(t testing.TB, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
