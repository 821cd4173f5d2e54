package verify

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// windowCase is a composition of one or two kinds (random masses k/2^16
// summing to 1, on the grid h = 0.01) and its exact convolution.
type windowCase struct {
	parts []part
	q     []*big.Rat
	lo    int
}

// newWindowCase draws the kinds' masses and convolves their powers
// exactly (dyadicConv).
func newWindowCase(rng *rand.Rand, steps []int) windowCase {
	var wc windowCase
	var ks [][]int64
	for c, t := range steps {
		k := dyadicMasses(rng, 20+7*c)
		pa := part{p: dyadicFloats(k), lo: -8 + 5*c, steps: t}
		wc.parts = append(wc.parts, pa)
		wc.lo += pa.lo * pa.steps
		ks = append(ks, k)
	}
	wc.q = dyadicConv(ks, steps)
	return wc
}

// dyadicMasses returns n integers k_j >= 1 summing to 2^16: the masses
// k_j / 2^16 sum to exactly 1.
func dyadicMasses(rng *rand.Rand, n int) []int64 {
	k := make([]int64, n)
	total := int64(0)
	for i := range k {
		k[i] = 1 + rng.Int64N(1<<16/int64(n))
		total += k[i]
	}
	k[rng.IntN(n)] += 1<<16 - total
	return k
}

// dyadicFloats returns k_j / 2^16 (exact).
func dyadicFloats(k []int64) []float64 {
	p := make([]float64, len(k))
	for i, v := range k {
		p[i] = float64(v) / (1 << 16)
	}
	return p
}

// dyadicConv returns the exact convolution of the kinds' T_i-fold powers
// of the masses k_ij / 2^16: integer convolutions, then one division by
// 2^(16 sum T_i).
func dyadicConv(ks [][]int64, steps []int) []*big.Rat {
	q := []*big.Int{big.NewInt(1)}
	total := 0
	for c, k := range ks {
		for range steps[c] {
			o := make([]*big.Int, len(q)+len(k)-1)
			for i := range o {
				o[i] = new(big.Int)
			}
			t := new(big.Int)
			for i, a := range q {
				for j, b := range k {
					o[i+j].Add(o[i+j], t.Mul(a, big.NewInt(b)))
				}
			}
			q = o
		}
		total += steps[c]
	}
	den := new(big.Int).Lsh(big.NewInt(1), uint(16*total))
	out := make([]*big.Rat, len(q))
	for i, v := range q {
		out[i] = new(big.Rat).SetFrac(v, den)
	}
	return out
}

// ratTail returns sum_{n >= from} q_n exactly.
func ratTail(q []*big.Rat, from int64) *big.Rat {
	s := new(big.Rat)
	for n := from; n < int64(len(q)); n++ {
		s.Add(s, q[n])
	}
	return s
}

// atLeast reports whether the float64 x is >= the exact r.
func atLeast(x float64, r *big.Rat) bool { return new(big.Rat).SetFloat64(x).Cmp(r) >= 0 }

// windowX0s returns x0 below the composition's mean (no tilt: a fold from
// below is counted in full), at it and 2 and 4 standard deviations above
// (tilted), computed from the exact convolution.
func windowX0s(q []*big.Rat, lo int, h float64) []float64 {
	mean, sq, tot := 0.0, 0.0, 0.0
	for n, v := range q {
		f, _ := v.Float64()
		l := float64(lo+n) * h
		tot += f
		mean += f * l
		sq += f * l * l
	}
	mean /= tot
	sd := math.Sqrt(sq/tot - mean*mean)
	return []float64{mean - sd, mean, mean + 2*sd, mean + 4*sd}
}

// TestWindowedDeltaReference: the composition on a window forced short
// (2 to 256 points, below the support of 200 to 800), for several x0
// with and without a tilt, against the exact convolution in rationals:
// the window's part (circular convolution, folds counted) is never below
// the exact delta of the positions in the window, the Chernoff tail never
// below the exact mass above the window, and their sum never below the
// exact delta (refDelta, good to 1e-15), however loose. The window the
// checker chooses for a budget adds at most a few budgets to the exact
// delta, and the whole support's is within 1e-9 of it.
func TestWindowedDeltaReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const h = 0.01
	ctx := context.Background()
	shortTail := 0 // cases where the tail bound was below 1e-6 and the window short
	for _, steps := range [][]int{{10}, {30}, {6, 10}, {20, 5}} {
		wc := newWindowCase(rng, steps)
		for _, x0 := range windowX0s(wc.q, wc.lo, h) {
			c := newComposition(wc.parts, h, x0)
			if int(c.m) != len(wc.q) {
				t.Fatalf("support %d, want %d", c.m, len(wc.q))
			}
			r := refDelta(wc.q, wc.lo, h, x0)
			for _, s := range []int64{0, c.s} {
				for L := 2; L <= 256; L <<= 1 {
					in, tail, err := c.delta(ctx, s, L)
					if err != nil {
						t.Fatal(err)
					}
					name := func() string { return fmt.Sprintf("T %v x0 %v s %d L %d", steps, x0, s, L) }
					end := min(s+int64(L), c.m)
					rin := refDelta(wc.q[s:end], wc.lo+int(s), h, x0)
					if in < rin*(1-1e-14) {
						t.Errorf("%s: window part %.17g below the exact in-window delta %.17g", name(), in, rin)
					}
					if !atLeast(tail, ratTail(wc.q, s+int64(L))) {
						t.Errorf("%s: tail bound %g below the exact tail", name(), tail)
					}
					if got := up(in + tail); got < r*(1-1e-14) {
						t.Errorf("%s: bound %.17g below the exact delta %.17g", name(), got, r)
					}
					if s == c.s && end < c.m && tail < 1e-6 {
						shortTail++
					}
				}
			}
			for _, budget := range []float64{1e-4 * r, 1e-9 * r} {
				got, err := composedDeltaParts(ctx, wc.parts, h, x0, budget)
				if err != nil {
					t.Fatal(err)
				}
				if got < r*(1-1e-14) || got > r*(1+1e-9)+4*budget {
					t.Errorf("T %v x0 %v budget %g (window %d of %d): bound %.17g, exact %.17g", steps, x0, budget, c.window(budget), c.full(), got, r)
				}
			}
			got, err := composedDeltaParts(ctx, wc.parts, h, x0, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got < r*(1-1e-14) || got > r*(1+1e-9)+1e-300 {
				t.Errorf("T %v x0 %v, whole support: bound %.17g, exact %.17g", steps, x0, got, r)
			}
		}
	}
	if shortTail < 10 {
		t.Errorf("only %d short windows had a tail bound below 1e-6: the tail is not exercised", shortTail)
	}
}

