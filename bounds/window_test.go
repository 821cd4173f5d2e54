package bounds

import (
	"fmt"
	"math"
	"testing"

	"github.com/bernamp/bernamp/internal/logspace"
	"github.com/bernamp/bernamp/internal/testref"
)

// largeRow is one row of testdata/ref/lb_large.csv: LB at n = d k up to
// 10^12 from mpmath/decimal at 60 digits with a proved tail bound
// (testdata/ref/README.md, gen_lb_large.py). Its inputs are the float64
// values of the printed decimals, exactly.
type largeRow struct {
	d, k              int
	c, alpha, eps, lb float64
}

func readLarge(t *testing.T) []largeRow {
	t.Helper()
	vals, _ := testref.Floats(t, "../testdata/ref/lb_large.csv", 6, 12)
	rows := make([]largeRow, len(vals))
	for i, v := range vals {
		rows[i] = largeRow{int(v[0]), int(v[1]), v[2], v[3], v[4], v[5]}
	}
	return rows
}

// TestLowerLarge: Lower within 1e-12 relative of every reference row, at n
// = 10^4, 10^6, 10^9 and 10^12.
func TestLowerLarge(t *testing.T) {
	t.Parallel()
	worst := 0.0
	for _, r := range readLarge(t) {
		got := Lower(r.d, r.k, r.c, r.alpha, r.eps)
		rel := math.Abs(got-r.lb) / r.lb
		worst = math.Max(worst, rel)
		if !(rel <= relTol) {
			t.Errorf("Lower(%d, %d, %v, %v, %v) = %.17g, want %.17g (rel %.2g)",
				r.d, r.k, r.c, r.alpha, r.eps, got, r.lb, rel)
		}
	}
	t.Logf("largest relative error against lb_large.csv: %.2g", worst)
}

// fullSum is the previous O(n) implementation of pairDivergence (one term
// per j = 0..n, no folding, no truncation), kept as an oracle.
func fullSum(n int, c, alpha, D float64) float64 {
	logp, log1mp := -logspace.Softplus(D), -logspace.Softplus(-D)
	logTanh := math.Log(math.Tanh(D / 2))
	lam := logspace.LogOdds(c)
	q := 1 - c
	acc := logspace.NewAcc()
	for j := 0; j <= n; j++ {
		jj, sign := j, 1.0
		if 2*j < n {
			jj, sign = n-j, -1.0
		}
		s := float64(2*jj-n) * lam
		logDen := logspace.Add(logp, log1mp-s)
		L := logspace.Softplus(logTanh + logspace.OneMinusExp(-s) - logDen)
		if L == 0 {
			continue
		}
		logCQ := logspace.Add(log1mp+logspace.BinomPMF(j, n, c, q), logp+logspace.BinomPMF(n-j, n, c, q))
		acc.Add(logCQ + logH(sign*L, alpha))
	}
	return logspace.Softplus(acc.Log()) / (alpha - 1)
}

// TestWindowAgainstFullSum compares the windowed sum with the full one on a
// grid that crosses every path (full fold, flat shortcut, linear and log
// walks, tilted peaks): within 1e-13 relative, and never above it by more
// than that (truncation only lowers LB).
func TestWindowAgainstFullSum(t *testing.T) {
	t.Parallel()
	worst := 0.0
	for _, n := range []int{1, 2, 7, 127, 128, 129, 1000, 4001, 10000} {
		for _, c := range []float64{1e-6, 0.01, 0.1, 0.3, 0.45, 0.49, 0.499, 0.4999, 0.49999} {
			for _, alpha := range []float64{1.01, 1.5, 2, 5, 50, 1000} {
				for _, eps := range []float64{1e-9, 0.01, 0.5, 2, 20, 300} {
					D := Logit(alpha, eps)
					got, want := pairDivergence(n, c, alpha, D), fullSum(n, c, alpha, D)
					rel := (got - want) / want
					if want == 0 {
						rel = got
					}
					worst = math.Max(worst, math.Abs(rel))
					if math.IsNaN(got) || !(math.Abs(rel) <= 1e-13) {
						t.Errorf("n=%d c=%v alpha=%v eps=%v: windowed %.17g, full %.17g (rel %.2g)",
							n, c, alpha, eps, got, want, rel)
					}
				}
			}
		}
	}
	// Peaks far into the tilt (alpha = 1000): terms whose linear form would
	// underflow must go through logs (they once went through math.Log of a
	// subnormal, see logPos).
	for _, tc := range []struct {
		n         int
		c, a, eps float64
	}{{40000, 0.499875, 1000, 30}, {40000, 0.499875, 1000, 100}, {40000, 0.4999, 200, 300}} {
		D := Logit(tc.a, tc.eps)
		got, want := pairDivergence(tc.n, tc.c, tc.a, D), fullSum(tc.n, tc.c, tc.a, D)
		if rel := (got - want) / want; !(math.Abs(rel) <= 1e-13) {
			t.Errorf("%+v: windowed %.17g, full %.17g (rel %.2g)", tc, got, want, rel)
		}
	}
	t.Logf("largest relative difference from the full sum: %.2g", worst)
}

