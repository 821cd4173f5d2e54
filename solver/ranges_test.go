package solver

import (
	"context"
	"errors"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/bernamp/bernamp/bounds"
	"github.com/bernamp/bernamp/corner"
	"gonum.org/v1/gonum/floats/scalar"
)

func rg(lo, hi float64) bounds.Range { return bounds.Range{Lo: lo, Hi: hi} }

// rangeRawF returns the objective's inputs written from the paper's
// Algorithm 3 with no code of this package: the raw outputs are the 2^(d k)
// bit tuples (bit s d + l is draw s of coordinate l) and K[o][z] is the
// product of theta_l or 1 - theta_l over the draws, theta_l = lo_l for bit 0
// of corner z (at position d-1-l) and hi_l for bit 1. It returns a function
// of the masses on all 2^d corners computing F = sum_o u_o^alpha v_o^(1-alpha),
// with math.Pow.
func rangeRawF(rs []bounds.Range, k int, alpha float64) func(x, y []float64) float64 {
	d := len(rs)
	outs := 1 << (d * k)
	K := make([][]float64, outs)
	for o := range outs {
		K[o] = make([]float64, 1<<d)
		for z := range K[o] {
			p := 1.0
			for s := range k {
				for l := range d {
					theta := rs[l].Lo
					if z>>(d-1-l)&1 == 1 {
						theta = rs[l].Hi
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
	return func(x, y []float64) float64 {
		var F float64
		for o := range outs {
			var u, v float64
			for z := range x {
				u += x[z] * K[o][z]
				v += y[z] * K[o][z]
			}
			F += math.Pow(u, alpha) * math.Pow(v, 1-alpha)
		}
		return F
	}
}

// rangeDiv returns sum_i x_i^alpha y_i^(1-alpha) with 0^alpha y^(1-alpha) = 0.
func rangeDiv(alpha float64, x, y []float64) float64 {
	var s float64
	for i := range x {
		if x[i] > 0 {
			s += math.Pow(x[i], alpha) * math.Pow(y[i], 1-alpha)
		}
	}
	return s
}

// rangeBrute returns the best value of an independent search over pairs of
// distributions on the 2^d corners (small d) with the raw-output objective:
// on every pair of corners a, a scan of P's mass x on a on a grid of step
// 1/n, the feasible Q masses y an interval around x whose ends are found by
// bisection (F is convex in y, so the best y is an end); for d >= 2 also n
// random pairs (x, y) on all corners, each moved to the boundary along y_t =
// (1-t) x + t y (the constraints are convex in t and hold at t = 0) by
// bisection.
func rangeBrute(rs []bounds.Range, k int, alpha, eps float64, n int, rnd *rand.Rand) float64 {
	d := len(rs)
	E := math.Exp((alpha - 1) * eps)
	F := rangeRawF(rs, k, alpha)
	feasible := func(x, y []float64) bool { return rangeDiv(alpha, x, y) <= E && rangeDiv(alpha, y, x) <= E }
	best := 1.0
	N := 1 << d
	x, y := make([]float64, N), make([]float64, N)
	// Two-corner supports: a scan of P's mass on corner a.
	for a := range N {
		for b := a + 1; b < N; b++ {
			for i := 1; i < n; i++ {
				xa := float64(i) / float64(n)
				for _, end := range []float64{0, 1} {
					in, out := xa, end
					for range 60 {
						mid := (in + out) / 2
						clear(x)
						clear(y)
						x[a], x[b], y[a], y[b] = xa, 1-xa, mid, 1-mid
						if feasible(x, y) {
							in = mid
						} else {
							out = mid
						}
					}
					clear(x)
					clear(y)
					x[a], x[b], y[a], y[b] = xa, 1-xa, in, 1-in
					best = math.Max(best, F(x, y))
				}
			}
		}
	}
	if d == 1 {
		return math.Log(best) / (alpha - 1)
	}
	yt := make([]float64, N)
	for range n {
		var sx, sy float64
		for z := range N {
			x[z], y[z] = rnd.ExpFloat64(), rnd.ExpFloat64()
			if rnd.IntN(3) == 0 { // sparse supports too
				x[z], y[z] = x[z]*1e-3, y[z]*1e-3
			}
			sx += x[z]
			sy += y[z]
		}
		for z := range N {
			x[z] /= sx
			y[z] /= sy
		}
		mix := func(t float64) {
			for z := range N {
				yt[z] = (1-t)*x[z] + t*y[z]
			}
		}
		in, out := 0.0, 1.0
		if mix(1); feasible(x, yt) {
			in = 1
		} else {
			for range 60 {
				mid := (in + out) / 2
				if mix(mid); feasible(x, yt) {
					in = mid
				} else {
					out = mid
				}
			}
		}
		mix(in)
		best = math.Max(best, F(x, yt))
	}
	return math.Log(best) / (alpha - 1)
}

// Equal ranges [c, 1-c] give the old answers: the closed forms of package
// bounds and the witness values of One (d = 1, certified) and Maximize
// (d >= 2), within 1e-9.
func TestMaximizeRangesSymmetric(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		d, k         int
		c, alpha, ep float64
	}{
		{1, 1, 0.1, 5, 0.5}, {1, 2, 0.1, 5, 1}, {1, 4, 0.3, 2, 0.3}, {1, 8, 0.01, 5, 3}, {1, 3, 0.2, 1.5, 0.05},
		{2, 1, 0.1, 5, 1}, {2, 2, 0.2, 3, 1.3}, {2, 1, 0.15, 7, 0.8}, {3, 1, 0.2, 4, 1.5}, {4, 1, 0.3, 2, 3},
	} {
		c := 1 - (1 - tc.c) // 1-c exact: the ranges are exactly [c, 1-c]
		rs := bounds.Symmetric(tc.d, c)
		r, _, err := MaximizeRanges(context.Background(), rs, tc.k, tc.alpha, tc.ep, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		var want *Result
		if tc.d == 1 {
			want, err = One(context.Background(), tc.k, c, tc.alpha, tc.ep, nil)
		} else {
			want, _, err = Maximize(context.Background(), tc.d, tc.k, c, tc.alpha, tc.ep, 0, nil)
		}
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(r.Lower-want.Lower) > 1e-9 {
			t.Errorf("%+v: ranges witness %.15g, old %.15g", tc, r.Lower, want.Lower)
		}
		if ub := bounds.UpperBound(tc.d, tc.k, c, tc.alpha, tc.ep).Value(); !scalar.EqualWithinRel(r.Upper, ub, 1e-13) {
			t.Errorf("%+v: ranges upper %.17g, old %.17g", tc, r.Upper, ub)
		}
	}
}

// No pair found by the independent brute force beats the closed-form upper
// bound or (beyond 1e-9) the engine's witness, and lb <= witness <= UB.
func TestMaximizeRangesBruteForce(t *testing.T) {
	t.Parallel()
	n := 2000
	if testing.Short() {
		n = 300
	}
	rnd := rand.New(rand.NewPCG(11, 12))
	for _, tc := range []struct {
		rs         []bounds.Range
		k          int
		alpha, eps float64
		improves   bool // the search must beat the Theorem 4 pair (RangeLower) by 1e-9 relative
	}{
		{[]bounds.Range{rg(0.2, 0.6)}, 3, 5, 1, false},
		{[]bounds.Range{rg(0.05, 0.5)}, 1, 2, 0.3, true},
		{[]bounds.Range{rg(0.6, 0.95)}, 4, 10, 2, false},
		{[]bounds.Range{rg(0.01, 0.3)}, 2, 10, 2, false},
		{[]bounds.Range{rg(0.1, 0.9), rg(0.2, 0.6)}, 1, 5, 1, false},
		{[]bounds.Range{rg(0.1, 0.9), rg(0.2, 0.6)}, 2, 5, 2, false},
		{[]bounds.Range{rg(0.05, 0.3), rg(0.05, 0.3)}, 2, 4, 1.5, false},
		{[]bounds.Range{rg(0.01, 0.5), rg(0.3, 0.4)}, 2, 2, 0.5, true},
		{[]bounds.Range{rg(0.3, 0.7), rg(0.01, 0.99)}, 2, 20, 3, false},
		{[]bounds.Range{rg(0.05, 0.5), rg(0.3, 0.4), rg(0.6, 0.99)}, 1, 2, 0.3, true},
	} {
		name := fmt.Sprintf("%v k=%d alpha=%v eps=%v", tc.rs, tc.k, tc.alpha, tc.eps)
		r, _, err := MaximizeRanges(context.Background(), tc.rs, tc.k, tc.alpha, tc.eps, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		lb, ub, err := bounds.RangeBounds(tc.rs, tc.k, tc.alpha, tc.eps)
		if err != nil {
			t.Fatal(err)
		}
		if !(lb <= r.Lower && r.Lower <= r.Upper && r.Upper == ub) {
			t.Errorf("%s: lb %.15g, witness %.15g, upper %.15g, ub %.15g", name, lb, r.Lower, r.Upper, ub)
		}
		if tc.improves && !(r.Lower > lb*(1+1e-9)) {
			t.Errorf("%s: witness %.15g does not beat lb %.15g", name, r.Lower, lb)
		}
		brute := rangeBrute(tc.rs, tc.k, tc.alpha, tc.eps, n, rnd)
		if brute > ub*(1+1e-12) {
			t.Errorf("%s: brute force %.15g beats the upper bound %.15g", name, brute, ub)
		}
		if brute > r.Lower+1e-9 {
			t.Errorf("%s: brute force %.15g beats the witness %.15g", name, brute, r.Lower)
		}
	}
}

// The reported witness is feasible and its value recomputes, from the
// reported corners and masses, with the raw-output objective.
func TestMaximizeRangesWitness(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(13, 14))
	for trial := range 16 {
		d := 1 + trial%3
		k := 1 + trial%2
		rs := make([]bounds.Range, d)
		for l := range rs {
			a, b := 0.01+0.98*rnd.Float64(), 0.01+0.98*rnd.Float64()
			if a > b {
				a, b = b, a
			}
			rs[l] = rg(a, b+1e-3)
		}
		alpha := 1.2 + 10*rnd.Float64()
		eps := 3 * rnd.Float64()
		name := fmt.Sprintf("%v k=%d alpha=%v eps=%v", rs, k, alpha, eps)
		r, _, err := MaximizeRanges(context.Background(), rs, k, alpha, eps, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		E := math.Exp((alpha - 1) * eps)
		if rangeDiv(alpha, r.P, r.Q) > E*(1+1e-11) || rangeDiv(alpha, r.Q, r.P) > E*(1+1e-11) {
			t.Errorf("%s: witness infeasible: %v, %v > %v", name, rangeDiv(alpha, r.P, r.Q), rangeDiv(alpha, r.Q, r.P), E)
		}
		X, Y := make([]float64, 1<<d), make([]float64, 1<<d)
		for i, s := range r.Corners {
			z := 0
			for _, ch := range s {
				z = z<<1 | int(ch-'0')
			}
			X[z] += r.P[i]
			Y[z] += r.Q[i]
		}
		v := math.Log(rangeRawF(rs, k, alpha)(X, Y)) / (alpha - 1)
		if !scalar.EqualWithinAbsOrRel(v, r.Lower, 1e-13, 1e-11) && r.Lower != r.Upper {
			t.Errorf("%s: witness value %.17g recomputes to %.17g", name, r.Lower, v)
		}
		lb, ub, _ := bounds.RangeBounds(rs, k, alpha, eps)
		if !(lb <= r.Lower && r.Lower <= r.Upper && r.Upper <= ub) {
			t.Errorf("%s: lb %v, witness %v, upper %v, ub %v", name, lb, r.Lower, r.Upper, ub)
		}
	}
}

// The reduced program of a support agrees with the full channel.
func TestRangeProgramAgrees(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(15, 16))
	for trial := range 60 {
		d, k := 1+trial%4, 1+trial%3
		ranges := make([]bounds.Range, d)
		for l := range ranges {
			ranges[l] = []bounds.Range{rg(0.1, 0.9), rg(0.2, 0.6), rg(0.01, 0.3)}[rnd.IntN(3)]
		}
		rs := newRangeSearch(rangePoint(t, ranges, k))
		sup := rs.supports[rnd.IntN(len(rs.supports))]
		x, y := randomMasses(rnd, corner.Points), randomMasses(rnd, corner.Points)
		X, Y := make([]float64, 1<<d), make([]float64, 1<<d)
		for j, z := range sup {
			X[z] += x[j]
			Y[z] += y[j]
		}
		got := rs.program(sup).LogF(x, y)
		want := math.Log(rangeRawF(ranges, k, 5)(X, Y))
		if !scalar.EqualWithinAbsOrRel(got, want, 1e-13, 1e-12) {
			t.Fatalf("%v k=%d support %v: reduced %.17g, raw %.17g", ranges, k, sup, got, want)
		}
	}
}

// The supports cover every 4-subset of corners exactly once up to the
// permutations of coordinates with equal ranges (computed here by
// brute force over all permutations of the coordinates).
func TestRangeSupports(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		ranges []bounds.Range
		want   int // -1: not checked
	}{
		{[]bounds.Range{rg(0.1, 0.9)}, 1},
		{[]bounds.Range{rg(0.1, 0.9), rg(0.2, 0.6)}, 1},
		{[]bounds.Range{rg(0.1, 0.9), rg(0.2, 0.6), rg(0.3, 0.4)}, 70},
		{[]bounds.Range{rg(0.1, 0.9), rg(0.2, 0.6), rg(0.3, 0.4), rg(0.3, 0.5)}, 1820},
		{[]bounds.Range{rg(0.1, 0.9), rg(0.1, 0.9), rg(0.1, 0.9)}, -1},
		{[]bounds.Range{rg(0.1, 0.9), rg(0.2, 0.6), rg(0.1, 0.9), rg(0.2, 0.6)}, -1},
	} {
		d := len(tc.ranges)
		rs := newRangeSearch(rangePoint(t, tc.ranges, 1))
		if tc.want >= 0 && len(rs.supports) != tc.want {
			t.Errorf("%v: %d supports, want %d", tc.ranges, len(rs.supports), tc.want)
		}
		if d == 1 {
			continue
		}
		// Every permutation of 0..d-1 that keeps ranges, by brute force.
		var perms [][]int
		idx := make([]int, d)
		for i := range idx {
			idx[i] = i
		}
		var rec func(int)
		rec = func(i int) {
			if i == d {
				ok := true
				for l, m := range idx {
					ok = ok && tc.ranges[l] == tc.ranges[m]
				}
				if ok {
					perms = append(perms, slices.Clone(idx))
				}
				return
			}
			for j := i; j < d; j++ {
				idx[i], idx[j] = idx[j], idx[i]
				rec(i + 1)
				idx[i], idx[j] = idx[j], idx[i]
			}
		}
		rec(0)
		mapCorner := func(z int, pi []int) int {
			out := 0
			for l := range d {
				out |= (z >> (d - 1 - l) & 1) << (d - 1 - pi[l])
			}
			return out
		}
		listed := map[[4]int]bool{}
		for _, s := range rs.supports {
			listed[s] = true
		}
		N := 1 << d
		for a := range N {
			for b := a + 1; b < N; b++ {
				for c := b + 1; c < N; c++ {
					for e := c + 1; e < N; e++ {
						hits := map[[4]int]bool{}
						for _, pi := range perms {
							img := [4]int{mapCorner(a, pi), mapCorner(b, pi), mapCorner(c, pi), mapCorner(e, pi)}
							slices.Sort(img[:])
							if listed[img] {
								hits[img] = true
							}
						}
						if len(hits) != 1 {
							t.Fatalf("%v: subset %v matches %d listed supports", tc.ranges, [4]int{a, b, c, e}, len(hits))
						}
					}
				}
			}
		}
	}
}

func TestMaximizeRangesWorkers(t *testing.T) {
	t.Parallel()
	rs := []bounds.Range{rg(0.1, 0.9), rg(0.2, 0.6), rg(0.05, 0.3)}
	a, ra, err := MaximizeRanges(context.Background(), rs, 1, 5, 1, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, rb, err := MaximizeRanges(context.Background(), rs, 1, 5, 1, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.Lower != b.Lower || *ra != *rb || !slices.Equal(a.P, b.P) || !ra.Complete {
		t.Errorf("1 worker %.17g %+v, 2 workers %.17g %+v", a.Lower, *ra, b.Lower, *rb)
	}
}

func TestMaximizeRangesCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rs := []bounds.Range{rg(0.1, 0.9), rg(0.2, 0.6), rg(0.05, 0.3)}
	r, rec, err := MaximizeRanges(ctx, rs, 1, 5, 2, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	lb, ub, _ := bounds.RangeBounds(rs, 1, 5, 2)
	if rec.Complete || r.Stats.Complete || r.Lower < lb || r.Upper != ub || r.Status == Certified {
		t.Errorf("cancelled search: %+v, [%v, %v], status %v", *rec, r.Lower, r.Upper, r.Status)
	}
}

func TestMaximizeRangesInput(t *testing.T) {
	t.Parallel()
	good := []bounds.Range{rg(0.1, 0.9)}
	distinct := func(d int) []bounds.Range {
		rs := make([]bounds.Range, d)
		for l := range rs {
			rs[l] = rg(0.1+0.01*float64(l), 0.9)
		}
		return rs
	}
	for _, tc := range []struct {
		desc       string
		ranges     []bounds.Range
		k          int
		alpha, eps float64
		s          *Settings
	}{
		{"no ranges", nil, 1, 5, 1, nil},
		{"lo = hi", []bounds.Range{rg(0.3, 0.3)}, 1, 5, 1, nil},
		{"lo > hi", []bounds.Range{rg(0.9, 0.1)}, 1, 5, 1, nil},
		{"hi = 1", []bounds.Range{rg(0.5, 1)}, 1, 5, 1, nil},
		{"NaN", []bounds.Range{rg(math.NaN(), 0.5)}, 1, 5, 1, nil},
		{"k = 0", good, 0, 5, 1, nil},
		{"alpha = 1", good, 1, 1, 1, nil},
		{"eps < 0", good, 1, 5, -1, nil},
		{"tol < 0", good, 1, 5, 1, &Settings{Tol: -1}},
		{"d = 6", distinct(6), 1, 5, 1, nil},
		{"d = 5 distinct", distinct(5), 1, 5, 1, nil},
		{"d = 4, k = 40", distinct(4), 40, 5, 1, nil},
		{"d = 2, k = 300", distinct(2), 300, 5, 1, nil}, // one support, over MaxRangeWork
	} {
		if _, _, err := MaximizeRanges(context.Background(), tc.ranges, tc.k, tc.alpha, tc.eps, 0, tc.s); !errors.Is(err, ErrInput) {
			t.Errorf("%s: error %v, want ErrInput", tc.desc, err)
		}
	}
}

func ExampleMaximizeRanges() {
	// theta_1 in [0.1, 0.9], theta_2 in [0.2, 0.6]; one sample of each coin;
	// an (alpha = 5, eps = 1)-RDP mechanism.
	ranges := []bounds.Range{{Lo: 0.1, Hi: 0.9}, {Lo: 0.2, Hi: 0.6}}
	r, _, err := MaximizeRanges(context.Background(), ranges, 1, 5, 1, 0, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%0.4g <= Post <= %0.4g (%v)\n", r.Lower, r.Upper, r.Status)
	fmt.Println(r.Corners)
	// Output:
	// 0.8024 <= Post <= 1 (witness)
	// [11 00]
}

// rangePoint returns the point (ranges, k, alpha 5, eps 1).
func rangePoint(t *testing.T, ranges []bounds.Range, k int) bounds.RangePoint {
	t.Helper()
	rp, err := bounds.NewRangePoint(ranges, k, 5, 1)
	if err != nil {
		t.Fatal(err)
	}
	return rp
}
