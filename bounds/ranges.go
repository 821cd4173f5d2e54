package bounds

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/bernamp/bernamp/check"
	"github.com/bernamp/bernamp/internal/floatbits"
	"github.com/bernamp/bernamp/internal/logspace"
)

// Range is the interval [Lo, Hi] of one coordinate theta_l of the private
// parameter, 0 < Lo < Hi < 1. The paper's setting [c, 1-c]^d is d copies of
// Range{c, 1-c} (see Symmetric); its Lemma 1 allows any product of
// intervals, and the corners become {Lo_l, Hi_l}.
type Range struct {
	Lo, Hi float64 // ends of the interval, 0 < Lo < Hi < 1
}

// Check returns an error unless 0 < Lo < Hi < 1 (NaN and ±Inf are
// rejected).
func (r Range) Check() error {
	if !(r.Lo > 0 && r.Lo < 1) || !(r.Hi > 0 && r.Hi < 1) {
		return fmt.Errorf("range %v:%v must lie in (0, 1)", r.Lo, r.Hi)
	}
	if !(r.Lo < r.Hi) {
		return fmt.Errorf("range %v:%v must have lo < hi", r.Lo, r.Hi)
	}
	return nil
}

// CheckRanges returns an error unless ranges is not empty and every range
// passes Check; the message names the first bad coordinate (numbered from
// 1).
func CheckRanges(ranges []Range) error {
	check.Counts.Checks.Add(1)
	return checkRanges(ranges)
}

func checkRanges(ranges []Range) error {
	if len(ranges) == 0 {
		return errors.New("ranges: need at least one coordinate")
	}
	for l, r := range ranges {
		if err := r.Check(); err != nil {
			return fmt.Errorf("coordinate %d: %w", l+1, err)
		}
	}
	return nil
}

// Symmetric returns d copies of Range{c, 1-c}, the paper's [c, 1-c]^d. Hi is
// 1-c rounded to float64; where that rounding is not exact (c not a multiple
// of 2^-53, e.g. c = 1e-6), 1-Hi differs from c by up to 2^-54 and the range
// is not exactly symmetric: results then differ from those of the c-based
// functions by about 2^-54/c relative at most (3e-12 at c = 1e-6). Use c = 1
// - (1 - c) for an exactly symmetric range. It panics unless d >= 1 and 0 <
// c < 1/2.
func Symmetric(d int, c float64) []Range {
	if d < 1 {
		panic(badDK)
	}
	if !(c > 0 && c < 0.5) {
		panic(badC)
	}
	r := make([]Range, d)
	for l := range r {
		r[l] = Range{c, 1 - c}
	}
	return r
}

// BernoulliRenyi returns the Rényi divergence of order alpha between
// Bernoulli(a) and Bernoulli(b), in nats:
//
//	R_alpha(Bern(a) || Bern(b)) = log( a^alpha b^(1-alpha) + (1-a)^alpha (1-b)^(1-alpha) ) / (alpha-1).
//
// BernoulliRenyi(alpha, p, 1-p) = r_alpha(p) (Renyi). With rho_1 = a/b and
// rho_2 = (1-a)/(1-b), the sum inside the log is 1 + b h(log rho_1) + (1-b)
// h(log rho_2), h(L) = e^(alpha L) - 1 - alpha (e^L - 1) >= 0 (the terms
// alpha (rho - 1) weighted by b and 1-b cancel exactly), so the result keeps
// its relative accuracy, a few ulps, when a is close to b (log rho_1 and
// log rho_2 come from logRatio and logRatioC). It panics unless a, b are in
// (0, 1) and alpha > 1 is finite.
func BernoulliRenyi(alpha, a, b float64) float64 {
	check.Counts.Checks.Add(1)
	checkAlpha(alpha)
	if !(a > 0 && a < 1 && b > 0 && b < 1) {
		panic(badBern)
	}
	return bernoulliRenyi(alpha, a, b)
}

