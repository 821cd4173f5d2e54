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