// TestLowerTiny: LB near the bottom of the float64 range, against mpmath at
// 700 digits (p from r_alpha(1/2 - delta) = eps by bisection on log delta,
// then the plain sum over j = 0..129); the previous O(n) sum was 7% off at
// alpha = 1.01.
func TestLowerTiny(t *testing.T) {
	t.Parallel()
	const want = 5.1599735810235999161e-306
	for _, alpha := range []float64{1.01, 2} {
		if got := Lower(129, 1, 0.4999, alpha, 1e-300); !(math.Abs(got-want) <= 1e-13*want) {
			t.Errorf("alpha=%v: Lower = %.17g, want %.17g", alpha, got, want)
		}
	}
}

func TestLogPos(t *testing.T) {
	t.Parallel()
	for _, x := range []float64{1e-300, 0x1p-1022, 1e-310, 5e-324, 1, 3e300} {
		want := math.Log(x*0x1p100) - 100*math.Ln2
		if x > 1 {
			want = math.Log(x)
		}
		if got := logPos(x); math.Abs(got-want) > 1e-15*math.Abs(want) {
			t.Errorf("logPos(%v) = %.17g, want %.17g", x, got, want)
		}
	}
}

// TestWindowPaths checks the pieces: Phi(0) = e^((alpha-1) r_alpha(p)) - 1,
// the flat shortcut against the walk, and the truncation side (the walk's
// sum is below the flat upper bound Phi(0)).
func TestWindowPaths(t *testing.T) {
	t.Parallel()
	for _, alpha := range []float64{1.01, 2, 50, 1000} {
		for _, eps := range []float64{1e-6, 1, 40} {
			D := Logit(alpha, eps)
			s := newFoldedSum(1000, 0.3, alpha, D)
			if got, want := logspace.Softplus(s.logPhi0)/(alpha-1), renyiLogit(alpha, D); math.Abs(got-want) > 1e-14*want {
				t.Errorf("alpha=%v eps=%v: log1p(Phi(0))/(alpha-1) = %.17g, r_alpha(p) = %.17g", alpha, eps, got, want)
			}
		}
	}
	for _, tc := range []struct {
		n         int
		c, a, eps float64
	}{{100000, 0.3, 5, 1}, {1000000, 0.45, 2, 0.5}, {20000, 0.1, 50, 2}, {5000, 0.01, 1000, 40}} {
		s := newFoldedSum(tc.n, tc.c, tc.a, Logit(tc.a, tc.eps))
		flat, ok := s.flat()
		if !ok {
			t.Errorf("%+v: flat shortcut not taken", tc)
			continue
		}
		i0 := s.peak()
		ref, walked := s.walk(i0)
		// The LBs from both, and the walk's below the one from Phi(0).
		lbFlat, lbWalk, lbPhi0 := s.lb(s.zero(), 0, flat), s.lb(ref, s.logB(i0), walked), s.lb(s.zero(), 0, 0)
		if math.Abs(lbFlat-lbWalk) > 1e-14*lbWalk || lbWalk > lbPhi0*(1+1e-14) {
			t.Errorf("%+v: LB from flat %.17g, from walk %.17g, from Phi(0) %.17g", tc, lbFlat, lbWalk, lbPhi0)
		}
	}
}