// bernoulliRenyi is BernoulliRenyi without the checks.
func bernoulliRenyi(alpha, a, b float64) float64 {
	if a == b {
		return 0
	}
	s := logspace.Add(math.Log(b)+logH(logRatio(a, b), alpha), math.Log1p(-b)+logH(logRatioC(a, b), alpha))
	return logspace.Softplus(s) / (alpha - 1)
}

// RangeAsymptote returns the largest divergence between the outputs of two
// points of the box prod_l [Lo_l, Hi_l] under B_k,
//
//	U_inf = k sum_l max( R_alpha(Bern(Hi_l) || Bern(Lo_l)), R_alpha(Bern(Lo_l) || Bern(Hi_l)) ),
//
// rounded up, so U_inf is an upper bound on the amplified level for every
// eps. Why: B_k(theta) is a product of k d independent coins, so the
// divergence between B_k(theta) and B_k(theta') is k sum_l R_alpha(Bern(theta_l)
// || Bern(theta'_l)); Bern(theta) is affine in theta, so each term is
// jointly quasi-convex in (theta_l, theta'_l) like R_alpha itself, and over
// [Lo_l, Hi_l]^2 it peaks at a vertex; the vertices with theta_l = theta'_l
// give 0. For any P and Q on the box, writing them as
// mixtures over a coupling of the two measures, P = sum pi(z,z') delta_z and
// Q = sum pi(z,z') delta_z', joint quasi-convexity of R_alpha gives
// R_alpha(B_k P || B_k Q) <= max over the coupled pairs <= U_inf. For
// Symmetric(d, c) both directions equal r_alpha(c) and U_inf = d k
// r_alpha(c), the asymptote of UpperBound.
//
// The sum of d nonnegative terms, each with a relative error of a few ulps,
// is raised by asymptoteUlps ulps plus 4e-15 relative (asymptotePad) to stay
// above its exact value. It panics on invalid arguments (see RangeUpperBound
// for the checked form).
func RangeAsymptote(ranges []Range, k int, alpha float64) float64 {
	check.Counts.Checks.Add(1)
	if err := checkRanges(ranges); err != nil {
		panic(badRanges)
	}
	if k < 1 {
		panic(badDK)
	}
	checkAlpha(alpha)
	return rangeAsymptote(ranges, k, alpha)
}

// rangeAsymptote is RangeAsymptote without the checks.
func rangeAsymptote(ranges []Range, k int, alpha float64) float64 {
	var sum float64
	for _, r := range ranges {
		sum += math.Max(bernoulliRenyi(alpha, r.Hi, r.Lo), bernoulliRenyi(alpha, r.Lo, r.Hi))
	}
	return floatbits.Up(float64(k)*sum*(1+asymptotePad), asymptoteUlps)
}

// Rounding allowance of RangeAsymptote, about 7.5e-15 relative in all: the
// largest error measured against the mpmath references (TestRangeReference)
// is 1.6e-15, from BernoulliRenyi (a few ulps) and the sum of positive
// terms.
const (
	asymptoteUlps = 16
	asymptotePad  = 4e-15
)

// RangeUpperBound returns the closed-form upper bound on the amplified level
// for per-coordinate ranges,
//
//	Post <= min(eps, U_inf),
//
// with PostProcessing = eps (data processing) and Asymptote = U_inf
// (RangeAsymptote, rounded up). For Symmetric(d, c) it is UpperBound(d, k,
// c, alpha, eps) up to the rounding allowance (about 1e-14 relative). It
// returns an error for invalid ranges, k < 1, alpha not > 1 and finite, or
// eps not >= 0 and finite.
func RangeUpperBound(ranges []Range, k int, alpha, eps float64) (Upper, error) {
	p, err := NewRangePoint(ranges, k, alpha, eps)
	if err != nil {
		return Upper{}, fmt.Errorf("bounds.RangeUpperBound: %w", err)
	}
	return p.Upper(), nil
}

