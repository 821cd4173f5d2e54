package hockey_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/bernamp/bernamp/hockey"
	"github.com/bernamp/bernamp/internal/testref"
	"github.com/bernamp/bernamp/mixing"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// lpTol is the agreement expected between gonum's simplex (reduced-cost
// tolerance simplexTol, data of size 1) and the exact enumeration.
const (
	lpTol      = 1e-9
	simplexTol = 1e-10
)

func delta(t *testing.T, p hockey.Params) *hockey.Result {
	t.Helper()
	r, err := hockey.Delta(context.Background(), p)
	if err != nil {
		t.Fatalf("%+v: %v", p, err)
	}
	if !(0 <= r.Lower && r.Lower <= r.Value && r.Value <= r.Upper && r.Upper <= 1) {
		t.Fatalf("%+v: enclosure broken: lower %v value %v upper %v", p, r.Lower, r.Value, r.Upper)
	}
	// The corner program's enclosure is rounding only; the pieces bound's
	// distance from the witness is mathematical (TestPiecesUpper).
	if r.Method != hockey.MethodPieces && r.Upper-r.Lower > 1e-12 {
		t.Errorf("%+v: enclosure too wide: [%v, %v]", p, r.Lower, r.Upper)
	}
	return r
}

// binom returns C(k, m) t^m (1-t)^(k-m) by lgamma, independently of
// internal/logspace.
func binom(k, m int, t float64) float64 {
	lk, _ := math.Lgamma(float64(k + 1))
	lm, _ := math.Lgamma(float64(m + 1))
	lr, _ := math.Lgamma(float64(k - m + 1))
	return math.Exp(lk - lm - lr + float64(m)*math.Log(t) + float64(k-m)*math.Log1p(-t))
}

// columns returns the output distributions of the points theta (each a
// vector of d biases) under B_k, over the count vectors m in {0..k}^d
// (m_0 outermost).
func columns(k int, thetas [][]float64) [][]float64 {
	d := len(thetas[0])
	n := 1
	for range d {
		n *= k + 1
	}
	cols := make([][]float64, len(thetas))
	for i, th := range thetas {
		cols[i] = make([]float64, n)
		for b := range n {
			p, rest := 1.0, b
			for l := d - 1; l >= 0; l-- {
				p *= binom(k, rest%(k+1), th[l])
				rest /= k + 1
			}
			cols[i][b] = p
		}
	}
	return cols
}

// cornerThetas returns the 2^d corners of [c, 1-c]^d, corner z with bit
// d-1-l giving coordinate l.
func cornerThetas(d int, c float64) [][]float64 {
	out := make([][]float64, 1<<d)
	for z := range out {
		out[z] = make([]float64, d)
		for l := range d {
			out[z][l] = c
			if z>>(d-1-l)&1 == 1 {
				out[z][l] = 1 - c
			}
		}
	}
	return out
}

// lpSet solves, straight from the definition and without the canonical
// pair, max_{x,y} sum_{b in S} (K x - g K y)_b over distributions x, y on the
// inputs with H_e(x||y) <= delta and H_e(y||x) <= delta, written with
// slacks s_z >= x_z - e y_z, t_z >= y_z - e x_z, sum s, sum t <= delta, as
// the standard-form LP of lp.Simplex started from the feasible basis x = y
// = point mass on input 0.
func lpSet(cols [][]float64, inS []bool, e, dl, g float64) (float64, error) {
	n := len(cols)
	nv, nr := 6*n+2, 2*n+4
	X, Y, S, T, P, Q, R := 0, n, 2*n, 3*n, 4*n, 5*n, 6*n
	A := mat.NewDense(nr, nv, nil)
	b := make([]float64, nr)
	c := make([]float64, nv)
	for z := range n {
		var a float64
		for m, in := range inS {
			if in {
				a += cols[z][m]
			}
		}
		c[X+z], c[Y+z] = -a, g*a // minimize the negated objective
		A.Set(z, X+z, 1)
		A.Set(z, Y+z, -e)
		A.Set(z, S+z, -1)
		A.Set(z, P+z, 1)
		A.Set(n+z, Y+z, 1)
		A.Set(n+z, X+z, -e)
		A.Set(n+z, T+z, -1)
		A.Set(n+z, Q+z, 1)
		A.Set(2*n, S+z, 1)
		A.Set(2*n+1, T+z, 1)
		A.Set(2*n+2, X+z, 1)
		A.Set(2*n+3, Y+z, 1)
	}
	A.Set(2*n, R, 1)
	A.Set(2*n+1, R+1, 1)
	b[2*n], b[2*n+1], b[2*n+2], b[2*n+3] = dl, dl, 1, 1
	basic := []int{X, Y, R, R + 1}
	for z := range n {
		basic = append(basic, P+z, Q+z)
	}
	opt, _, err := lp.Simplex(c, A, b, simplexTol, basic)
	return -opt, err
}