// TestLowerLargeProperties: at large n near c = 1/2 (the walk), LB stays
// below UB = min(eps, n r_alpha(c)) and nondecreasing in eps, to 1e-12.
func TestLowerLargeProperties(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		n      int
		alphas []float64
	}{{1e6, []float64{1.01, 5, 1000}}, {1e9, []float64{1000}}} {
		for _, y := range []float64{0.05, 1, 4} {
			c := 0.5 - y/2/math.Sqrt(float64(tc.n))
			for _, alpha := range tc.alphas {
				prev := 0.0
				for _, eps := range []float64{1e-12, 1e-3, 0.1, 1, 10, 100, 1000} {
					lb := Lower(tc.n, 1, c, alpha, eps)
					ub := UpperBound(tc.n, 1, c, alpha, eps).Value()
					if math.IsNaN(lb) || lb < prev*(1-1e-12) || lb > ub*(1+1e-12) {
						t.Errorf("n=%d c=%v alpha=%v eps=%v: LB = %v (previous eps %v), UB = %v", tc.n, c, alpha, eps, lb, prev, ub)
					}
					prev = lb
				}
			}
		}
	}
}

// TestLogBinomPMFLarge checks the binomial log-pmf against mpmath at 50
// digits (loggamma; the float64 value of c taken exactly) at the mean, 3
// standard deviations above and 8 below, for n up to 2^53 - 1. Made with
//
//	c = mpf(float(cs)); x = int(nint(n c + k sqrt(n c (1-c))))
//	loggamma(n+1) - loggamma(x+1) - loggamma(n-x+1) + x log(c) + (n-x) log(1-c)
//
// logspace.BinomPMF, which rounds n c, is off by up to about 1e-10 here.
func TestLogBinomPMFLarge(t *testing.T) {
	t.Parallel()
	worst, worstOld := 0.0, 0.0
	for _, tc := range []struct {
		x, n int
		c    float64
		want float64
	}{
		{496000, 1000000, 0.4999999, -39.132256242695875733},
		{500000, 1000000, 0.4999999, -7.1335469016268644855},
		{501500, 1000000, 0.4999999, -11.63414915163393177},
		{296334, 1000000, 0.3, -39.116863900386978618},
		{300000, 1000000, 0.3, -7.0463702515465391},
		{301375, 1000000, 0.3, -11.545243668890666381},
		{97600, 1000000, 0.1, -38.842271686465541838},
		{100000, 1000000, 0.1, -6.622721850453466391},
		{100900, 1000000, 0.1, -11.114755920192126597},
		{747, 1000000, 0.001, -39.366242770580154269},
		{1000, 1000000, 0.001, -4.3723992559429218075},
		{1095, 1000000, 0.001, -8.7982665971188310339},
		{499873409, 1000000000, 0.4999999, -42.587370743728776128},
		{499999900, 1000000000, 0.4999999, -10.58742427136791301},
		{500047334, 1000000000, 0.4999999, -15.087392985580629235},
		{299884069, 1000000000, 0.3, -42.502485435718600619},
		{300000000, 1000000000, 0.3, -10.500247577859036198},
		{300043474, 1000000000, 0.3, -15.000137814759716443},
		{99924105, 1000000000, 0.1, -42.083743467476124379},
		{100000000, 1000000000, 0.1, -10.07659864819453492},
		{100028460, 1000000000, 0.1, -14.576187940183130003},
		{992004, 1000000000, 0.001, -39.907739192491178319},
		{1000000, 1000000000, 0.001, -7.8261936453534347772},
		{1002998, 1000000000, 0.001, -12.321705121015897483},
		{499995900000, 1000000000000, 0.4999999, -46.04130191090636914},
		{499999900000, 1000000000000, 0.4999999, -14.041301910609231536},
		{500001400000, 1000000000000, 0.4999999, -18.541301910627714935},
		{299996333939, 1000000000000, 0.3, -45.954203962697252243},
		{300000000000, 1000000000000, 0.3, -13.954125217036926152},
		{300001374773, 1000000000000, 0.3, -18.454124506900762955},
		{99997600000, 1000000000000, 0.1, -45.530693178503624413},
		{100000000000, 1000000000000, 0.1, -13.530476286843853446},
		{100000900000, 1000000000000, 0.1, -18.030468286822592113},
		{999747144, 1000000000000, 0.001, -43.282718108759765555},
		{1000000000, 1000000000000, 0.001, -11.28007120159441997},
		{1000094821, 1000000000000, 0.001, -15.779987511180099955},
		{4503598347025508, 9007199254740991, 0.4999999, -50.594191553695953678},
		{4503598726650570, 9007199254740991, 0.4999999, -18.594191637483258104},
		{4503598869009968, 9007199254740991, 0.4999999, -23.09419160989552614},
		{2702159428490180, 9007199254740991, 0.3, -50.507015743642531177},
		{2702159776422297, 9007199254740991, 0.3, -18.507014943910889214},
		{2702159906896841, 9007199254740991, 0.3, -23.007014913241774691},
		{900719697699062, 9007199254740991, 0.1, -50.083368201175424317},
		{900719925474099, 9007199254740991, 0.1, -18.083366013717287451},
		{900720010889738, 9007199254740991, 0.1, -22.583365907104057708},
		{9007175257152, 9007199254740991, 0.001, -47.832987201138325924},
		{9007199254741, 9007199254740991, 0.001, -15.832960928385372848},
		{9007208253837, 9007199254740991, 0.001, -20.332959956760300316},
	} {
		got := logBinomPMF(tc.x, tc.n, tc.c)
		err := math.Abs(got-tc.want) / math.Max(1, math.Abs(tc.want))
		worst = math.Max(worst, err)
		worstOld = math.Max(worstOld, math.Abs(logspace.BinomPMF(tc.x, tc.n, tc.c, 1-tc.c)-tc.want)/math.Max(1, math.Abs(tc.want)))
		if !(err <= 1e-15) {
			t.Errorf("logBinomPMF(%d, %d, %v) = %.17g, want %.17g (err %.2g)", tc.x, tc.n, tc.c, got, tc.want, err)
		}
	}
	t.Logf("largest error %.2g relative to max(1, |log pmf|) (logspace.BinomPMF: %.2g)", worst, worstOld)
}