// RangePoint is the ranges counterpart of check.ValidPoint: per-coordinate
// ranges, k, alpha and eps that passed CheckRanges, check.K, check.Alpha and
// check.Eps once, where they entered. Only NewRangePoint makes one, so its
// methods (and the functions of packages solver and bernamp that take one)
// do not check them again. The ranges are a private copy. The zero
// RangePoint is not a point (IsZero); its methods panic.
type RangePoint struct {
	ranges     []Range
	k          int
	alpha, eps float64
}

// NewRangePoint returns the point, or the first error of CheckRanges,
// check.K, check.Alpha and check.Eps, in that order. (k, alpha and eps are
// checked as the point d = 1, c = 1/4 of check.NewValidPoint, whose d and c
// always pass: one implementation of the checks and their messages.)
func NewRangePoint(ranges []Range, k int, alpha, eps float64) (RangePoint, error) {
	if err := checkRanges(ranges); err != nil {
		return RangePoint{}, err
	}
	if _, err := check.NewValidPoint(1, k, 0.25, alpha, eps); err != nil {
		return RangePoint{}, err
	}
	return RangePoint{slices.Clone(ranges), k, alpha, eps}, nil
}

// Ranges returns a copy of the ranges, one per coordinate.
func (p RangePoint) Ranges() []Range { return slices.Clone(p.ranges) }

// D returns the number of coordinates, len(Ranges()).
func (p RangePoint) D() int { return len(p.ranges) }

// K returns the number k of Bernoulli samples, >= 1.
func (p RangePoint) K() int { return p.k }

// Alpha returns the Rényi order alpha, > 1 and finite.
func (p RangePoint) Alpha() float64 { return p.alpha }

// Eps returns the RDP level eps at order alpha, in nats, >= 0 and finite.
func (p RangePoint) Eps() float64 { return p.eps }

// IsZero reports whether p is the zero RangePoint, which NewRangePoint
// never returns.
func (p RangePoint) IsZero() bool { return p.ranges == nil }

func (p RangePoint) must() {
	if p.IsZero() {
		panic(badZeroRanges)
	}
}

// Upper returns RangeUpperBound at p.
func (p RangePoint) Upper() Upper {
	p.must()
	return Upper{PostProcessing: p.eps, Asymptote: rangeAsymptote(p.ranges, p.k, p.alpha)}
}

// Lower returns RangeLower at p; the error, if any, wraps ErrRangeSize.
func (p RangePoint) Lower() (lb float64, aHi []bool, err error) {
	p.must()
	return rangeLower(p.ranges, p.k, p.alpha, p.eps)
}

// Pair returns PairAt's mass p = P(alpha, eps) of the Theorem 4 pair and
// its bound div on r_alpha(p) <= eps at p's alpha and eps.
func (p RangePoint) Pair() (mass, div float64) {
	p.must()
	return pair(p.alpha, p.eps)
}

// Logit returns Logit(alpha, eps) at p's alpha and eps.
func (p RangePoint) Logit() float64 {
	p.must()
	return logit(p.alpha, p.eps)
}

// Coin returns k R_alpha(Bern(Lo_l) || Bern(Hi_l)) and k R_alpha(Bern(Hi_l)
// || Bern(Lo_l)) (BernoulliRenyi) for coordinate l of p, the divergences
// between the outputs of its two ends.
func (p RangePoint) Coin(l int) (loHi, hiLo float64) {
	p.must()
	r, k := p.ranges[l], float64(p.k)
	return k * bernoulliRenyi(p.alpha, r.Lo, r.Hi), k * bernoulliRenyi(p.alpha, r.Hi, r.Lo)
}

// MaxRangeOutputs is the largest number of outputs RangeLower evaluates:
// the Theorem 4 pair on one orientation of the corners has prod_g (k d_g +
// 1) outputs, d_g the number of coordinates sharing the g-th distinct range
// (the per-group count of ones is a sufficient statistic). Larger problems
// are rejected with ErrRangeSize. Orientations beyond a = (Lo_l) are tried
// only while the total stays within it. The cost is about 0.7 µs per output
// (both directions), so at most about 0.75 s.
const MaxRangeOutputs = 1 << 20