// lpDelta returns the maximum of lpSet over every nonempty proper subset S
// of the outputs (the empty set gives 0).
func lpDelta(t *testing.T, cols [][]float64, e, dl, g float64) float64 {
	t.Helper()
	N := len(cols[0])
	best := 0.0
	inS := make([]bool, N)
	for mask := 1; mask < 1<<N-1; mask++ {
		for m := range inS {
			inS[m] = mask>>m&1 == 1
		}
		v, err := lpSet(cols, inS, e, dl, g)
		if err != nil {
			t.Fatalf("lp.Simplex, set %b: %v", mask, err)
		}
		best = math.Max(best, v)
	}
	return best
}

var lpCases = []struct{ eps, delta, epsOut float64 }{
	{1, 0.05, 0.3}, {1, 0, 0.2}, {2, 1e-4, 0}, {0.5, 0.2, 0.5}, {3, 0.1, 1},
}

// TestLP checks the canonical-pair enumeration against the LP over output
// sets on the corners (independent of the canonical pair and of package
// corner).
func TestLP(t *testing.T) {
	t.Parallel()
	for _, dk := range [][2]int{{1, 1}, {1, 2}, {1, 3}, {2, 1}, {2, 2}} {
		for _, c := range []float64{0.1, 0.3} {
			for _, tc := range lpCases {
				p := hockey.Params{D: dk[0], K: dk[1], C: c, Eps: tc.eps, Delta: tc.delta, EpsOut: tc.epsOut}
				r := delta(t, p)
				want := lpDelta(t, columns(p.K, cornerThetas(p.D, c)), math.Exp(tc.eps), tc.delta, math.Exp(tc.epsOut))
				if math.Abs(r.Value-want) > lpTol {
					t.Errorf("%+v: Delta %v, LP over sets %v", p, r.Value, want)
				}
			}
		}
	}
}

// tradeoff returns max (alpha - g beta) over the (eps, delta) testing
// region {alpha <= e beta + delta, 1 - beta <= e (1 - alpha) + delta, and
// mirrors}: the maximum of a linear function at the region's vertices
// (0,0), (delta,0), ((e+delta)/(1+e), (1-delta)/(1+e)), (1,1-delta), (1,1)
// (the others have alpha < beta).
func tradeoff(e, dl, g float64) float64 {
	return max(0, dl, (e+dl-g*(1-dl))/(1+e), 1-g*(1-dl), 1-g)
}

// TestTestingRegion checks Delta against a second exact formula derived
// from the testing region instead of the canonical pair: for an output set
// S with a_z = K(S | z), the LP over (x, y) is
//
//	(1 - g) min_z a_z + (max_z a_z - min_z a_z) tradeoff(e, delta, g),
//
// since (a'x, a'y) with a' = (a - min a)/(max a - min a) in [0, 1] is the
// (power, size) of a randomized test, which lies in the region, and every
// point of the region is reached on the two corners argmax and argmin.
func TestTestingRegion(t *testing.T) {
	t.Parallel()
	for _, dk := range [][2]int{{1, 6}, {2, 2}, {2, 3}, {3, 1}} {
		for _, c := range []float64{0.05, 0.2} {
			for _, tc := range lpCases {
				p := hockey.Params{D: dk[0], K: dk[1], C: c, Eps: tc.eps, Delta: tc.delta, EpsOut: tc.epsOut}
				r := delta(t, p)
				cols := columns(p.K, cornerThetas(p.D, c))
				g := math.Exp(tc.epsOut)
				T := tradeoff(math.Exp(tc.eps), tc.delta, g)
				N := len(cols[0])
				best := 0.0
				for mask := 1; mask < 1<<N-1; mask++ {
					lo, hi := math.Inf(1), math.Inf(-1)
					for _, col := range cols {
						var a float64
						for m := range N {
							if mask>>m&1 == 1 {
								a += col[m]
							}
						}
						lo, hi = math.Min(lo, a), math.Max(hi, a)
					}
					best = math.Max(best, (1-g)*lo+(hi-lo)*T)
				}
				if math.Abs(r.Value-best) > 1e-13 {
					t.Errorf("%+v: Delta %v, testing-region formula %v", p, r.Value, best)
				}
			}
		}
	}
}

