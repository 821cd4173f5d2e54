package corner

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

// denseRanges returns K[m, z] for coordinate groups with ranges, from the
// definition K[m, z] = prod_g C(k n_g, m_g) t^m_g (1-t)^(k n_g - m_g), t =
// lo[g] or hi[g] by the bit of z on group g, with math.Pow with
// exact small binomials: independent of Loader's pmf and of the Kronecker
// recursion.
func denseRanges(k int, sizes []int, lo, hi []float64) [][]float64 {
	G := len(sizes)
	outs := 1
	for _, n := range sizes {
		outs *= k*n + 1
	}
	binom := func(n, r int) float64 {
		v := 1.0
		for i := 1; i <= r; i++ {
			v = v * float64(n-r+i) / float64(i)
		}
		return v
	}
	K := make([][]float64, outs)
	for m := range K {
		K[m] = make([]float64, 1<<G)
		for z := range K[m] {
			p, rest := 1.0, m
			for g := G - 1; g >= 0; g-- { // group g is digit G-1-g from the right
				t1 := k*sizes[g] + 1
				mg := rest % t1
				rest /= t1
				th := lo[g]
				if z>>(G-1-g)&1 == 1 {
					th = hi[g]
				}
				n := k * sizes[g]
				p *= binom(n, mg) * math.Pow(th, float64(mg)) * math.Pow(1-th, float64(n-mg))
			}
			K[m][z] = p
		}
	}
	return K
}

func TestNewRangesMatchesDense(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(2, 2))
	for _, tc := range []struct {
		k      int
		sizes  []int
		lo, hi []float64
	}{
		{1, []int{1}, []float64{0.2}, []float64{0.6}},
		{4, []int{1}, []float64{0.6}, []float64{0.95}},
		{2, []int{1, 1}, []float64{0.01, 0.3}, []float64{0.5, 0.4}},
		{1, []int{2, 1, 3}, []float64{0.1, 0.7, 0.05}, []float64{0.2, 0.9, 0.95}},
		{3, []int{1, 1, 1}, []float64{0.3, 0.5, 1e-3}, []float64{0.30001, 0.5000001, 0.999}},
		{2, []int{1, 1, 1, 1, 1}, []float64{0.1, 0.2, 0.3, 0.4, 0.45}, []float64{0.9, 0.3, 0.6, 0.8, 0.46}},
	} {
		K := denseRanges(tc.k, tc.sizes, tc.lo, tc.hi)
		ch := NewRanges(tc.k, tc.sizes, tc.lo, tc.hi)
		if ch.Outputs() != len(K) || ch.Inputs() != 1<<len(tc.sizes) {
			t.Fatalf("%+v: sizes %d x %d, want %d x %d", tc, ch.Outputs(), ch.Inputs(), len(K), 1<<len(tc.sizes))
		}
		checkDense(t, fmt.Sprintf("%+v", tc), ch, K, rnd)
	}
}

// With lo = c and hi = 1-c (1-c exact), NewRanges is New.
func TestNewRangesSymmetric(t *testing.T) {
	t.Parallel()
	for _, c := range []float64{0.25, 0.125, 0.1, 1e-6} {
		c = 1 - (1 - c) // at run time: 1-c is then exact
		sizes := []int{2, 1, 3}
		lo, hi := []float64{c, c, c}, []float64{1 - c, 1 - c, 1 - c}
		a, b := New(3, c, sizes), NewRanges(3, sizes, lo, hi)
		ca, cb := make([]float64, a.Outputs()), make([]float64, b.Outputs())
		for z := range a.Inputs() {
			a.LogColumn(ca, z)
			b.LogColumn(cb, z)
			for m := range ca {
				if !scalar.EqualWithinAbsOrRel(ca[m], cb[m], 1e-13, 1e-13) {
					t.Fatalf("c=%v: log K[%d, %d]: New %v, NewRanges %v", c, m, z, ca[m], cb[m])
				}
			}
		}
	}
}

func TestNewRangesPanics(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		desc   string
		k      int
		sizes  []int
		lo, hi []float64
	}{
		{"k = 0", 0, []int{1}, []float64{0.1}, []float64{0.9}},
		{"lo = hi", 1, []int{1}, []float64{0.3}, []float64{0.3}},
		{"hi = 1", 1, []int{1}, []float64{0.3}, []float64{1}},
		{"lo = 0", 1, []int{1}, []float64{0}, []float64{0.5}},
		{"NaN", 1, []int{1}, []float64{math.NaN()}, []float64{0.5}},
		{"length", 1, []int{1, 1}, []float64{0.1}, []float64{0.5}},
		{"size 0", 1, []int{0}, []float64{0.1}, []float64{0.5}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", tc.desc)
				}
			}()
			NewRanges(tc.k, tc.sizes, tc.lo, tc.hi)
		}()
	}
}
