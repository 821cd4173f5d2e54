package certify

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/bernamp/bernamp/bounds"
	"github.com/bernamp/bernamp/check"
	"github.com/bernamp/bernamp/internal/logspace"
)

// MaxRangeTerms is the largest number of terms of F that CertifyRanges
// accepts (each bound costs O(terms)): about prod_g (n_g + 1) / 2 for n_g
// bits sharing c_g.
const MaxRangeTerms = 4096

// CertifyRanges proves an upper bound on Post for per-coordinate ranges
// theta_l in [Lo_l, Hi_l] and k samples. Each range lies in the symmetric
// range [c_l, 1-c_l], c_l = min(Lo_l, 1-Hi_l), and Post only grows with the
// box, so a bound for the symmetric ranges bounds Post; both lemmas hold
// there (docs/engine.md, "Ranges"): every antipodal pair of corners gives
// the same experiment, in which the n = d k bits are independent, bit i
// being 1 with probability c_l or 1-c_l. F is then
//
//	F(p, q) = sum_x A_x [ g(p + (1-p) e_x, q + (1-q) e_x) + g(1-p + p e_x, 1-q + q e_x) ],
//
// over the count vectors x (the ones among the bits of each distinct c_l)
// with likelihood ratio e_x = B_x/A_x <= 1, one of each mirror pair, A_x
// the product of Binomial(n_g, c_g) probabilities. With every c_l equal it
// is Certify at n = d k, c. The Result's LB is bounds.RangeLower of the
// given ranges (below Post), Upper is the proved bound capped by
// bounds.RangeUpperBound's, C is the smallest c_l and N is d k; Proved
// means Upper - LB <= tol, which needs the ranges symmetric. With several
// c_l, Groups are the (n_g, c_g) and Settings.Tiling keeps the tiling, so
// that Result.File exports the ranges certificate (certfile.KindRanges)
// of exactly this proof; with every c_l equal the run is Certify's and
// the file its pieces certificate. Errors: invalid input
// (wrapping ErrInput) or more than MaxRangeTerms terms (wrapping ErrInput).
func CertifyRanges(ctx context.Context, ranges []bounds.Range, k int, alpha, eps float64, s *Settings) (r Result, err error) {
	for _, err := range []error{bounds.CheckRanges(ranges), check.K(k), check.Alpha(alpha), check.Eps(eps)} {
		if err != nil {
			return Result{}, fmt.Errorf("%w: %v", ErrInput, err)
		}
	}
	tol, maxBoxes := DefaultTol, DefaultMaxBoxes
	if s != nil && s.Tol != 0 {
		tol = s.Tol
	}
	if s != nil && s.MaxBoxes != 0 {
		maxBoxes = s.MaxBoxes
	}
	if !(tol > 0) || math.IsInf(tol, 1) {
		return Result{}, fmt.Errorf("%w: tol is %v, must be > 0 and finite", ErrInput, tol)
	}
	start := time.Now()
	groups := symmetricGroups(ranges, k)
	lb, _, err := bounds.RangeLower(ranges, k, alpha, eps)
	if err != nil {
		return Result{}, fmt.Errorf("%w: %v", ErrInput, err)
	}
	u, err := bounds.RangeUpperBound(ranges, k, alpha, eps)
	if err != nil {
		return Result{}, fmt.Errorf("%w: %v", ErrInput, err)
	}
	if len(groups) == 1 {
		r, err = Certify(ctx, groups[0].n, groups[0].c, alpha, eps, s)
		if err != nil {
			return r, err
		}
		return rangeResult(r, lb, u.Value(), tol), nil
	}
	terms := 1.0
	for _, g := range groups {
		terms *= float64(g.n + 1)
	}
	if terms/2 > MaxRangeTerms {
		return Result{}, fmt.Errorf("%w: the ranges' F has about %.3g terms, more than %d", ErrInput, terms/2, MaxRangeTerms)
	}
	n := 0
	for _, g := range groups {
		n += g.n
	}
	r = Result{N: n, C: groups[0].c, Alpha: alpha, Eps: eps, LB: lb, Upper: u.Value(), Status: Open,
		Method: MethodNone, PStar: bounds.P(alpha, eps)}
	defer func() { r.Seconds = time.Since(start).Seconds() }()
	if r.Upper-r.LB <= tol {
		r.Status, r.Method = Proved, MethodClosed
		return r, nil
	}
	for _, g := range groups {
		r.Groups = append(r.Groups, Group{N: g.n, C: g.c})
	}
	pr := newProblemModel(newGroupModel(groups, alpha), alpha, eps, bounds.Logit(alpha, eps), tol)
	r.L0, r.L1, r.L2, r.Slack = pr.l0, pr.k1, pr.k2, pr.tau
	r.LogU = pr.logU
	pr.tiling = s != nil && s.Tiling
	pr.prove(ctx, &r, maxBoxes)
	if r.Upper-r.LB <= tol {
		r.Status = Proved
	}
	return r, nil
}

