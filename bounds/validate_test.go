package bounds

import (
	"math"
	"testing"

	"github.com/bernamp/bernamp/check"
)

// bad are values outside the domain of some parameter: NaN and ±Inf for
// every float, and the edges of each domain.
var (
	nan, inf = math.NaN(), math.Inf(1)
	badFloat = []float64{nan, inf, -inf}
)

// mustPanic reports whether f panicked; without a panic it fails the test
// with the value f returned (a NaN would have slipped through).
func mustPanic(t *testing.T, name string, f func() float64) {
	t.Helper()
	var v float64
	func() {
		defer func() {
			if recover() != nil {
				v = 0
				name = ""
			}
		}()
		v = f()
	}()
	if name != "" {
		t.Errorf("%s = %v, want a panic", name, v)
	}
}

// TestEntryPointsReject: every exported float-argument function of the
// package panics (or, for the ranges functions, returns an error) on NaN,
// ±Inf and the edges of each parameter's domain; none returns a NaN. The
// typed functions panic on the zero ValidPoint.
func TestEntryPointsReject(t *testing.T) {
	t.Parallel()
	const d, k, c, alpha, eps = 2, 3, 0.1, 5.0, 1.0
	cs := append([]float64{0, 0.5, -0.1, 0.7}, badFloat...)
	alphas := append([]float64{1, 0.5, -2}, badFloat...)
	epss := append([]float64{-1e-300, -1}, badFloat...)
	for _, dd := range []int{0, -1} {
		mustPanic(t, "UpperBound(d)", func() float64 { return UpperBound(dd, k, c, alpha, eps).Value() })
		mustPanic(t, "Lower(d)", func() float64 { return Lower(dd, k, c, alpha, eps) })
		mustPanic(t, "Lower(k)", func() float64 { return Lower(d, dd, c, alpha, eps) })
		mustPanic(t, "UpperBound(k)", func() float64 { return UpperBound(d, dd, c, alpha, eps).Value() })
		mustPanic(t, "Theorem2(d)", func() float64 { return Theorem2(dd, c, alpha, eps) })
	}
	mustPanic(t, "Lower(d k > 2^53)", func() float64 { return Lower(1<<27, 1<<27, c, alpha, eps) })
	for _, x := range cs {
		mustPanic(t, "UpperBound(c)", func() float64 { return UpperBound(d, k, x, alpha, eps).Value() })
		mustPanic(t, "Lower(c)", func() float64 { return Lower(d, k, x, alpha, eps) })
		mustPanic(t, "Theorem2(c)", func() float64 { return Theorem2(d, x, alpha, eps) })
	}
	for _, x := range alphas {
		mustPanic(t, "UpperBound(alpha)", func() float64 { return UpperBound(d, k, c, x, eps).Value() })
		mustPanic(t, "Lower(alpha)", func() float64 { return Lower(d, k, c, x, eps) })
		mustPanic(t, "Theorem2(alpha)", func() float64 { return Theorem2(d, c, x, eps) })
		mustPanic(t, "Renyi(alpha)", func() float64 { return Renyi(x, c) })
		mustPanic(t, "P(alpha)", func() float64 { return P(x, eps) })
		mustPanic(t, "Logit(alpha)", func() float64 { return Logit(x, eps) })
		mustPanic(t, "BernoulliRenyi(alpha)", func() float64 { return BernoulliRenyi(x, 0.2, 0.3) })
		mustPanic(t, "RangeAsymptote(alpha)", func() float64 { return RangeAsymptote(Symmetric(d, c), k, x) })
	}
	for _, x := range epss {
		mustPanic(t, "UpperBound(eps)", func() float64 { return UpperBound(d, k, c, alpha, x).Value() })
		mustPanic(t, "Lower(eps)", func() float64 { return Lower(d, k, c, alpha, x) })
		mustPanic(t, "Theorem2(eps)", func() float64 { return Theorem2(d, c, alpha, x) })
		mustPanic(t, "P(eps)", func() float64 { return P(alpha, x) })
		mustPanic(t, "Logit(eps)", func() float64 { return Logit(alpha, x) })
	}
	for _, x := range append([]float64{0, 0.5000000000000001, 1, -0.1}, badFloat...) {
		mustPanic(t, "Renyi(p)", func() float64 { return Renyi(alpha, x) })
	}
	for _, x := range append([]float64{0, 1, -0.1, 1.5}, badFloat...) {
		mustPanic(t, "BernoulliRenyi(a)", func() float64 { return BernoulliRenyi(alpha, x, 0.3) })
		mustPanic(t, "BernoulliRenyi(b)", func() float64 { return BernoulliRenyi(alpha, 0.3, x) })
	}
	mustPanic(t, "RangeAsymptote(k)", func() float64 { return RangeAsymptote(Symmetric(d, c), 0, alpha) })
	mustPanic(t, "RangeAsymptote(nil)", func() float64 { return RangeAsymptote(nil, k, alpha) })
	mustPanic(t, "Symmetric(d)", func() float64 { return float64(len(Symmetric(0, c))) })
	for _, x := range cs {
		mustPanic(t, "Symmetric(c)", func() float64 { return float64(len(Symmetric(d, x))) })
	}

	// The ranges functions return errors.
	good := Symmetric(d, c)
	type args struct {
		name       string
		ranges     []Range
		k          int
		alpha, eps float64
	}
	var cases []args
	for _, x := range append([]float64{0, 1, -0.5}, badFloat...) {
		cases = append(cases, args{"lo", []Range{{x, 0.9}}, k, alpha, eps}, args{"hi", []Range{{0.1, x}}, k, alpha, eps})
	}
	cases = append(cases, args{"empty", nil, k, alpha, eps}, args{"lo > hi", []Range{{0.6, 0.4}}, k, alpha, eps}, args{"k", good, 0, alpha, eps})
	for _, x := range alphas {
		cases = append(cases, args{"alpha", good, k, x, eps})
	}
	for _, x := range epss {
		cases = append(cases, args{"eps", good, k, alpha, x})
	}
	for _, a := range cases {
		if u, err := RangeUpperBound(a.ranges, a.k, a.alpha, a.eps); err == nil {
			t.Errorf("RangeUpperBound(%s %v %d %v %v) = %v, want an error", a.name, a.ranges, a.k, a.alpha, a.eps, u)
		}
		if lb, _, err := RangeLower(a.ranges, a.k, a.alpha, a.eps); err == nil {
			t.Errorf("RangeLower(%s %v %d %v %v) = %v, want an error", a.name, a.ranges, a.k, a.alpha, a.eps, lb)
		}
		if lb, ub, err := RangeBounds(a.ranges, a.k, a.alpha, a.eps); err == nil {
			t.Errorf("RangeBounds(%s %v %d %v %v) = %v, %v, want an error", a.name, a.ranges, a.k, a.alpha, a.eps, lb, ub)
		}
	}

	// The typed functions take only a ValidPoint: the zero one panics.
	var zero check.ValidPoint
	mustPanic(t, "UpperAt(zero)", func() float64 { return UpperAt(zero).Value() })
	mustPanic(t, "LowerAt(zero)", func() float64 { return LowerAt(zero) })
	mustPanic(t, "Theorem2At(zero)", func() float64 { return Theorem2At(zero) })
	mustPanic(t, "PAt(zero)", func() float64 { return PAt(zero) })
	mustPanic(t, "PairAt(zero)", func() float64 { p, _ := PairAt(zero); return p })
	mustPanic(t, "LogitAt(zero)", func() float64 { return LogitAt(zero) })
	mustPanic(t, "RenyiAt(zero)", func() float64 { return RenyiAt(zero) })
	var zr RangePoint
	mustPanic(t, "RangePoint{}.Upper", func() float64 { return zr.Upper().Value() })
	mustPanic(t, "RangePoint{}.Lower", func() float64 { lb, _, _ := zr.Lower(); return lb })
	mustPanic(t, "RangePoint{}.Pair", func() float64 { p, _ := zr.Pair(); return p })
	mustPanic(t, "RangePoint{}.Logit", func() float64 { return zr.Logit() })
	mustPanic(t, "RangePoint{}.Coin", func() float64 { a, _ := zr.Coin(0); return a })
	for _, a := range cases {
		if rp, err := NewRangePoint(a.ranges, a.k, a.alpha, a.eps); err == nil || !rp.IsZero() {
			t.Errorf("NewRangePoint(%s %v %d %v %v) = %+v, %v, want an error", a.name, a.ranges, a.k, a.alpha, a.eps, rp, err)
		}
	}
}

