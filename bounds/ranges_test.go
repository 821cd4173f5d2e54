package bounds

import (
	"errors"
	"fmt"
	"log"
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/bernamp/bernamp/internal/testref"

	"gonum.org/v1/gonum/floats/scalar"
)

// parseRanges reads "lo:hi,lo:hi,...", the format of testdata/ref/ranges.csv.
func parseRanges(t *testing.T, s string) []Range {
	t.Helper()
	var out []Range
	for _, item := range strings.Split(s, ",") {
		lo, hi, ok := strings.Cut(item, ":")
		if !ok {
			t.Fatalf("bad range %q", item)
		}
		a, err1 := strconv.ParseFloat(lo, 64)
		b, err2 := strconv.ParseFloat(hi, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("bad range %q", item)
		}
		out = append(out, Range{a, b})
	}
	return out
}

func TestRangeCheck(t *testing.T) {
	t.Parallel()
	nan, inf := math.NaN(), math.Inf(1)
	for _, tc := range []struct {
		desc    string
		ranges  []Range
		wantErr string // substring; "" means valid
	}{
		{"symmetric", []Range{{0.1, 0.9}}, ""},
		{"asymmetric", []Range{{0.2, 0.3}, {1e-300, 0.999999}}, ""},
		{"narrow", []Range{{0.5, math.Nextafter(0.5, 1)}}, ""},
		{"empty", nil, "at least one"},
		{"lo = hi", []Range{{0.1, 0.9}, {0.3, 0.3}}, "coordinate 2: range 0.3:0.3 must have lo < hi"},
		{"lo > hi", []Range{{0.9, 0.1}}, "coordinate 1: range 0.9:0.1 must have lo < hi"},
		{"lo = 0", []Range{{0, 0.5}}, "must lie in (0, 1)"},
		{"hi = 1", []Range{{0.5, 1}}, "must lie in (0, 1)"},
		{"negative", []Range{{-0.1, 0.5}}, "must lie in (0, 1)"},
		{"above 1", []Range{{0.5, 1.5}}, "must lie in (0, 1)"},
		{"NaN lo", []Range{{nan, 0.5}}, "must lie in (0, 1)"},
		{"NaN hi", []Range{{0.1, nan}}, "must lie in (0, 1)"},
		{"Inf", []Range{{0.1, inf}}, "must lie in (0, 1)"},
		{"-Inf", []Range{{math.Inf(-1), 0.5}}, "must lie in (0, 1)"},
	} {
		err := CheckRanges(tc.ranges)
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%s: unexpected error %v", tc.desc, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s: error %v, want one containing %q", tc.desc, err, tc.wantErr)
		}
		if tc.wantErr == "" {
			continue
		}
		if _, _, err := RangeBounds(tc.ranges, 1, 5, 1); err == nil {
			t.Errorf("%s: RangeBounds accepted %v", tc.desc, tc.ranges)
		}
	}
	// The other parameters are checked too.
	good := []Range{{0.1, 0.9}}
	for _, tc := range []struct {
		k          int
		alpha, eps float64
	}{{0, 5, 1}, {1, 1, 1}, {1, math.Inf(1), 1}, {1, nan, 1}, {1, 5, -1}, {1, 5, inf}, {1, 5, nan}} {
		if _, _, err := RangeBounds(good, tc.k, tc.alpha, tc.eps); err == nil {
			t.Errorf("k=%d alpha=%v eps=%v accepted", tc.k, tc.alpha, tc.eps)
		}
		if _, err := RangeUpperBound(good, tc.k, tc.alpha, tc.eps); err == nil {
			t.Errorf("RangeUpperBound: k=%d alpha=%v eps=%v accepted", tc.k, tc.alpha, tc.eps)
		}
	}
}