// TestInteriorGrid is the brute force over interior points for the corner
// reduction, which is proved only for k = 1: on a grid of 21 biases in [c,
// 1-c] (d = 1), (a) the LP over output sets with the 21 points as inputs,
// and (b) every map of the four canonical points to the grid, must not
// exceed the corner program's upper bound.
func TestInteriorGrid(t *testing.T) {
	t.Parallel()
	const n = 21
	for _, k := range []int{1, 2, 3, 4, 8} {
		for _, c := range []float64{0.1, 0.3} {
			grid := make([][]float64, n)
			for i := range grid {
				grid[i] = []float64{c + (1-2*c)*float64(i)/(n-1)}
			}
			cols := columns(k, grid)
			for _, tc := range lpCases {
				p := hockey.Params{D: 1, K: k, C: c, Eps: tc.eps, Delta: tc.delta, EpsOut: tc.epsOut}
				r := delta(t, p)
				g := math.Exp(tc.epsOut)
				if k <= 3 {
					if v := lpDelta(t, cols, math.Exp(tc.eps), tc.delta, g); v > r.Upper+lpTol {
						t.Errorf("%+v: LP over the grid %v > corner upper bound %v", p, v, r.Upper)
					}
				}
				if v := canonicalMaps(cols, tc.eps, tc.delta, g); v > r.Upper+1e-13 {
					t.Errorf("%+v: canonical maps to the grid %v > corner upper bound %v", p, v, r.Upper)
				}
			}
		}
	}
}

// TestInteriorGrid2 is TestInteriorGrid(b) at d = 2, k = 2 on the 5 x 5 grid.
func TestInteriorGrid2(t *testing.T) {
	if testing.Short() {
		t.Skip("390625 maps per point")
	}
	t.Parallel()
	const n = 5
	c := 0.1
	var grid [][]float64
	for i := range n {
		for j := range n {
			grid = append(grid, []float64{c + (1-2*c)*float64(i)/(n-1), c + (1-2*c)*float64(j)/(n-1)})
		}
	}
	cols := columns(2, grid)
	for _, tc := range lpCases[:3] {
		p := hockey.Params{D: 2, K: 2, C: c, Eps: tc.eps, Delta: tc.delta, EpsOut: tc.epsOut}
		r := delta(t, p)
		if v := canonicalMaps(cols, tc.eps, tc.delta, math.Exp(tc.epsOut)); v > r.Upper+1e-13 {
			t.Errorf("%+v: canonical maps to the grid %v > corner upper bound %v", p, v, r.Upper)
		}
	}
}

// canonicalMaps returns the maximum over maps of the four canonical points
// to the inputs cols of H_g(sum_i P~_i cols[f(i)] || sum_i Q~_i cols[f(i)]).
func canonicalMaps(cols [][]float64, eps, dl, g float64) float64 {
	pt, qt := hockey.Canonical(eps, dl)
	n, N := len(cols), len(cols[0])
	u, v := make([]float64, N), make([]float64, N)
	best := 0.0
	for f := range n * n * n * n {
		clear(u)
		clear(v)
		for i, rest := 0, f; i < 4; i, rest = i+1, rest/n {
			col := cols[rest%n]
			for b := range N {
				u[b] += pt[i] * col[b]
				v[b] += qt[i] * col[b]
			}
		}
		best = math.Max(best, hockey.H(u, v, g))
	}
	return best
}