// TestWindowChosenShort: a step with a long light upper tail (masses
// 2^-16 on the top 45 of 60 losses) composed 40 times, delta at 4
// standard deviations above the mean, budget 1e-9 delta: the checker
// composes on a window shorter than the support and ending below its top
// (the tail bound at work: the case the window exists for), and the
// result holds against the exact one.
func TestWindowChosenShort(t *testing.T) {
	const h = 0.01
	k := make([]int64, 60)
	for j := range k {
		k[j] = 1
	}
	for j := range 15 {
		k[j] = (1<<16 - 45) / 15
	}
	k[7] += 1<<16 - 45 - 15*((1<<16-45)/15)
	parts := []part{{p: dyadicFloats(k), lo: -7, steps: 40}}
	rq := dyadicConv([][]int64{k}, []int{40})
	lo := -7 * 40
	x0 := windowX0s(rq, lo, h)[3]
	r := refDelta(rq, lo, h, x0)
	c := newComposition(parts, h, x0)
	budget := 1e-9 * r
	L := c.window(budget)
	if c.s+L >= c.m {
		t.Fatalf("window %d from %d reaches the support's end %d", L, c.s, c.m)
	}
	got, err := composedDeltaParts(context.Background(), parts, h, x0, budget)
	if err != nil {
		t.Fatal(err)
	}
	if got < r*(1-1e-14) || got > r*(1+1e-9)+4*budget {
		t.Errorf("bound %.17g, exact %.17g", got, r)
	}
	t.Logf("window %d from %d of %d, bound %.17g, exact %.17g", L, c.s, c.m, got, r)
}

// TestChernoffTail: tailFrom never below the exact mass at the indices >=
// n (rationals), for lambda from 0 to 100 and n across the support; and
// tight enough to matter: below 1e-6 for some n where the exact tail is
// positive.
func TestChernoffTail(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	const h = 0.01
	small := 0
	for _, steps := range [][]int{{1}, {6}, {15}, {4, 3}} {
		wc := newWindowCase(rng, steps)
		c := newComposition(wc.parts, h, 0)
		for n := int64(0); n <= c.m; n += 1 + c.m/23 {
			exact := ratTail(wc.q, n)
			for _, lam := range []float64{0, 0.3, 3, 10, 30, 100} {
				b := c.tailFrom(n, lam)
				if !atLeast(b, exact) {
					f, _ := exact.Float64()
					t.Errorf("T %v, n %d, lambda %v: bound %g below the exact tail %g", steps, n, lam, b, f)
				}
				if b < 1e-6 && exact.Sign() > 0 {
					small++
				}
			}
			// the grid's choice for the loss at n
			lam, _ := c.chernoffLambda(c.loss(min(n, c.m-1)).lo)
			if b := c.tailFrom(n, lam); !atLeast(b, exact) {
				t.Errorf("T %v, n %d, chosen lambda %v: bound %g below the exact tail", steps, n, lam, b)
			}
		}
	}
	if small == 0 {
		t.Error("no tail bound below 1e-6: the test does not exercise the bound")
	}
}

// TestWindowBrokenFoldCaught: a window started above x0 (s beyond the
// last loss <= x0) folds mass of positive weight to where it is counted
// with a smaller one: the bound then falls below the exact delta for some
// case, which the reference comparison of TestWindowedDeltaReference
// would report.
func TestWindowBrokenFoldCaught(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const h = 0.01
	caught, cases := 0, 0
	for _, steps := range [][]int{{10}, {30}, {6, 10}} {
		wc := newWindowCase(rng, steps)
		for _, x0 := range windowX0s(wc.q, wc.lo, h)[2:] {
			c := newComposition(wc.parts, h, x0)
			r := refDelta(wc.q, wc.lo, h, x0)
			for _, L := range []int{64, 128, 256} {
				in, tail, err := c.delta(context.Background(), c.s+int64(L)/2, L)
				if err != nil {
					t.Fatal(err)
				}
				cases++
				if up(in+tail) < r*(1-1e-14) {
					caught++
				}
			}
		}
	}
	if 2*caught < cases {
		t.Errorf("a window started above x0 was below the exact delta in %d cases of %d", caught, cases)
	}
}