// Equal ranges [c, 1-c] give the old answers: RangeLower is Lower (every
// orientation of the antipodal pair is equivalent by symmetry, and the
// canonical one is reported), and the asymptote is d k r_alpha(c).
func TestRangeSymmetric(t *testing.T) {
	t.Parallel()
	dks := [][2]int{{1, 1}, {2, 1}, {1, 4}, {3, 2}, {7, 1}, {20, 1}, {5, 5}, {2, 16}}
	alphas := []float64{1.01, 1.5, 2, 5, 50, 1000}
	epss := []float64{0, 0.001, 0.1, 1, 5, 50}
	cs := []float64{1e-6, 0.01, 0.1, 0.3, 0.45, 0.49}
	for ia, alpha := range alphas {
		for ie, eps := range epss {
			for ic, c := range cs {
				dk := dks[(ia+3*ie+5*ic)%len(dks)]
				d, k := dk[0], dk[1]
				// Use the c whose complement is exact in float64, so
				// that [c, 1-c] is symmetric (Symmetric's doc).
				c = 1 - (1 - c)
				rs := Symmetric(d, c)
				lb, aHi, err := RangeLower(rs, k, alpha, eps)
				if err != nil {
					t.Fatal(err)
				}
				want := Lower(d, k, c, alpha, eps)
				if !scalar.EqualWithinRel(lb, want, 1e-12) && lb != want {
					t.Errorf("d=%d k=%d c=%v alpha=%v eps=%v: RangeLower %.17g, Lower %.17g", d, k, c, alpha, eps, lb, want)
				}
				for l, h := range aHi {
					if h {
						t.Errorf("d=%d k=%d c=%v alpha=%v eps=%v: symmetric ranges report a flipped coordinate %d", d, k, c, alpha, eps, l)
						break
					}
				}
				u, err := RangeUpperBound(rs, k, alpha, eps)
				if err != nil {
					t.Fatal(err)
				}
				old := UpperBound(d, k, c, alpha, eps)
				if !scalar.EqualWithinRel(u.Asymptote, old.Asymptote, 1e-13) || u.PostProcessing != eps {
					t.Errorf("d=%d k=%d c=%v alpha=%v: asymptote %.17g, UpperBound's %.17g", d, k, c, alpha, u.Asymptote, old.Asymptote)
				}
			}
		}
	}
}

// bigBernoulli returns R_alpha(Bern(a) || Bern(b)) for integer alpha from
// exact 512-bit powers of the float64 inputs: the sum minus 1 is formed in
// big floats, so nothing cancels before the final log1p.
func bigBernoulli(alpha int, a, b float64) float64 {
	const prec = 512
	pow := func(x *big.Float, e int) *big.Float {
		r := new(big.Float).SetPrec(prec).SetInt64(1)
		for range e {
			r.Mul(r, x)
		}
		return r
	}
	one := new(big.Float).SetPrec(prec).SetInt64(1)
	ba := new(big.Float).SetPrec(prec).SetFloat64(a)
	bb := new(big.Float).SetPrec(prec).SetFloat64(b)
	ca := new(big.Float).SetPrec(prec).Sub(one, ba)
	cb := new(big.Float).SetPrec(prec).Sub(one, bb)
	t1 := new(big.Float).SetPrec(prec).Quo(pow(ba, alpha), pow(bb, alpha-1))
	t2 := new(big.Float).SetPrec(prec).Quo(pow(ca, alpha), pow(cb, alpha-1))
	s := new(big.Float).SetPrec(prec).Add(t1, t2)
	s.Sub(s, one)
	f, _ := s.Float64()
	return math.Log1p(f) / float64(alpha-1)
}