// TestClosedForms checks the cases with a closed form: delta = 0 (pure DP,
// threshold log((e^eps rho + 1)/(rho + e^eps)), rho = ((1-c)/c)^(d k)),
// eps' = 0 (total variation: Dobrushin's TV(Bin(dk, c), Bin(dk, 1-c)) times
// the canonical pair's (e - 1 + 2 delta)/(e + 1)), eps' = eps
// (post-processing: delta' <= delta) and the comparators of Balle et al.
func TestClosedForms(t *testing.T) {
	t.Parallel()
	for _, dk := range [][2]int{{1, 1}, {1, 4}, {2, 1}, {2, 3}, {3, 2}} {
		for _, c := range []float64{0.02, 0.1, 0.35} {
			for _, eps := range []float64{0, 0.3, 1, 4} {
				d, k := dk[0], dk[1]
				// delta = 0.
				L := float64(d*k) * math.Log((1-c)/c)
				thr := math.Log((math.Exp(eps+L) + 1) / (math.Exp(L) + math.Exp(eps)))
				above := delta(t, hockey.Params{D: d, K: k, C: c, Eps: eps, EpsOut: thr*(1+1e-9) + 1e-12})
				if above.Upper != 0 {
					t.Errorf("d=%d k=%d c=%v eps=%v delta=0: upper %v above the pure-DP level %v", d, k, c, eps, above.Upper, thr)
				}
				if thr > 1e-6 {
					below := delta(t, hockey.Params{D: d, K: k, C: c, Eps: eps, EpsOut: thr * (1 - 1e-6)})
					if !(below.Lower > 0) {
						t.Errorf("d=%d k=%d c=%v eps=%v delta=0: lower %v at eps' below the pure-DP level %v", d, k, c, eps, below.Lower, thr)
					}
				}
				b, err := mixing.New(mixing.Kernel{D: d, K: k, C: c})
				if err != nil {
					t.Fatal(err)
				}
				tv := 0.0
				for j := 0; j <= d*k; j++ {
					tv += math.Abs(binom(d*k, j, c)-binom(d*k, j, 1-c)) / 2
				}
				for _, dl := range []float64{0, 1e-6, 0.05, 0.5} {
					e := math.Exp(eps)
					r0 := delta(t, hockey.Params{D: d, K: k, C: c, Eps: eps, Delta: dl, EpsOut: 0})
					if want := tv * (e - 1 + 2*dl) / (e + 1); math.Abs(r0.Value-want) > 1e-13 {
						t.Errorf("d=%d k=%d c=%v eps=%v delta=%v eps'=0: %v, want TV %v", d, k, c, eps, dl, r0.Value, want)
					}
					for _, epsOut := range []float64{0, eps / 2, eps, 2 * eps} {
						p := hockey.Params{D: d, K: k, C: c, Eps: eps, Delta: dl, EpsOut: epsOut}
						r := delta(t, p)
						if epsOut == eps && r.Lower > dl {
							t.Errorf("%+v: verified lower bound %v above delta (post-processing)", p, r.Lower)
						}
						for _, it := range mixing.Items {
							eo, do := b.Theorem1(it, eps, dl)
							if eo > epsOut {
								continue
							}
							if r.Lower > do {
								t.Errorf("%+v: %v gives %v below the verified lower bound %v", p, it, do, r.Lower)
							}
						}
					}
				}
			}
		}
	}
}

// TestReference compares with the 60-digit mpmath values of
// testdata/hockey/delta_ref.csv (vertex enumeration of the d = 1 polygon).
func TestReference(t *testing.T) {
	t.Parallel()
	rows, _ := testref.Floats(t, "../testdata/hockey/delta_ref.csv", 7, 40)
	for _, row := range rows {
		p := hockey.Params{D: int(row[0]), K: int(row[1]), C: row[2], Eps: row[3], Delta: row[4], EpsOut: row[5]}
		want := row[6]
		r := delta(t, p)
		if !(r.Lower <= want && want <= r.Upper) {
			t.Errorf("%+v: reference %v outside [%v, %v]", p, want, r.Lower, r.Upper)
		}
	}
}

