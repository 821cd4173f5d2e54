package corner

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/stat/combin"
)

// dense returns K[m, z] computed coordinate by coordinate from the
// definition K[m, z] = prod_l C(k, m_l) t^m_l (1-t)^(k-m_l), t = c or 1-c,
// with math.Pow and exact small binomials: independent of Loader's pmf and
// of the Kronecker recursion.
func dense(d, k int, c float64) [][]float64 {
	outs := 1
	for range d {
		outs *= k + 1
	}
	K := make([][]float64, outs)
	for m := range K {
		K[m] = make([]float64, 1<<d)
		for z := range K[m] {
			p, rest := 1.0, m
			for l := d - 1; l >= 0; l-- { // axis l is digit d-1-l from the right
				ml := rest % (k + 1)
				rest /= k + 1
				t := c
				if z>>(d-1-l)&1 == 1 {
					t = 1 - c
				}
				p *= float64(combin.Binomial(k, ml)) * math.Pow(t, float64(ml)) * math.Pow(1-t, float64(k-ml))
			}
			K[m][z] = p
		}
	}
	return K
}

func TestApplyMatchesDense(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(1, 1))
	for _, tc := range []struct {
		d, k int
		c    float64
	}{{1, 1, 0.1}, {1, 4, 0.3}, {2, 1, 0.1}, {2, 3, 0.01}, {3, 2, 0.2}, {4, 1, 0.45}, {5, 2, 0.1}} {
		K := dense(tc.d, tc.k, tc.c)
		ch := Full(tc.d, tc.k, tc.c)
		if ch.Outputs() != len(K) || ch.Inputs() != 1<<tc.d {
			t.Fatalf("%+v: sizes %d x %d, want %d x %d", tc, ch.Outputs(), ch.Inputs(), len(K), 1<<tc.d)
		}
		checkDense(t, fmt.Sprintf("%+v", tc), ch, K, rnd)
	}
}

// checkDense checks ch against its dense matrix K: Apply on a random
// vector within 1e-13 relative, every log K[m, z] within 1e-13 absolute or
// relative, and every column summing to 1 within 1e-13.
func checkDense(t *testing.T, name string, ch *Channel, K [][]float64, rnd *rand.Rand) {
	t.Helper()
	const tol = 1e-13
	x := make([]float64, ch.Inputs())
	for i := range x {
		x[i] = rnd.Float64()
	}
	got := make([]float64, ch.Outputs())
	ch.Apply(got, x, nil)
	for m := range K {
		var want float64
		for z, v := range x {
			want += K[m][z] * v
		}
		if !scalar.EqualWithinAbsOrRel(got[m], want, 0, tol) {
			t.Errorf("%s: (Kx)[%d] = %v, want %v", name, m, got[m], want)
		}
	}
	col := make([]float64, ch.Outputs())
	for z := range x {
		ch.LogColumn(col, z)
		var sum float64
		for m := range K {
			sum += math.Exp(col[m])
			if want := math.Log(K[m][z]); !scalar.EqualWithinAbsOrRel(col[m], want, tol, tol) {
				t.Errorf("%s: log K[%d, %d] = %v, want %v", name, m, z, col[m], want)
			}
		}
		if math.Abs(sum-1) > tol {
			t.Errorf("%s: column %d sums to %v", name, z, sum)
		}
	}
}

func TestGroupsAreSufficient(t *testing.T) {
	t.Parallel()
	// Two coordinates that always carry the same bit are one group of size
	// 2: the count over both must have the distribution of the sum.
	full := Full(2, 3, 0.2)
	grouped := New(3, 0.2, []int{2})
	f := make([]float64, full.Outputs())
	g := make([]float64, grouped.Outputs())
	for _, zc := range [][2]int{{0b00, 0}, {0b11, 1}} {
		full.LogColumn(f, zc[0])
		grouped.LogColumn(g, zc[1])
		sum := make([]float64, len(g))
		for m := range f {
			m0, m1 := m/4, m%4
			sum[m0+m1] += math.Exp(f[m])
		}
		for j := range g {
			if !scalar.EqualWithinAbsOrRel(sum[j], math.Exp(g[j]), 1e-16, 1e-13) {
				t.Errorf("corner %b: P(count %d) = %v, want %v", zc[0], j, math.Exp(g[j]), sum[j])
			}
		}
	}
}

func TestName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		z, d int
		want string
	}{{0, 1, "0"}, {1, 1, "1"}, {0b011, 3, "011"}, {0b100, 3, "100"}} {
		if got := Name(tc.z, tc.d); got != tc.want {
			t.Errorf("Name(%b, %d) = %q, want %q", tc.z, tc.d, got, tc.want)
		}
	}
}

func TestPanics(t *testing.T) {
	t.Parallel()
	for _, f := range []func(){
		func() { New(0, 0.1, []int{1}) },
		func() { New(1, 0.5, []int{1}) },
		func() { New(1, 0.1, []int{0}) },
		func() { Full(2, 1, 0.1).Apply(make([]float64, 3), make([]float64, 4), nil) },
		func() { Full(2, 1, 0.1).LogColumn(make([]float64, 5), 0) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			f()
		}()
	}
}

// Orbits are a partition: every configuration's canonical form is an
// orbit representative, and relabeled configurations have the same
// multiset of pairwise Hamming distances and output count.
func TestOrbits(t *testing.T) {
	t.Parallel()
	for d := 1; d <= 7; d++ {
		all := Configs(d)
		if want := combin.Binomial(d+6, 6); len(all) != want {
			t.Fatalf("d=%d: %d configurations, want C(d+6,6) = %d", d, len(all), want)
		}
		reps := map[Config]bool{}
		for _, cf := range Orbits(d) {
			reps[cf] = true
		}
		for _, cf := range all {
			cn := cf.Canonical()
			if !reps[cn] {
				t.Fatalf("d=%d: canonical form %v of %v is not a representative", d, cn, cf)
			}
			if cn.Outputs(3) != cf.Outputs(3) || hammings(cn) != hammings(cf) {
				t.Fatalf("d=%d: %v and its canonical form %v differ in structure", d, cf, cn)
			}
		}
		t.Logf("d=%d: %d configurations, %d orbits", d, len(all), len(reps))
	}
}

// hammings returns the sorted pairwise Hamming distances of the points.
func hammings(cf Config) [6]int {
	var h [6]int
	i := 0
	for a := range Points {
		for b := a + 1; b < Points; b++ {
			h[i] = cf.Hamming(a, b)
			i++
		}
	}
	slices.Sort(h[:])
	return h
}
