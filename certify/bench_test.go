package certify

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkCertify times the whole certificate at points of the paper's
// grids and at large n (one core; the search is sequential). Reported:
// boxes per certificate.
func BenchmarkCertify(b *testing.B) {
	for _, p := range []struct {
		n             int
		c, alpha, eps float64
	}{
		{1, 0.1, 5, 1}, {2, 0.1, 5, 1}, {3, 0.3, 50, 2}, {5, 0.3, 5, 1}, {15, 0.3, 5, 1},
		{1000, 0.49, 5, 1}, {10000, 0.499, 5, 1}, {1000000, 0.4999, 5, 1},
	} {
		b.Run(fmt.Sprintf("n=%d/c=%v/alpha=%v/eps=%v", p.n, p.c, p.alpha, p.eps), func(b *testing.B) {
			var boxes int
			for b.Loop() {
				r, err := Certify(context.Background(), p.n, p.c, p.alpha, p.eps, nil)
				if err != nil || r.Status != Proved {
					b.Fatalf("%+v: %v %v", p, r.Status, err)
				}
				boxes = r.Boxes
			}
			b.ReportMetric(float64(boxes), "boxes")
		})
	}
}