func TestBernoulliRenyi(t *testing.T) {
	t.Parallel()
	pairs := [][2]float64{
		{0.9, 0.1}, {0.1, 0.9}, {0.3, 0.35}, {0.35, 0.3}, {0.5, 0.5000001}, {0.5000001, 0.5},
		{1e-6, 0.999999}, {0.999999, 1e-6}, {0.001, 0.002}, {0.98, 0.99}, {0.7, 0.7001},
		{0.25, math.Nextafter(0.25, 1)}, {0.02, 0.5}, {1e-12, 1e-11},
	}
	for _, alpha := range []int{2, 3, 5, 20} {
		for _, p := range pairs {
			got := BernoulliRenyi(float64(alpha), p[0], p[1])
			want := bigBernoulli(alpha, p[0], p[1])
			if !scalar.EqualWithinRel(got, want, 1e-14) {
				t.Errorf("alpha=%d a=%v b=%v: %.17g, want %.17g (rel %.2g)", alpha, p[0], p[1], got, want, (got-want)/want)
			}
		}
	}
	for _, alpha := range []float64{1.01, 2, 5, 50, 1000} {
		for _, p := range []float64{1e-6, 0.01, 0.1, 0.3, 0.45, 0.49} {
			p = 1 - (1 - p) // so that 1-p is exact: Bern(p) and Bern(1-p) are mirror images
			if got, want := BernoulliRenyi(alpha, p, 1-p), Renyi(alpha, p); !scalar.EqualWithinRel(got, want, 1e-14) {
				t.Errorf("alpha=%v p=%v: %.17g, Renyi %.17g", alpha, p, got, want)
			}
		}
	}
	if v := BernoulliRenyi(5, 0.3, 0.3); v != 0 {
		t.Errorf("R(a||a) = %v", v)
	}
}

type rangeRef struct {
	k                    int
	alpha, eps           float64
	ranges               []Range
	spec                 string
	asym, ub, lb0, lbAll float64
}

// readRangeRef loads testdata/ref/ranges.csv (80-digit mpmath values by
// brute force over outputs; testdata/ref/README_ranges.md).
func readRangeRef(t *testing.T) []rangeRef {
	t.Helper()
	var out []rangeRef
	for _, rec := range testref.Rows(t, "../testdata/ref/ranges.csv", 20) {
		v := make([]float64, len(rec))
		for i, s := range rec {
			if i == 3 {
				continue
			}
			var err error
			if v[i], err = strconv.ParseFloat(s, 64); err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, rangeRef{int(v[0]), v[1], v[2], parseRanges(t, rec[3]), rec[3], v[4], v[5], v[6], v[7]})
	}
	return out
}

func TestRangeReference(t *testing.T) {
	t.Parallel()
	const tol = 1e-12
	for _, r := range readRangeRef(t) {
		name := fmt.Sprintf("k=%d alpha=%v eps=%v ranges=%s", r.k, r.alpha, r.eps, r.spec)
		// The asymptote is rounded up: at or above the exact value, and close.
		asym := RangeAsymptote(r.ranges, r.k, r.alpha)
		if asym < r.asym || !scalar.EqualWithinRel(asym, r.asym, 1e-13) {
			t.Errorf("%s: asymptote %.17g, want %.17g rounded up", name, asym, r.asym)
		}
		lb, ub, err := RangeBounds(r.ranges, r.k, r.alpha, r.eps)
		if err != nil {
			t.Fatal(err)
		}
		if ub < r.ub || !scalar.EqualWithinRel(ub, r.ub, 1e-13) {
			t.Errorf("%s: ub %.17g, want %.17g rounded up", name, ub, r.ub)
		}
		if !scalar.EqualWithinRel(lb, r.lbAll, tol) {
			t.Errorf("%s: lb %.17g, want %.17g (rel %.2g)", name, lb, r.lbAll, (lb-r.lbAll)/r.lbAll)
		}
		// The canonical orientation a = (Lo_l), b = (Hi_l), both directions.
		var subs []subgroup
		for _, g := range rangeGroups(r.ranges) {
			subs = append(subs, subgroup{a: g.r.Lo, b: g.r.Hi, n: r.k * len(g.coords)})
		}
		fwd, bwd := antipodalPair(subs, r.alpha, Logit(r.alpha, r.eps))
		if lb0 := math.Max(fwd, bwd); !scalar.EqualWithinRel(lb0, r.lb0, tol) {
			t.Errorf("%s: canonical pair %.17g, want %.17g (rel %.2g)", name, lb0, r.lb0, (lb0-r.lb0)/r.lb0)
		}
		// The reported orientation, one subgroup per coordinate (no
		// grouping), forward direction, reproduces lb.
		_, aHi, _ := RangeLower(r.ranges, r.k, r.alpha, r.eps)
		if len(r.ranges) <= 5 {
			subs = subs[:0]
			for l, rg := range r.ranges {
				if aHi[l] {
					subs = append(subs, subgroup{a: rg.Hi, b: rg.Lo, n: r.k})
				} else {
					subs = append(subs, subgroup{a: rg.Lo, b: rg.Hi, n: r.k})
				}
			}
			if v, _ := antipodalPair(subs, r.alpha, Logit(r.alpha, r.eps)); !scalar.EqualWithinRel(v, r.lbAll, tol) {
				t.Errorf("%s: the reported pair %v has value %.17g, want %.17g", name, aHi, v, r.lbAll)
			}
		}
	}
}