// ErrRangeSize is wrapped by the error of RangeLower when the pair has more
// than MaxRangeOutputs outputs.
var ErrRangeSize = errors.New("bounds: ranges problem too large")

// RangeLower returns a lower bound on the amplified level for per-coordinate
// ranges: the Theorem 4 pair on two antipodal corners a and b (b_l is the
// end of range l that a_l is not),
//
//	P = p delta_a + (1-p) delta_b,  Q = (1-p) delta_a + p delta_b,  r_alpha(p) = eps,
//
// with p = P(alpha, eps), so R_alpha(P||Q) = R_alpha(Q||P) = r_alpha(p) <= eps
// whatever the corners (the pair is feasible), and its value is
//
//	LB = R_alpha(B_k P || B_k Q) = log( sum_m Q_m (P_m/Q_m)^alpha ) / (alpha-1),
//	P_m = p A_m + (1-p) B_m,  Q_m = (1-p) A_m + p B_m,
//
// A and B the output distributions of a and b. Outputs m are the counts of
// ones per group of coordinates sharing a range and an orientation, whose
// distributions are products of binomials. The sum is formed like Lower's:
// f - 1 = sum_m Q_m h(log(P_m/Q_m)) with h >= 0, and log(P_m/Q_m) is a
// function of the log-likelihood ratio s_m = log(B_m/A_m), a sum of per-group
// terms m_g log(b_g/a_g) + (n_g - m_g) log((1-b_g)/(1-a_g)).
//
// The orientation a = (Lo_l) comes first; swapping a and b gives R_alpha(B_k
// Q || B_k P), also computed. When the total work allows (the sum over
// orientation classes of their outputs at most MaxRangeOutputs), every
// orientation is tried up to permutations of coordinates with equal ranges,
// prod_g (d_g + 1) classes, and the largest value is returned: a maximum of
// valid lower bounds is one. Otherwise only a = (Lo_l) and its swap are
// tried. aHi reports the corner a of the returned pair: aHi[l] means a_l =
// Hi_l (P puts mass p on a).
//
// For Symmetric(d, c) every orientation gives Lower(d, k, c, alpha, eps)
// (to about 1e-14 relative). The relative error is about 1e-14 (see
// testdata/ref/ranges.csv). RangeLower(.., 0) = 0. It returns an error for
// invalid arguments, and one wrapping ErrRangeSize when even one orientation
// has more than MaxRangeOutputs outputs.
func RangeLower(ranges []Range, k int, alpha, eps float64) (lb float64, aHi []bool, err error) {
	p, err := NewRangePoint(ranges, k, alpha, eps)
	if err != nil {
		return 0, nil, fmt.Errorf("bounds.RangeLower: %w", err)
	}
	return p.Lower()
}

