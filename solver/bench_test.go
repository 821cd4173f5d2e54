package solver

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/bernamp/bernamp/corner"
)

var sinkF float64

// benchmarkMaximize times one complete search (every configuration screened
// or pruned) at a Regime II point, where the closed-form bounds are far
// apart and nothing short-cuts the search.
func benchmarkMaximize(b *testing.B, d, k, workers int) {
	const c, alpha, eps = 0.1, 5, 2
	b.ReportMetric(float64(len(corner.Configs(d))), "configs")
	b.ReportAllocs()
	for b.Loop() {
		r, rec, err := Maximize(context.Background(), d, k, c, alpha, eps, workers, nil)
		if err != nil || (rec != nil && !rec.Complete) {
			b.Fatal(err, rec)
		}
		sinkF = r.Lower
	}
}

func BenchmarkMaximize(b *testing.B) {
	for _, dk := range [][2]int{{1, 1}, {1, 4}, {2, 1}, {3, 1}, {4, 1}, {6, 1}, {8, 1}, {10, 1}, {12, 1}, {13, 1}, {14, 1}, {2, 2}, {2, 4}, {3, 4}, {4, 4}, {5, 4}, {6, 4}, {7, 4}} {
		b.Run(fmt.Sprintf("d=%d/k=%d", dk[0], dk[1]), func(b *testing.B) {
			if dk[0]*dk[1] > 12 && testing.Short() {
				b.Skip("long")
			}
			benchmarkMaximize(b, dk[0], dk[1], 0)
		})
	}
}

// BenchmarkLogF times one objective evaluation of the largest d = 6, k = 4
// configuration by each evaluator, and one with its gradient.
func BenchmarkLogF(b *testing.B) {
	cf := corner.Config{1, 1, 1, 1, 1, 1, 0}
	const d, k, c, alpha = 6, 4, 0.1, 5.0
	rnd := rand.New(rand.NewPCG(1, 1))
	x, y := randomMasses(rnd, corner.Points), randomMasses(rnd, corner.Points)
	gx, gy := make([]float64, 4), make([]float64, 4)
	red := ConfigProgram(cf, k, c, alpha)
	full := NewFullProgram(cf, d, k, c, alpha)
	b.Run("reduced", func(b *testing.B) {
		b.ReportMetric(float64(cf.Outputs(k)), "outputs")
		b.ReportAllocs()
		for b.Loop() {
			sinkF = red.LogF(x, y)
		}
	})
	b.Run("reduced+grad", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkF = red.LogFGrad(x, y, gx, gy)
		}
	})
	b.Run("full", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkF = full.LogF(x, y)
		}
	})
}

func BenchmarkOne(b *testing.B) {
	for _, k := range []int{1, 2, 4, 16} {
		b.Run(fmt.Sprintf("k=%d", k), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r, err := One(context.Background(), k, 0.1, 5, 1, nil)
				if err != nil || r.Status != Certified {
					b.Fatal(err, r.Status)
				}
				sinkF = r.Upper
			}
		})
	}
}
