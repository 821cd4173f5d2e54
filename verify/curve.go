package verify

import "math/big"

// The diagonal-curvature bound. On the diagonal every term of F has u_j =
// v_j, and g(u, u) = u, so
//
//	F(p, p) = p SB + (1-p) SB',   SB = sum_j B_j, SB' = sum_j B'_j,
//	G(p, p) = G^T(p, p) = p + (1-p) = 1,
//
// and psi(p, p) = f (SB' + p (SB - SB')) - k1 - k2, linear in p. With
// d/dv g(u, v) = (1-a) (u/v)^a, which is 1-a at u = v, and d/dq v_j = B_j
// - B'_j, psi_q(p, p) = f (1-a) (SB - SB'): the derivatives of G and G^T
// in q cancel on the diagonal ((1-a) - (1-a) and a - a). The terms are
// mirror-symmetric (B'_j = B_(n-j)), so SB = SB' and psi is constant on
// the diagonal; the bound does not assume it and encloses both sums from
// the terms (diagSums).
//
// Taylor's formula in q from (p, p) to (p, q), with Lagrange's remainder
// at some xi between p and q:
//
//	psi(p, q) = psi(p, p) + (q - p) psi_q(p, p) + (q - p)^2/2 psi_qq(p, xi).
//
// For a finite tile [s1, s2] x [t1, t2] in logits the segment from (p, p)
// to (p, q) lies in B' = [s1, s2] x [min(s1, t1), max(s2, t2)] (the
// logistic is increasing), so with M >= psi_qq over B' (derivs of kind
// (0, 2), intersected with pairedThird's enclosure when that helps), q - p in [-dm, dp]
// over the tile and P = [p1, p2],
//
//	psi <= max_P psi(p, p) + max ((q - p) psi_q(p, p)) + max(0, M) d^2/2,
//
// d = max(dm, dp), every operation rounded up. The first term is formed
// from SB, SB', f, k1 and k2 alone (no box enclosure), so that it is
// within a few ulps of the constant psi(p, p): the solver's certificates
// leave psi's diagonal value only about 1e-9 below L0 at small eps, where
// this bound closes tiles of width 1/4 and more that straddle the
// diagonal (psi_q vanishes there and psi_qq is small).

// testCurveWrong is a test hook: 1 takes M over the tile itself instead
// of B', 2 takes M instead of max(0, M) (deliberately wrong bounds, which
// tests must catch). testNoCurve: bound does not try curve.
var (
	testCurveWrong int
	testNoCurve    bool
)

// curveTall is how much taller (in logits) than the tile B' may be for
// bound to try curve: max(t2, s2) - min(t1, s1) <= curveTall (t2 - t1) +
// 1, as the solver tries its own (a tile far from the diagonal has a
// large remainder).
const curveTall = 4

// diagSums returns enclosures of SB = sum_j B_j and SB' = sum_j B'_j:
// the window's terms summed at 128 bits, rounded outward (their ends are
// float64, so the sums are within an ulp or two), plus [0, sB] and [0,
// sBp] for the terms outside the window. Computed once per problem.
func (pr *problem64) diagSums() (sb, sbp fi) {
	if !pr.diagOK {
		sum := func(xs []fi, tail float64) fi {
			lo, hi := newDown(prec), newUp(prec)
			x := new(big.Float)
			for j := pr.lo; j < pr.hi; j++ {
				lo.Add(lo, x.SetFloat64(xs[j].lo))
				hi.Add(hi, x.SetFloat64(xs[j].hi))
			}
			hi.Add(hi, x.SetFloat64(tail))
			return fi{floatDown(lo), floatUp(hi)}
		}
		pr.diagB, pr.diagBp = sum(pr.bj, pr.sB), sum(pr.bpj, pr.sBp)
		pr.diagOK = true
	}
	return pr.diagB, pr.diagBp
}

// diag returns enclosures of psi(p, p) for p in [p1.x, p2.x] and of
// psi_q(p, p) (p1 <= p2): f (SB' + p (SB - SB')) - k1 - k2 and f (1-a)
// (SB - SB'), in the scaled units (times e^-sigma).
func (pr *problem64) diag(p1, p2 coord64) (value, slope fi) {
	sb, sbp := pr.diagSums()
	dsum := sb.sub(sbp)
	es := pt64(-pr.sigma).exp()
	p := fi{p1.x.lo, p2.x.hi}
	value = pr.f.mul(sbp.add(p.mul(dsum))).sub(pr.k1).sub(pr.k2).mul(es)
	slope = pr.f.mul(pr.oma).mul(dsum).mul(es)
	return value, slope
}

// curve returns the diagonal-curvature bound of psi on the finite tile
// with corners p1 <= p2, q1 <= q2, with r1 and r2 the coordinates of
// min(s1, t1) and max(s2, t2) (B' is [p1, p2] x [r1, r2]). M is
// derivsGT's; when the bound is then above stop and M > 0, it is
// intersected with pairedThird's (which costs about twice as much) and
// the bound formed again.
func (pr *problem64) curve(p1, p2, q1, q2, r1, r2 coord64, stop float64) float64 {
	value, slope := pr.diag(p1, p2)
	// q - p over the tile: at most q2 - p1 = (1-p1) - (1-q2), at least
	// -(p2 - q1) = -((1-q1) - (1-p2)); each from x and from 1 - x, the
	// least kept (the complements keep their precision near 1).
	dp := min(up(q2.x.hi-p1.x.lo), up(p1.xb.hi-q2.xb.lo))
	dm := min(up(p2.x.hi-q1.x.lo), up(q1.xb.hi-p2.xb.lo))
	d := max(dp, dm, 0)
	lin := fi{-dm, dp}.mul(slope).hi
	a1, a2 := r1, r2
	if testCurveWrong == 1 {
		a1, a2 = q1, q2
	}
	base := up(value.hi + lin)
	at := func(m float64) float64 {
		if testCurveWrong != 2 {
			m = max(m, 0)
		}
		ub := up(base + pt64(m).mul(pt64(d).sqr()).mul(pt64(0.5)).hi)
		if ub != ub {
			panic(arithError("NaN bound"))
		}
		return ub
	}
	kinds := [][2]int{{0, 2}}
	r, gt := pr.derivsGT(p1, p2, a1, a2, kinds)
	ub := at(r[0].hi)
	if ub <= stop || r[0].hi <= 0 {
		return ub
	}
	for _, x := range pr.pairedThird(p1, p2, a1, a2, kinds, gt) {
		ub = min(ub, at(min(r[0].hi, x.hi)))
	}
	return ub
}

// curveBox returns the coordinates of min(s1, t1) and max(s2, t2) of the
// finite tile t with corners p1, p2, q1, q2, and whether B' is at most
// curveTall times as tall as t plus one logit (bound tries curve only
// then).
func curveBox(t box, p1, p2, q1, q2 coord64) (r1, r2 coord64, ok bool) {
	r1, r2 = q1, q2
	lo, hi := t.t1, t.t2
	if cmpEnd(t.s1, t.t1) < 0 {
		r1, lo = p1, t.s1
	}
	if cmpEnd(t.s2, t.t2) > 0 {
		r2, hi = p2, t.s2
	}
	h := endFloat(hi) - endFloat(lo)
	return r1, r2, h <= curveTall*(endFloat(t.t2)-endFloat(t.t1))+1
}

// endFloat returns a finite end as float64 (nearest; for the choice of
// bounds only).
func endFloat(e end) float64 {
	if e.exact {
		return e.f
	}
	f, _ := e.r.Float64()
	return f
}