// TestGaussian compares Gaussian with 60-digit mpmath values: an upper
// bound, and tight to 1e-9 relative (the documented loss to cancellation
// is about x^2 ulps of each term, x = eps sigma, times their ratio to
// delta: 1.5e-11 at sigma = eps = 4).
func TestGaussian(t *testing.T) {
	t.Parallel()
	rows, _ := testref.Floats(t, "../testdata/hockey/gaussian_ref.csv", 3, 20)
	for _, row := range rows {
		sigma, eps, want := row[0], row[1], row[2]
		got := hockey.Gaussian(sigma, eps)
		if !(got >= want && got <= want*(1+1e-9)+1e-300) {
			t.Errorf("Gaussian(%v, %v) = %v, reference %v", sigma, eps, got, want)
		}
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	ok := hockey.Params{D: 1, K: 1, C: 0.1, Eps: 1, Delta: 0.1, EpsOut: 0.5}
	for _, tc := range []struct {
		desc string
		mod  func(*hockey.Params)
	}{
		{"d=0", func(p *hockey.Params) { p.D = 0 }},
		{"k=0", func(p *hockey.Params) { p.K = 0 }},
		{"c=0.5", func(p *hockey.Params) { p.C = 0.5 }},
		{"c=0", func(p *hockey.Params) { p.C = 0 }},
		{"eps<0", func(p *hockey.Params) { p.Eps = -1 }},
		{"eps=inf", func(p *hockey.Params) { p.Eps = math.Inf(1) }},
		{"delta=1", func(p *hockey.Params) { p.Delta = 1 }},
		{"delta<0", func(p *hockey.Params) { p.Delta = -1e-9 }},
		{"delta=nan", func(p *hockey.Params) { p.Delta = math.NaN() }},
		{"eps_out<0", func(p *hockey.Params) { p.EpsOut = -0.1 }},
		{"eps_out=nan", func(p *hockey.Params) { p.EpsOut = math.NaN() }},
	} {
		p := ok
		tc.mod(&p)
		if _, err := hockey.Delta(context.Background(), p); err == nil {
			t.Errorf("%s: no error", tc.desc)
		}
	}
	if _, err := hockey.Delta(context.Background(), ok); err != nil {
		t.Errorf("valid point: %v", err)
	}
	big := ok
	big.D, big.K = 12, 2
	if _, err := hockey.Delta(context.Background(), big); !errors.Is(err, hockey.ErrTooLarge) {
		t.Errorf("d=12 k=2: error %v, want ErrTooLarge", err)
	}
}

// TestWitness checks that the witness is a feasible pair whose value is the
// result: recomputed from its masses and corners with the independent
// channel of this file.
func TestWitness(t *testing.T) {
	t.Parallel()
	for _, p := range []hockey.Params{
		{D: 1, K: 3, C: 0.1, Eps: 1, Delta: 0.05, EpsOut: 0.3},
		{D: 2, K: 2, C: 0.2, Eps: 2, Delta: 1e-3, EpsOut: 1},
		{D: 3, K: 1, C: 0.1, Eps: 0.5, Delta: 0.2, EpsOut: 0.1},
	} {
		r := delta(t, p)
		if r.DivPQ > p.Delta*(1+1e-12)+1e-15 || r.DivQP > p.Delta*(1+1e-12)+1e-15 {
			t.Errorf("%+v: witness divergences %v %v above delta", p, r.DivPQ, r.DivQP)
		}
		var thetas [][]float64
		for _, name := range r.Support {
			th := make([]float64, p.D)
			for l := range th {
				th[l] = p.C
				if name[l] == '1' {
					th[l] = 1 - p.C
				}
			}
			thetas = append(thetas, th)
		}
		cols := columns(p.K, thetas)
		N := len(cols[0])
		u, v := make([]float64, N), make([]float64, N)
		for j, col := range cols {
			for b := range N {
				u[b] += r.P[j] * col[b]
				v[b] += r.Q[j] * col[b]
			}
		}
		if got := hockey.H(u, v, math.Exp(p.EpsOut)); math.Abs(got-r.Value) > 1e-13 {
			t.Errorf("%+v: witness value %v, result %v", p, got, r.Value)
		}
	}
}

func TestCanceled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := hockey.Delta(ctx, hockey.Params{D: 1, K: 1, C: 0.1, Eps: 1, Delta: 0.1, EpsOut: 0.5})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
}
