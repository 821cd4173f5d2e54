package solver

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/bernamp/bernamp/corner"
)

var sinkF float64

// benchmarkMaximize times one complete search (every configuration screened
// or pruned) at a Regime II point, where the closed-form bounds are far
// apart and nothing short-cuts the search. It reports the support
// configurations searched (orbits) and the outputs (k+1)^d of the full
// program.
func benchmarkMaximize(b *testing.B, d, k, workers int) {
	const c, alpha, eps = 0.1, 5, 2
	b.ReportMetric(float64(len(corner.Orbits(d))), "configs")
	b.ReportMetric(math.Pow(float64(k+1), float64(d)), "outputs")
	b.ReportAllocs()
	for b.Loop() {
		r, rec, err := Maximize(context.Background(), d, k, c, alpha, eps, workers, nil)
		if err != nil || (rec != nil && !rec.Complete) {
			b.Fatal(err, rec)
		}
		sinkF = r.Lower
	}
}

// BenchmarkMaximize covers k = 1 for d = 1..14 and k = 2, 4, 8 for d =
// 1..4, plus k = 4 up to d = 7 (the reach: about 4 s at d = 12, k = 1 and
// d = 6, k = 4). Points with d k > 12 are skipped with -short.
func BenchmarkMaximize(b *testing.B) {
	var dks [][2]int
	for d := 1; d <= 14; d++ {
		dks = append(dks, [2]int{d, 1})
	}
	for _, k := range []int{2, 4, 8} {
		for d := 1; d <= 4; d++ {
			dks = append(dks, [2]int{d, k})
		}
	}
	dks = append(dks, [2]int{5, 4}, [2]int{6, 4}, [2]int{7, 4})
	for _, dk := range dks {
		b.Run(fmt.Sprintf("d=%d/k=%d", dk[0], dk[1]), func(b *testing.B) {
			if dk[0]*dk[1] > 12 && testing.Short() {
				b.Skip("long")
			}
			benchmarkMaximize(b, dk[0], dk[1], 0)
		})
	}
}

// BenchmarkLogFGrad times one objective-and-gradient evaluation of the
// reduced program (the search's hot loop) on the configuration of d with
// the most outputs (d spread evenly over the 7 patterns). It must not
// allocate.
func BenchmarkLogFGrad(b *testing.B) {
	const c, alpha = 0.1, 5.0
	for _, dk := range [][2]int{{2, 1}, {4, 1}, {7, 1}, {10, 1}, {14, 1}, {2, 4}, {4, 4}, {6, 4}, {4, 8}} {
		d, k := dk[0], dk[1]
		var cf corner.Config
		for i := range d {
			cf[i%corner.Patterns]++
		}
		b.Run(fmt.Sprintf("d=%d/k=%d", d, k), func(b *testing.B) {
			rnd := rand.New(rand.NewPCG(1, 1))
			x, y := randomMasses(rnd, corner.Points), randomMasses(rnd, corner.Points)
			gx, gy := make([]float64, corner.Points), make([]float64, corner.Points)
			p := ConfigProgram(cf, k, c, alpha)
			b.ReportMetric(float64(cf.Outputs(k)), "outputs")
			b.ReportAllocs()
			for b.Loop() {
				sinkF = p.LogFGrad(x, y, gx, gy)
			}
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