// rangeLower is RangeLower without the checks.
func rangeLower(ranges []Range, k int, alpha, eps float64) (lb float64, aHi []bool, err error) {
	groups := rangeGroups(ranges)
	base := 1.0 // outputs of the orientation a = (Lo_l)
	all := 1.0  // outputs summed over every orientation class
	for _, g := range groups {
		n := float64(len(g.coords))
		base *= float64(k)*n + 1
		var s float64
		for j := 0.0; j <= n; j++ {
			s += (float64(k)*j + 1) * (float64(k)*(n-j) + 1)
		}
		all *= s
	}
	if base > MaxRangeOutputs {
		return 0, nil, fmt.Errorf("bounds.RangeLower: %w: the Theorem 4 pair has %.3g outputs, more than %d", ErrRangeSize, base, MaxRangeOutputs)
	}
	aHi = make([]bool, len(ranges))
	if eps == 0 {
		return 0, aHi, nil
	}
	D := logit(alpha, eps)
	// flips[g] = number of the group's coordinates on which a takes Hi (the
	// first ones, by the permutation symmetry within a group).
	flips := make([]int, len(groups))
	best, bestFlips, bestSwap := math.Inf(-1), make([]int, len(groups)), false
	try := func() {
		var subs []subgroup
		for g, gr := range groups {
			n := len(gr.coords)
			if f := flips[g]; f > 0 {
				subs = append(subs, subgroup{a: gr.r.Hi, b: gr.r.Lo, n: k * f})
			}
			if f := flips[g]; f < n {
				subs = append(subs, subgroup{a: gr.r.Lo, b: gr.r.Hi, n: k * (n - f)})
			}
		}
		fwd, bwd := antipodalPair(subs, alpha, D)
		// A candidate replaces the best only when clearly larger, so that
		// orientations equal up to rounding (all of them for symmetric
		// ranges) keep the first, a = (Lo_l).
		if fwd > best*(1+tieRel) {
			best, bestSwap = fwd, false
			copy(bestFlips, flips)
		}
		if bwd > best*(1+tieRel) {
			best, bestSwap = bwd, true
			copy(bestFlips, flips)
		}
	}
	try()
	if all <= MaxRangeOutputs {
		// Odometer over flips, skipping the all-zero start.
		for {
			g := 0
			for g < len(groups) && flips[g] == len(groups[g].coords) {
				flips[g] = 0
				g++
			}
			if g == len(groups) {
				break
			}
			flips[g]++
			try()
		}
	}
	for g, gr := range groups {
		for i, l := range gr.coords {
			aHi[l] = (i < bestFlips[g]) != bestSwap
		}
	}
	return best, aHi, nil
}

// tieRel is the relative margin by which an orientation must beat the best
// so far in RangeLower, above the rounding error of the pair's value.
const tieRel = 1e-13

// RangeBounds returns the closed-form bounds for per-coordinate ranges: lb
// from RangeLower (a lower bound, the value of a feasible pair) and ub =
// min(eps, U_inf) from RangeUpperBound (an upper bound, rounded up), so lb
// <= Post <= ub. Errors are those of RangeLower.
func RangeBounds(ranges []Range, k int, alpha, eps float64) (lb, ub float64, err error) {
	p, err := NewRangePoint(ranges, k, alpha, eps)
	if err != nil {
		return 0, 0, fmt.Errorf("bounds.RangeUpperBound: %w", err)
	}
	lb, _, err = p.Lower()
	if err != nil {
		return 0, 0, err
	}
	return lb, p.Upper().Value(), nil
}

// rangeGroup is a set of coordinates sharing one range, in input order.
type rangeGroup struct {
	r      Range
	coords []int
}

// rangeGroups groups the coordinates by equal range (exact float equality),
// groups ordered by first appearance.
func rangeGroups(ranges []Range) []rangeGroup {
	var groups []rangeGroup
	idx := map[Range]int{}
	for l, r := range ranges {
		g, ok := idx[r]
		if !ok {
			g = len(groups)
			idx[r] = g
			groups = append(groups, rangeGroup{r: r})
		}
		groups[g].coords = append(groups[g].coords, l)
	}
	return groups
}

// subgroup is n coin flips on which corner a has bias a and corner b has
// bias b.
type subgroup struct {
	a, b float64
	n    int
}