// TestLowerLargeNoAlloc: no O(n) memory, indeed none at all.
func TestLowerLargeNoAlloc(t *testing.T) {
	for _, tc := range []struct {
		n int
		c float64
	}{{1e4, 0.495}, {1e9, 0.4999}, {1e12, 0.4}, {1e12, 0.49}} {
		if a := testing.AllocsPerRun(3, func() { sinkB += Lower(tc.n, 1, tc.c, 5, 1) }); a != 0 {
			t.Errorf("n=%d c=%v: %v allocations", tc.n, tc.c, a)
		}
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("d k > 2^53: no panic")
			}
		}()
		Lower(1<<30, 1<<30, 0.4, 5, 1)
	}()
}

// BenchmarkLowerLarge times Lower at n = d k far beyond what an O(n) sum
// allows, at alpha = 5, eps = 1, for c = 0.4 (the binomial mass far from
// n/2) and c = 1/2 - 1/(2 sqrt(n)) (the mass straddles n/2: the widest
// window).
func BenchmarkLowerLarge(b *testing.B) {
	for _, e := range []int{4, 6, 9, 12} {
		n := int(math.Pow(10, float64(e)))
		for _, cc := range []struct {
			name string
			c    float64
		}{{"c=0.4", 0.4}, {"c=near", 0.5 - 0.5/math.Sqrt(float64(n))}} {
			b.Run(fmt.Sprintf("n=1e%d/%s", e, cc.name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					sinkB += Lower(n, 1, cc.c, 5, 1)
				}
			})
		}
	}
}
