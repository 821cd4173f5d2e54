package bounds

import (
	"fmt"
	"testing"
)

var sinkB float64

// benchmarkLower times Theorem 4 at n = d k (a log-sum-exp of n + 1 terms).
func benchmarkLower(b *testing.B, d, k int) {
	b.ReportMetric(float64(d*k), "n")
	b.ReportAllocs()
	for b.Loop() {
		sinkB += Lower(d, k, 0.1, 5, 1)
	}
}

func BenchmarkLower(b *testing.B) {
	for _, dk := range [][2]int{{1, 1}, {10, 10}, {100, 100}, {1000, 1000}} {
		b.Run(fmt.Sprintf("n=%d", dk[0]*dk[1]), func(b *testing.B) { benchmarkLower(b, dk[0], dk[1]) })
	}
}

func BenchmarkUpperBound(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sinkB += UpperBound(1000, 1000, 0.1, 5, 1).Value()
	}
}

func BenchmarkTheorem2(b *testing.B) {
	for _, d := range []int{1, 100, 10000} {
		b.Run(fmt.Sprintf("d=%d", d), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkB += Theorem2(d, 0.1, 5, 1)
			}
		})
	}
}

// BenchmarkP times the root of r_alpha(p) = eps.
func BenchmarkP(b *testing.B) {
	for _, alpha := range []float64{1.1, 5, 1000} {
		b.Run(fmt.Sprintf("alpha=%v", alpha), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkB += P(alpha, 1)
			}
		})
	}
}

func BenchmarkRenyi(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sinkB += Renyi(5, 0.1)
	}
}