// TestTypedMatchesChecked: the typed functions return bit for bit what the
// checked float-argument ones return at the same point.
func TestTypedMatchesChecked(t *testing.T) {
	t.Parallel()
	for _, d := range []int{1, 3, 1000} {
		for _, k := range []int{1, 4} {
			for _, c := range []float64{1e-6, 0.1, 0.49} {
				for _, alpha := range []float64{1 + 1e-9, 5, 1000} {
					for _, eps := range []float64{0, 1e-9, 1, 50, 1e300} {
						pt, err := check.NewValidPoint(d, k, c, alpha, eps)
						if err != nil {
							t.Fatal(err)
						}
						ps, div := PairAt(pt)
						wantDiv := 0.0
						if p := P(alpha, eps); p == 0 {
							wantDiv = eps
						} else if p < 0.5 {
							wantDiv = Renyi(alpha, p)
						}
						for _, v := range []struct {
							name      string
							got, want float64
						}{
							{"UpperAt", UpperAt(pt).Asymptote, UpperBound(d, k, c, alpha, eps).Asymptote},
							{"UpperAt.PostProcessing", UpperAt(pt).PostProcessing, eps},
							{"LowerAt", LowerAt(pt), Lower(d, k, c, alpha, eps)},
							{"Theorem2At", Theorem2At(pt), Theorem2(d, c, alpha, eps)},
							{"PAt", PAt(pt), P(alpha, eps)},
							{"PairAt mass", ps, P(alpha, eps)},
							{"PairAt div", div, wantDiv},
							{"LogitAt", LogitAt(pt), Logit(alpha, eps)},
							{"RenyiAt", RenyiAt(pt), Renyi(alpha, c)},
						} {
							if v.got != v.want || math.IsNaN(v.got) {
								t.Errorf("d=%d k=%d c=%v alpha=%v eps=%v: %s = %v, want %v", d, k, c, alpha, eps, v.name, v.got, v.want)
							}
						}
						if !(div <= eps*(1+1e-12)) {
							t.Errorf("d=%d k=%d c=%v alpha=%v eps=%v: PairAt div %v above eps", d, k, c, alpha, eps, div)
						}
					}
				}
			}
		}
	}
}

