package certify_test

import (
	"context"
	"testing"
	"time"

	"github.com/bernamp/bernamp/bounds"
	"github.com/bernamp/bernamp/certify"
	"github.com/bernamp/bernamp/solver"
)

// TestAgreesWithCornerCertificates: at n <= 3 (k = 1, d = n, where the
// corners are exact over the box) the pieces bound and the earlier
// certificates (the d = 1 polygon, the output-ratio branch and bound) both
// land within tol of LB, so within tol of each other.
func TestAgreesWithCornerCertificates(t *testing.T) {
	const tol = 1e-9
	for _, p := range []struct {
		n             int
		c, alpha, eps float64
	}{
		{1, 0.1, 5, 0.5}, {1, 0.3, 50, 2}, {2, 0.1, 5, 1}, {2, 0.3, 5, 2}, {3, 0.2, 4, 1.5},
	} {
		r, err := certify.Certify(context.Background(), p.n, p.c, p.alpha, p.eps, nil)
		if err != nil {
			t.Fatal(err)
		}
		var old float64
		if p.n == 1 {
			res, err := solver.One(context.Background(), 1, p.c, p.alpha, p.eps, nil)
			if err != nil {
				t.Fatal(err)
			}
			old = res.Upper
		} else {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			lb := bounds.Lower(p.n, 1, p.c, p.alpha, p.eps)
			cert, err := solver.Certify(ctx, p.n, 1, p.c, p.alpha, p.eps, lb, &solver.CertSettings{Tol: tol, Workers: 1})
			cancel()
			if err != nil {
				t.Fatal(err)
			}
			if !cert.Complete {
				t.Fatalf("%+v: the output-ratio certificate did not close", p)
			}
			old = cert.Upper
		}
		if r.Status != certify.Proved || old-r.LB > tol || r.Upper-old > tol || old-r.Upper > tol {
			t.Errorf("%+v: pieces %v (%v), corner certificate %v, LB %v", p, r.Upper, r.Status, old, r.LB)
		}
	}
}
