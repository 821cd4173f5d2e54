package certify

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/bernamp/bernamp/bounds"
)

// The group model's F equals the plain sum over every output bit vector
// of g(p A_x + (1-p) B_x, q A_x + (1-q) B_x), bit i being 1 with
// probability c_i under A and 1-c_i under B.
func TestGroupModelMatchesDirectSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		groups []bitGroup
		alpha  float64
	}{
		{[]bitGroup{{2, 0.1}, {1, 0.3}}, 3},
		{[]bitGroup{{3, 0.05}, {2, 0.2}, {1, 0.4}}, 1.5},
		{[]bitGroup{{2, 0.1}, {2, 0.25}}, 20},
		{[]bitGroup{{1, 0.2}, {1, 0.3}, {2, 0.45}}, 7},
		{[]bitGroup{{1, 0.2}, {2, 1.0 / 3}}, 4}, // log-odds log 4 = 2 log 2: ties between mirror pairs
	} {
		var cs []float64
		for _, g := range tc.groups {
			for range g.n {
				cs = append(cs, g.c)
			}
		}
		m := newGroupModel(tc.groups, tc.alpha)
		for range 20 {
			s, u := 6*rng.Float64()-3, 6*rng.Float64()-3
			p, q := 1/(1+math.Exp(-s)), 1/(1+math.Exp(-u))
			want := 0.0
			for x := 0; x < 1<<len(cs); x++ {
				a, b := 1.0, 1.0
				for i, c := range cs {
					if x>>i&1 == 1 {
						a, b = a*c, b*(1-c)
					} else {
						a, b = a*(1-c), b*c
					}
				}
				pu, qv := p*a+(1-p)*b, q*a+(1-q)*b
				want += math.Pow(pu, tc.alpha) * math.Pow(qv, 1-tc.alpha)
			}
			pt := m.eval(fromLogit(s), fromLogit(u), 0, false)
			f := pt.f[0][kVal]
			f.add(pt.f[1][kVal].log(), 0)
			if got := math.Exp(f.log()); math.Abs(got-want) > 1e-12*want {
				t.Errorf("groups %v alpha %v at (%v, %v): model %v, direct sum %v", tc.groups, tc.alpha, p, q, got, want)
			}
		}
	}
}

// At the Theorem 4 pair the group model's value is bounds.RangeLower's
// (an independent computation over products of binomials), and the
// certificate proves Post = LB at symmetric ranges with distinct c_l; at
// equal c_l it is Certify at n = d k.
func TestCertifyRanges(t *testing.T) {
	ctx := context.Background()
	sym := func(cs ...float64) []bounds.Range {
		var r []bounds.Range
		for _, c := range cs {
			r = append(r, bounds.Range{Lo: c, Hi: 1 - c})
		}
		return r
	}
	for _, tc := range []struct {
		ranges     []bounds.Range
		k          int
		alpha, eps float64
	}{
		{sym(0.1, 0.3), 1, 5, 1},
		{sym(0.1, 0.3), 2, 5, 0.5},
		{sym(0.05, 0.2, 0.4), 1, 2, 2},
		{sym(0.1, 0.2, 0.2), 3, 10, 0.3},
		{sym(0.01, 0.3), 2, 1.5, 0.1},
	} {
		lb, _, err := bounds.RangeLower(tc.ranges, tc.k, tc.alpha, tc.eps)
		if err != nil {
			t.Fatal(err)
		}
		pr := newProblemModel(newGroupModel(symmetricGroups(tc.ranges, tc.k), tc.alpha), tc.alpha, tc.eps, bounds.Logit(tc.alpha, tc.eps), DefaultTol)
		if v := pr.logU / (tc.alpha - 1); math.Abs(v-lb) > 1e-12*(1+lb) {
			t.Errorf("%v k %d: log U/(alpha-1) = %v, RangeLower %v", tc.ranges, tc.k, v, lb)
		}
		r, err := CertifyRanges(ctx, tc.ranges, tc.k, tc.alpha, tc.eps, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != Proved || r.Upper < r.LB || r.Upper-r.LB > DefaultTol {
			t.Errorf("%v k %d alpha %v eps %v: %s by %s, upper %v, LB %v", tc.ranges, tc.k, tc.alpha, tc.eps, r.Status, r.Method, r.Upper, r.LB)
		}
	}
	// Equal c_l: Certify at n = d k.
	r, err := CertifyRanges(ctx, sym(0.1, 0.1, 0.1), 2, 5, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Certify(ctx, 6, 0.1, 5, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Upper != want.Upper || r.Boxes != want.Boxes {
		t.Errorf("equal c: upper %v in %d boxes, Certify at n = 6: %v in %d", r.Upper, r.Boxes, want.Upper, want.Boxes)
	}
	// Too many terms, bad input.
	many := sym(0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09, 0.11, 0.12, 0.13, 0.14, 0.15)
	for _, bad := range [][]bounds.Range{many, nil, {{Lo: 0.6, Hi: 0.2}}} {
		if _, err := CertifyRanges(ctx, bad, 1, 5, 1, nil); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}

// An asymmetric range is bounded through the symmetric range containing
// it: the bound is above the ranges' own Theorem 4 value and no larger
// than the closed form, and with the range made symmetric it is the same
// certificate.
func TestCertifyRangesAsymmetric(t *testing.T) {
	ctx := context.Background()
	asym := []bounds.Range{{Lo: 0.1, Hi: 0.8}, {Lo: 0.3, Hi: 0.7}}
	sym := []bounds.Range{{Lo: 0.1, Hi: 0.9}, {Lo: 0.3, Hi: 0.7}}
	a, err := CertifyRanges(ctx, asym, 2, 5, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := CertifyRanges(ctx, sym, 2, 5, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	ub, _ := bounds.RangeUpperBound(asym, 2, 5, 1)
	if !(a.LB <= a.Upper && a.Upper <= ub.Value()) || a.LB >= s.LB {
		t.Errorf("asymmetric: LB %v, upper %v, closed form %v; symmetric LB %v", a.LB, a.Upper, ub.Value(), s.LB)
	}
	if a.Upper != math.Min(s.Upper, ub.Value()) {
		t.Errorf("asymmetric upper %v, want the symmetric certificate's %v (closed form %v)", a.Upper, s.Upper, ub.Value())
	}
}