// TestValidatedOnce: each checked entry point validates its arguments once
// (one count of check.Counts.Checks, or one RangePoint built; none of the internal
// steps re-checks: P used to re-check alpha at every step of its
// bisection, Lower its arguments again in Logit, RangeBounds the ranges in
// both bounds), and the typed ones not at all. Not parallel: the counts are
// global.
func TestValidatedOnce(t *testing.T) {
	pt, err := check.NewValidPoint(3, 2, 0.1, 5, 1)
	if err != nil {
		t.Fatal(err)
	}
	ranges := []Range{{0.1, 0.9}, {0.2, 0.7}}
	rp, err := NewRangePoint(ranges, 2, 5, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		want   int64
		f      func()
		points int64
	}{
		{"UpperBound", 1, func() { UpperBound(3, 2, 0.1, 5, 1) }, 0},
		{"Lower", 1, func() { Lower(3, 2, 0.1, 5, 1) }, 0},
		{"Theorem2", 1, func() { Theorem2(3, 0.1, 5, 1) }, 0},
		{"P", 1, func() { P(5, 1) }, 0},
		{"Logit", 1, func() { Logit(5, 1) }, 0},
		{"Renyi", 1, func() { Renyi(5, 0.1) }, 0},
		{"BernoulliRenyi", 1, func() { BernoulliRenyi(5, 0.1, 0.3) }, 0},
		{"RangeAsymptote", 1, func() { RangeAsymptote([]Range{{0.1, 0.9}, {0.2, 0.7}}, 2, 5) }, 0},
		{"UpperAt", 0, func() { UpperAt(pt) }, 0},
		{"LowerAt", 0, func() { LowerAt(pt) }, 0},
		{"Theorem2At", 0, func() { Theorem2At(pt) }, 0},
		{"PAt", 0, func() { PAt(pt) }, 0},
		{"PairAt", 0, func() { PairAt(pt) }, 0},
		{"LogitAt", 0, func() { LogitAt(pt) }, 0},
		{"RenyiAt", 0, func() { RenyiAt(pt) }, 0},
		{"RangeUpperBound", 0, func() { RangeUpperBound(ranges, 2, 5, 1) }, 1},
		{"RangeLower", 0, func() { RangeLower(ranges, 2, 5, 1) }, 1},
		{"RangeBounds", 0, func() { RangeBounds(ranges, 2, 5, 1) }, 1},
		{"RangePoint methods", 0, func() { rp.Upper(); rp.Lower(); rp.Pair(); rp.Logit(); rp.Coin(1) }, 0},
	} {
		check.ResetCounts()
		tc.f()
		if got := check.Counts.Checks.Load(); got != tc.want || check.Counts.Points.Load() != tc.points {
			t.Errorf("%s: %d checks and %d points, want %d and %d", tc.name, got, check.Counts.Points.Load(), tc.want, tc.points)
		}
	}
}