// rangeResult restates Certify's result at the symmetric ranges for the
// given ones: LB and the closed form are theirs.
func rangeResult(r Result, lb, ub, tol float64) Result {
	r.LB = lb
	if ub < r.Upper {
		r.Upper, r.Method, r.Tiling = ub, MethodNone, nil
	}
	r.Status = Open
	if r.Upper-r.LB <= tol {
		r.Status = Proved
	}
	return r
}

// bitGroup is n_g bits sharing c_g.
type bitGroup struct {
	n int
	c float64
}

// symmetricGroups returns the bits of the symmetric ranges containing
// ranges, grouped by c_l = min(Lo_l, 1-Hi_l) (1-Hi_l is exact for Hi_l >=
// 1/2), in increasing c.
func symmetricGroups(ranges []bounds.Range, k int) []bitGroup {
	var gs []bitGroup
	for _, r := range ranges {
		c := math.Min(r.Lo, 1-r.Hi)
		if i := slices.IndexFunc(gs, func(g bitGroup) bool { return g.c == c }); i >= 0 {
			gs[i].n += k
		} else {
			gs = append(gs, bitGroup{n: k, c: c})
		}
	}
	slices.SortFunc(gs, func(a, b bitGroup) int { return cmp.Compare(a.c, b.c) })
	return gs
}

// newGroupModel is F for independent bits in groups (see CertifyRanges):
// one term per mirror pair of count vectors x, the one with log e_x =
// -sum_g (n_g - 2 x_g) lambda_g <= 0 as computed (the mirror's sum is its
// exact negation), the self-mirror x = n/2 at half weight. lerr carries the
// errors of the sums of logs (see below).
func newGroupModel(groups []bitGroup, alpha float64) *model {
	m := &model{n: 0, alpha: alpha}
	lam := make([]float64, len(groups))
	for g, gr := range groups {
		lam[g] = logspace.LogOdds(gr.c)
		m.n += gr.n
	}
	x := make([]int, len(groups))
	for {
		v, vAbs, lw, lwAbs := 0.0, 0.0, 0.0, 0.0
		self := true
		for g, gr := range groups {
			t := float64(gr.n-2*x[g]) * lam[g]
			v += t
			vAbs += math.Abs(t)
			b := logspace.BinomPMF(x[g], gr.n, gr.c, 1-gr.c)
			lw += b
			lwAbs += math.Abs(b)
			self = self && 2*x[g] == gr.n
		}
		keep := v > 0 || self
		if v == 0 && !self {
			keep = mirrorAfter(x, groups) // one of the pair, by the order of count vectors
		}
		if keep {
			if self {
				lw -= math.Ln2
			}
			m.lw = append(m.lw, lw)
			m.le = append(m.le, -v)
			m.lom = append(m.lom, math.Log(-math.Expm1(-v)))
			// log w: a few ulps of each BinomPMF and of the sum. log e = -v:
			// each lambda_g carries a few ulps, the products and the sum
			// one each, so dv <= (ng+5) ulps of vAbs; it moves log u,
			// log v by at most dv, log g by (1 + 2 alpha) dv, and log(1-e)
			// (three times in the derivative kinds) by dv/expm1(v).
			ng := float64(len(groups))
			dv := (ng + 5) * eps64 * vAbs
			e := termUlps*eps64*(1+ng)*lwAbs + 3*(alpha+1)*dv
			if v > 0 {
				e += 3 * dv / math.Expm1(v)
			}
			m.lerr = append(m.lerr, e)
		}
		g := 0
		for g < len(groups) && x[g] == groups[g].n {
			x[g] = 0
			g++
		}
		if g == len(groups) {
			break
		}
		x[g]++
	}
	return m
}

// mirrorAfter says whether the mirror n - x of x comes after x in the
// odometer order (last group most significant).
func mirrorAfter(x []int, groups []bitGroup) bool {
	for g := len(groups) - 1; g >= 0; g-- {
		if y := groups[g].n - x[g]; y != x[g] {
			return y > x[g]
		}
	}
	return false
}