// antipodalPair returns R_alpha(B P || B Q) and R_alpha(B Q || B P) for the
// Theorem 4 pair with logit D = log((1-p)/p) on the corners described by
// subs: A_m = prod_i Binomial(n_i, a_i)(m_i), B_m likewise with b_i.
//
// With s = log(B_m/A_m) >= 0 and w = e^-s <= 1, dividing by B_m gives
// P_m/Q_m = ((1-p) + p w)/(p + (1-p) w) = 1 + (1-2p)(1-w)/(p + (1-p) w) >= 1,
// and s < 0 gives the reciprocal of the same expression at -s. Then
//
//	f_PQ - 1 = sum_m Q_m h(L_m),  f_QP - 1 = sum_m P_m h(-L_m),  L_m = log(P_m/Q_m),
//
// with h(L) = e^(alpha L) - 1 - alpha (e^L - 1) >= 0 (Lower's form), summed
// in log space.
func antipodalPair(subs []subgroup, alpha, D float64) (fwd, bwd float64) {
	logp, log1mp := -logspace.Softplus(D), -logspace.Softplus(-D)
	logTanh := math.Log(math.Tanh(D / 2)) // log(1-2p)
	G := len(subs)
	lA, lB, ls := make([][]float64, G), make([][]float64, G), make([][]float64, G)
	for i, sg := range subs {
		n := sg.n
		l1, l0 := logRatio(sg.b, sg.a), logRatioC(sg.b, sg.a)
		lA[i], lB[i], ls[i] = make([]float64, n+1), make([]float64, n+1), make([]float64, n+1)
		for m := 0; m <= n; m++ {
			lA[i][m] = logspace.BinomPMF(m, n, sg.a, 1-sg.a)
			lB[i][m] = logspace.BinomPMF(m, n, sg.b, 1-sg.b)
			ls[i][m] = float64(m)*l1 + float64(n-m)*l0
		}
	}
	// Odometer over m with prefix sums: pA[i+1] = pA[i] + lA[i][m_i].
	m := make([]int, G)
	pA, pB, ps := make([]float64, G+1), make([]float64, G+1), make([]float64, G+1)
	for i := range G {
		pA[i+1], pB[i+1], ps[i+1] = pA[i]+lA[i][0], pB[i]+lB[i][0], ps[i]+ls[i][0]
	}
	accF, accB := logspace.NewAcc(), logspace.NewAcc()
	for {
		la, lb, s := pA[G], pB[G], ps[G]
		u := math.Abs(s)
		logDen := logspace.Add(logp, log1mp-u)
		L := logspace.Softplus(logTanh + logspace.OneMinusExp(-u) - logDen)
		if s < 0 {
			L = -L
		}
		if L != 0 {
			logQ := logspace.Add(log1mp+la, logp+lb)
			logP := logspace.Add(logp+la, log1mp+lb)
			accF.Add(logQ + logH(L, alpha))
			accB.Add(logP + logH(-L, alpha))
		}
		// Advance the odometer, last subgroup fastest.
		i := G - 1
		for i >= 0 && m[i] == subs[i].n {
			m[i] = 0
			i--
		}
		if i < 0 {
			break
		}
		m[i]++
		for j := i; j < G; j++ {
			pA[j+1], pB[j+1], ps[j+1] = pA[j]+lA[j][m[j]], pB[j]+lB[j][m[j]], ps[j]+ls[j][m[j]]
		}
	}
	return logspace.Softplus(accF.Log()) / (alpha - 1), logspace.Softplus(accB.Log()) / (alpha - 1)
}

// logRatio returns log(x/y) for x, y in (0, 1) to a few ulps relative:
// within a factor 2, log1p((x-y)/y), where x-y is exact (Sterbenz);
// otherwise log x - log y, whose magnitude is at least log 2. (log1p alone
// would lose digits for a ratio near 0, where (x-y)/y is near -1: at x/y =
// 1e-6 a relative error 1e-10.)
func logRatio(x, y float64) float64 {
	if x <= 2*y && y <= 2*x {
		return math.Log1p((x - y) / y)
	}
	return math.Log(x) - math.Log(y)
}

// logRatioC returns log((1-x)/(1-y)) for x, y in (0, 1), as logRatio does:
// within a factor 2, log1p((y-x)/(1-y)), whose argument is in [-1/2, 1] and
// has a relative error of about an ulp; otherwise log1p(-x) - log1p(-y).
func logRatioC(x, y float64) float64 {
	cx, cy := 1-x, 1-y
	if cx <= 2*cy && cy <= 2*cx {
		return math.Log1p((y - x) / cy)
	}
	return math.Log1p(-x) - math.Log1p(-y)
}

const (
	badBern   = "bounds: Bernoulli parameters must be in (0, 1)"
	badRanges = "bounds: invalid ranges or k"

	badZeroRanges = "bounds: the zero RangePoint is not a point (make one with NewRangePoint)"
)
