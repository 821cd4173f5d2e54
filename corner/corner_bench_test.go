package corner

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

var sinkC float64

// BenchmarkApply times K x for the full channel of (d, k): the Kronecker
// apply (about (k+1)^d 2 d multiply-adds) against the explicit dense
// (k+1)^d x 2^d product, built from LogColumn. Neither allocates.
func BenchmarkApply(b *testing.B) {
	for _, dk := range [][2]int{{2, 1}, {4, 1}, {6, 1}, {8, 1}, {10, 1}, {2, 4}, {4, 4}, {6, 4}, {2, 8}, {4, 8}} {
		d, k := dk[0], dk[1]
		ch := Full(d, k, 0.1)
		n, outs := ch.Inputs(), ch.Outputs()
		rnd := rand.New(rand.NewPCG(1, 1))
		x := make([]float64, n)
		for i := range x {
			x[i] = rnd.Float64()
		}
		u := make([]float64, outs)
		b.Run(fmt.Sprintf("d=%d/k=%d/kronecker", d, k), func(b *testing.B) {
			work := make([]float64, 2*max(n, outs))
			b.ReportMetric(float64(outs), "outputs")
			b.ReportMetric(float64(n), "corners")
			b.ReportAllocs()
			for b.Loop() {
				ch.Apply(u, x, work)
			}
			sinkC += u[0]
		})
		b.Run(fmt.Sprintf("d=%d/k=%d/dense", d, k), func(b *testing.B) {
			K := make([]float64, outs*n) // row-major
			col := make([]float64, outs)
			for z := range n {
				ch.LogColumn(col, z)
				for m, l := range col {
					K[m*n+z] = math.Exp(l)
				}
			}
			b.ReportMetric(float64(outs), "outputs")
			b.ReportMetric(float64(n), "corners")
			b.ReportAllocs()
			for b.Loop() {
				for m := range outs {
					var s float64
					for z, kz := range K[m*n : m*n+n] {
						s += kz * x[z]
					}
					u[m] = s
				}
			}
			sinkC += u[0]
		})
	}
}
