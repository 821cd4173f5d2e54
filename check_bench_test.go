package bernamp

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkCheckLargeN times the independent checker against the solver
// (the pieces certificate it checks) on one worker at n = d = 10^3, 10^4
// and 10^6 (k = 1, alpha 5, eps 1) near c = 1/2 and away from it:
// solver-s is Result.Pieces.Seconds, checker-s Result.Check.Seconds, both
// of the last iteration. Run it with -benchtime 1x (the n = 10^6 points
// take seconds).
func BenchmarkCheckLargeN(b *testing.B) {
	for _, p := range []Params{
		{D: 1000, K: 1, C: 0.49, Alpha: 5, Eps: 1}, {D: 1000, K: 1, C: 0.4999, Alpha: 5, Eps: 1}, {D: 1000, K: 1, C: 0.45, Alpha: 5, Eps: 1},
		{D: 10000, K: 1, C: 0.49, Alpha: 5, Eps: 1}, {D: 10000, K: 1, C: 0.4999, Alpha: 5, Eps: 1}, {D: 10000, K: 1, C: 0.499, Alpha: 5, Eps: 1},
		{D: 1000000, K: 1, C: 0.4999, Alpha: 5, Eps: 1}, {D: 1000000, K: 1, C: 0.49999, Alpha: 5, Eps: 1},
	} {
		b.Run(fmt.Sprintf("n=%d/c=%g", p.D, p.C), func(b *testing.B) {
			var r Result
			for b.Loop() {
				var err error
				if r, err = Post(context.Background(), p, &Settings{Workers: 1, Check: true}); err != nil {
					b.Fatal(err)
				}
			}
			if r.Pieces == nil || r.Check.Status != CheckVerified {
				b.Fatalf("no verified pieces certificate: %+v", r.Check)
			}
			b.ReportMetric(r.Pieces.Seconds, "solver-s")
			b.ReportMetric(r.Check.Seconds, "checker-s")
			b.ReportMetric(float64(r.Check.Tiles), "tiles")
		})
	}
}

// BenchmarkPostBand runs Post with its check at issue 33's diagonal points
// (alpha >= 10, eps 1e-3), where the certificate holds the diagonal band
// (certify/diagonal.go, verify/band.go), on one worker. Reported: the
// solver's and the checker's seconds, the tiles and whether Post = LB
// was proved and verified (1) or not (0).
func BenchmarkPostBand(b *testing.B) {
	for _, p := range []Params{
		{D: 1, K: 1, C: 0.495, Alpha: 1000, Eps: 1e-3}, {D: 1000, K: 1, C: 0.495, Alpha: 100, Eps: 1e-3},
		{D: 10000, K: 1, C: 0.495, Alpha: 10, Eps: 1e-3},
	} {
		b.Run(fmt.Sprintf("n=%d/alpha=%g", p.D, p.Alpha), func(b *testing.B) {
			var r Result
			for b.Loop() {
				var err error
				if r, err = Post(context.Background(), p, &Settings{Workers: 1, Check: true}); err != nil {
					b.Fatal(err)
				}
			}
			ok := 0.0
			if r.Pieces != nil && r.Pieces.Proved && r.Check.Status == CheckVerified {
				ok = 1
			}
			if r.Pieces != nil {
				b.ReportMetric(r.Pieces.Seconds, "solver-s")
				b.ReportMetric(float64(r.Pieces.Boxes), "boxes")
			}
			b.ReportMetric(r.Check.Seconds, "checker-s")
			b.ReportMetric(float64(r.Check.Tiles), "tiles")
			b.ReportMetric(ok, "verified")
		})
	}
}
