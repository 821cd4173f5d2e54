package certify_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/bernamp/bernamp/certify"
	"github.com/bernamp/bernamp/internal/testref"
)

// TestAgreesWithCornerCertificates: at n <= 3 (k = 1, d = n, where the
// corners are exact over the box) the pieces bound agrees within tol with
// the bounds of the two certificates it replaced, the d = 1 polygon and the
// output-ratio branch and bound, as they computed them
// (testdata/ref/corner_certificates.csv, README_corner_certificates.md).
func TestAgreesWithCornerCertificates(t *testing.T) {
	const tol = 1e-9
	for _, row := range testref.Rows(t, "../testdata/ref/corner_certificates.csv", 8) {
		n, err := strconv.Atoi(row[0])
		if err != nil {
			t.Fatal(err)
		}
		c, alpha, eps, old := testref.Float(t, row[1]), testref.Float(t, row[2]), testref.Float(t, row[3]), testref.Float(t, row[5])
		if row[6] != "true" {
			t.Fatalf("%v: the recorded certificate did not close", row)
		}
		r, err := certify.Certify(context.Background(), n, c, alpha, eps, &certify.Settings{Tol: tol})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != certify.Proved || old-r.LB > tol || r.Upper-old > tol || old-r.Upper > tol {
			t.Errorf("%v: pieces %v (%v), %s %v, LB %v", row[:4], r.Upper, r.Status, row[4], old, r.LB)
		}
	}
}
