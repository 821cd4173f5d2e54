package solver

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/bernamp/bernamp/bounds"
	"github.com/bernamp/bernamp/corner"
	"github.com/bernamp/bernamp/internal/testref"
	"gonum.org/v1/gonum/floats/scalar"
)

func randomMasses(rnd *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	var s float64
	for i := range v {
		v[i] = rnd.ExpFloat64()
		s += v[i]
	}
	for i := range v {
		v[i] /= s
	}
	return v
}

// The reduced and the full evaluator give the same objective on random
// supports, and the gradient matches central differences.
func TestEvaluatorsAgree(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		d := 2 + trial%4
		k := 1 + trial%3
		c := []float64{0.01, 0.1, 0.3, 0.45}[trial%4]
		alpha := []float64{1.5, 5, 50}[trial%3]
		configs := corner.Configs(d)
		cf := configs[rnd.IntN(len(configs))]
		x, y := randomMasses(rnd, corner.Points), randomMasses(rnd, corner.Points)
		red := ConfigProgram(cf, k, c, alpha)
		full := NewFullProgram(cf, d, k, c, alpha)
		gx, gy := make([]float64, 4), make([]float64, 4)
		fr := red.LogFGrad(x, y, gx, gy)
		ff := full.LogF(x, y)
		if !scalar.EqualWithinAbsOrRel(fr, ff, 1e-13, 1e-12) || math.Abs(fr-red.LogF(x, y)) > 1e-13*math.Max(1, math.Abs(fr)) {
			t.Fatalf("config %v d=%d k=%d c=%v alpha=%v: reduced %.17g, full %.17g", cf, d, k, c, alpha, fr, ff)
		}
		const h = 1e-6
		for j := range x {
			for _, v := range []struct {
				m []float64
				g float64
			}{{x, gx[j]}, {y, gy[j]}} {
				old := v.m[j]
				v.m[j] = old + h
				fp := red.LogF(x, y)
				v.m[j] = old - h
				fm := red.LogF(x, y)
				v.m[j] = old
				if fd := (fp - fm) / (2 * h); !scalar.EqualWithinAbsOrRel(fd, v.g, 1e-5, 1e-5) {
					t.Fatalf("config %v: gradient %v, central difference %v", cf, v.g, fd)
				}
			}
		}
	}
}

// bruteD2 is an independent dense search over every support of two and
// three corners of {c, 1-c}^2, with outputs the 2^(2k) raw bit tuples of
// the paper's Algorithm 3 (no sufficient statistic, no symmetry) and masses
// on a grid of step 1/n.
func bruteD2(k int, c, alpha, eps float64, n int) float64 {
	E := math.Exp((alpha - 1) * eps)
	const d = 2
	outs := 1 << (d * k)
	K := make([][4]float64, outs) // K[o][z]
	for o := range outs {
		for z := range 4 {
			p := 1.0
			for s := range k {
				for l := range d {
					theta := c
					if z>>(d-1-l)&1 == 1 {
						theta = 1 - c
					}
					if o>>(s*d+l)&1 == 1 {
						p *= theta
					} else {
						p *= 1 - theta
					}
				}
			}
			K[o][z] = p
		}
	}
	div := func(x, y []float64) float64 {
		var s float64
		for i := range x {
			if x[i] > 0 {
				s += math.Pow(x[i], alpha) * math.Pow(y[i], 1-alpha)
			}
		}
		return s
	}
	best := 1.0
	var grid [][3]float64
	for i := 0; i <= n; i++ {
		for j := 0; i+j <= n; j++ {
			grid = append(grid, [3]float64{float64(i) / float64(n), float64(j) / float64(n), float64(n-i-j) / float64(n)})
		}
	}
	x, y := make([]float64, 3), make([]float64, 3)
	for omit := range 4 { // the support is the 3 corners other than omit
		var sup []int
		for z := range 4 {
			if z != omit {
				sup = append(sup, z)
			}
		}
		for _, gx := range grid {
			for _, gy := range grid {
				copy(x, gx[:])
				copy(y, gy[:])
				ok := true
				for i := range x {
					if (x[i] == 0) != (y[i] == 0) {
						ok = false // infinite divergence one way
					}
				}
				if !ok || div(x, y) > E || div(y, x) > E {
					continue
				}
				var F float64
				for o := range outs {
					var u, v float64
					for i, z := range sup {
						u += x[i] * K[o][z]
						v += y[i] * K[o][z]
					}
					F += math.Pow(u, alpha) * math.Pow(v, 1-alpha)
				}
				best = math.Max(best, F)
			}
		}
	}
	return math.Log(best) / (alpha - 1)
}