// Random ranges: 0 <= lb <= ub <= eps, lb never below the canonical pair,
// and permuting the coordinates changes nothing.
func TestRangeBoundsOrdered(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(7, 8))
	for range 60 {
		d, k := 1+rnd.IntN(4), 1+rnd.IntN(3)
		rs := make([]Range, d)
		for l := range rs {
			a, b := rnd.Float64(), rnd.Float64()
			if a > b {
				a, b = b, a
			}
			if a == 0 || a == b {
				a, b = 0.2, 0.7
			}
			rs[l] = Range{a, b}
		}
		alpha := 1.1 + 20*rnd.Float64()
		eps := 3 * rnd.Float64()
		lb, ub, err := RangeBounds(rs, k, alpha, eps)
		if err != nil {
			t.Fatal(err)
		}
		if !(lb >= 0 && lb <= ub*(1+1e-14) && ub <= eps) {
			t.Errorf("%v k=%d alpha=%v eps=%v: lb %v, ub %v", rs, k, alpha, eps, lb, ub)
		}
		perm := append([]Range(nil), rs...)
		rnd.Shuffle(d, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		lb2, ub2, _ := RangeBounds(perm, k, alpha, eps)
		if !scalar.EqualWithinRel(lb, lb2, 1e-12) || !scalar.EqualWithinRel(ub, ub2, 1e-13) {
			t.Errorf("%v: permuted (%v, %v) vs (%v, %v)", rs, lb2, ub2, lb, ub)
		}
	}
}

func TestRangeLowerSize(t *testing.T) {
	t.Parallel()
	rs := make([]Range, 21) // 2^21 outputs: one count per distinct range
	for l := range rs {
		rs[l] = Range{0.1 + 0.01*float64(l), 0.9}
	}
	if _, _, err := RangeLower(rs, 1, 5, 1); !errors.Is(err, ErrRangeSize) {
		t.Errorf("2^21 outputs: error %v, want ErrRangeSize", err)
	}
	// 10000 equal ranges are one group of 10001 outputs.
	if _, _, err := RangeLower(Symmetric(10000, 0.1), 1, 5, 1); err != nil {
		t.Errorf("10000 equal ranges: %v", err)
	}
}

func ExampleRangeBounds() {
	// theta_1 in [0.1, 0.9] and theta_2 in [0.2, 0.6]; 2 samples; an
	// (alpha = 5, eps = 1)-RDP mechanism.
	ranges := []Range{{0.1, 0.9}, {0.2, 0.6}}
	lb, ub, err := RangeBounds(ranges, 2, 5, 1)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%0.4g <= Post <= %0.4g\n", lb, ub)
	// Output:
	// 0.9304 <= Post <= 1
}