// No 2- or 3-corner support found by the dense search beats the engine's
// verified witness.
func TestBruteForceD2(t *testing.T) {
	t.Parallel()
	n := 40
	if testing.Short() {
		n = 16
	}
	for _, tc := range []struct {
		k            int
		c, alpha, ep float64
	}{{1, 0.1, 5, 0.5}, {1, 0.1, 5, 2}, {1, 0.3, 2, 1}, {2, 0.1, 5, 1}, {2, 0.2, 3, 1.3}} {
		r, _, err := Maximize(context.Background(), 2, tc.k, tc.c, tc.alpha, tc.ep, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		if brute := bruteD2(tc.k, tc.c, tc.alpha, tc.ep, n); brute > r.Lower+1e-12 {
			t.Errorf("%+v: dense search found %.15g above the engine's witness %.15g", tc, brute, r.Lower)
		}
	}
}

// The full and reduced evaluators drive the search to the same maximum,
// and the answer does not depend on the number of workers.
func TestMethodsAndWorkersAgree(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		d, k         int
		c, alpha, ep float64
	}{{2, 1, 0.1, 5, 1}, {3, 1, 0.2, 4, 1.5}, {2, 2, 0.1, 5, 2}, {4, 1, 0.3, 2, 3}} {
		red, rr, err := Maximize(context.Background(), tc.d, tc.k, tc.c, tc.alpha, tc.ep, 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		full, _, err := Maximize(context.Background(), tc.d, tc.k, tc.c, tc.alpha, tc.ep, 2, &Settings{Method: MethodFull})
		if err != nil {
			t.Fatal(err)
		}
		red2, rr2, err := Maximize(context.Background(), tc.d, tc.k, tc.c, tc.alpha, tc.ep, 2, nil)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(red.Lower-full.Lower) > 1e-9 {
			t.Errorf("%+v: reduced %.15g, full %.15g", tc, red.Lower, full.Lower)
		}
		if red.Lower != red2.Lower || *rr != *rr2 || len(red.P) != len(red2.P) {
			t.Errorf("%+v: 1 worker %.17g %+v, 2 workers %.17g %+v", tc, red.Lower, *rr, red2.Lower, *rr2)
		}
		if !rr.Complete || rr.Searched+rr.Pruned != rr.Configs {
			t.Errorf("%+v: search record %+v", tc, *rr)
		}
	}
}

// Every answer is a verified, ordered interval on random points, and the
// witness's value is recomputed independently from its masses.
func TestMaximizeOrdered(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(3, 4))
	for range 12 {
		d, k := 2+rnd.IntN(2), 1+rnd.IntN(2)
		c := 0.02 + 0.45*rnd.Float64()
		alpha := 1.2 + 10*rnd.Float64()
		eps := 4 * rnd.Float64()
		r, _, err := Maximize(context.Background(), d, k, c, alpha, eps, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		lb := bounds.Lower(d, k, c, alpha, eps)
		ub := bounds.UpperBound(d, k, c, alpha, eps).Value()
		if !(lb <= r.Lower*(1+1e-14) && r.Lower <= r.Upper && r.Upper <= ub) {
			t.Errorf("d=%d k=%d c=%v alpha=%v eps=%v: lb %v, post %v, upper %v, ub %v", d, k, c, alpha, eps, lb, r.Lower, r.Upper, ub)
		}
		if r.DivPQ > eps*(1+1e-12) || r.DivQP > eps*(1+1e-12) {
			t.Errorf("witness violates a constraint: %v, %v > %v", r.DivPQ, r.DivQP, eps)
		}
		// Recompute on the full program from the reported corners.
		ch := corner.Full(d, k, c)
		X, Y := make([]float64, ch.Inputs()), make([]float64, ch.Inputs())
		for i, name := range r.Corners {
			z := 0
			for _, b := range name {
				z = z<<1 | int(b-'0')
			}
			X[z], Y[z] = r.P[i], r.Q[i]
		}
		if v := FullLogF(ch, alpha, X, Y) / (alpha - 1); !scalar.EqualWithinAbsOrRel(v, r.Lower, 1e-14, 1e-12) && r.Lower != r.Upper {
			t.Errorf("witness value %.17g recomputes to %.17g", r.Lower, v)
		}
	}
}

func TestMaximizeCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, rec, err := Maximize(ctx, 4, 1, 0.1, 5, 2, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Complete || r.Stats.Complete || r.Lower < bounds.Lower(4, 1, 0.1, 5, 2) {
		t.Errorf("cancelled search: %+v, post %v", *rec, r.Lower)
	}
}

func TestMaximizeInput(t *testing.T) {
	t.Parallel()
	if _, _, err := Maximize(context.Background(), 2, 1, 0.1, 5, 1, 0, &Settings{Method: "dense"}); err == nil {
		t.Error("unknown method accepted")
	}
	if _, _, err := Maximize(context.Background(), 30, 1, 0.1, 5, 1, 0, &Settings{Method: MethodFull}); err == nil {
		t.Error("full method accepted at d = 30")
	}
	if _, _, err := Maximize(context.Background(), 0, 1, 0.1, 5, 1, 0, nil); err == nil {
		t.Error("d = 0 accepted")
	}
}

// Relabeling the support points maps a configuration's program to itself
// with permuted masses: the reason one configuration per orbit suffices.
func TestRelabelInvariance(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(5, 6))
	for trial := range 100 {
		d, k := 2+trial%4, 1+trial%2
		configs := corner.Configs(d)
		cf := configs[rnd.IntN(len(configs))]
		pi := [4]int{0, 1, 2, 3}
		rnd.Shuffle(4, func(i, j int) { pi[i], pi[j] = pi[j], pi[i] })
		img := cf.Relabel(pi)
		x, y := randomMasses(rnd, 4), randomMasses(rnd, 4)
		xp, yp := make([]float64, 4), make([]float64, 4)
		for i := range 4 {
			xp[i], yp[i] = x[pi[i]], y[pi[i]]
		}
		f := ConfigProgram(cf, k, 0.1, 5).LogF(x, y)
		g := ConfigProgram(img, k, 0.1, 5).LogF(xp, yp)
		if !scalar.EqualWithinAbsOrRel(f, g, 1e-13, 1e-12) {
			t.Fatalf("config %v relabeled by %v to %v: log F %.17g vs %.17g", cf, pi, img, f, g)
		}
	}
}

// The engine's witness reaches the best value of an independent search
// (testdata/ref/post_d23.csv: raw 2^(dk) outputs, 1,000+ Nelder-Mead
// restarts over every support, winners re-verified at 40 digits in mpmath;
// testdata/ref/README_d23.md), and stays below the closed-form bound.
func TestMaximizeAgainstReference(t *testing.T) {
	t.Parallel()
	rows, _ := testref.Floats(t, "../testdata/ref/post_d23.csv", 6, 10)
	for _, v := range rows {
		d, k, c, alpha, eps, want := int(v[0]), int(v[1]), v[2], v[3], v[4], v[5]
		r, _, err := Maximize(context.Background(), d, k, c, alpha, eps, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.Lower < want*(1-1e-13) || want > r.Upper {
			t.Errorf("d=%d k=%d c=%v alpha=%v eps=%v: engine [%.17g, %.17g], independent search %.17g", d, k, c, alpha, eps, r.Lower, r.Upper, want)
		}
	}
}
