package verify

import (
	"math"
	"math/big"
)

// The diagonal-curvature bound. On the diagonal every term of F has u_j =
// v_j, and g(u, u) = u, so
//
//	F(p, p) = p SB + (1-p) SB',   SB = sum_j B_j, SB' = sum_j B'_j,
//	G(p, p) = G^T(p, p) = p + (1-p) = 1,
//
// and psi(p, p) = f (SB' + p (SB - SB')) - k1 - k2, linear in p. With
// d/dv g(u, v) = (1-a) (u/v)^a and d/du g(u, v) = a (v/u)^(1-a), which
// are 1-a and a at u = v, and d/dq v_j = d/dp u_j = B_j - B'_j,
//
//	psi_q(p, p) = f (1-a) (SB - SB'),   psi_p(p, p) = f a (SB - SB'):
//
// the derivatives of G and G^T cancel on the diagonal ((1-a) - (1-a) and
// a - a). The terms are mirror-symmetric (B'_j = B_(n-j)), so SB = SB',
// psi is constant on the diagonal and its gradient vanishes there; the
// bound does not assume it and encloses both sums from the terms
// (diagSums).
//
// Taylor's formula in q from (p, p) to (p, q), with Lagrange's remainder
// at some xi between p and q, and in p from (q, q) to (p, q):
//
//	psi(p, q) = psi(p, p) + (q - p) psi_q(p, p) + (q - p)^2/2 psi_qq(p, xi)
//	          = psi(q, q) + (p - q) psi_p(q, q) + (p - q)^2/2 psi_pp(xi', q).
//
// For a finite tile [s1, s2] x [t1, t2] in logits, with H = [min(s1, t1),
// max(s2, t2)], the segments lie in Bq = [s1, s2] x H and Bp = H x [t1,
// t2] (the logistic is increasing). So with Mq >= psi_qq over Bq and Mp
// >= psi_pp over Bp (derivsGT, intersected with pairedThird's enclosure
// when that helps), q - p in [-dm, dp] over the tile, d = max(dm, dp), P
// = [p1, p2] and Q = [q1, q2],
//
//	psi <= max_P psi(p, p) + max ((q - p) psi_q(p, p)) + max(0, Mq) d^2/2,
//	psi <= max_Q psi(q, q) + max ((p - q) psi_p(q, q)) + max(0, Mp) d^2/2,
//
// every operation rounded up; the least is taken. psi(p, p) is formed
// from SB, SB', f, k1 and k2 alone (no box enclosure), so that it is
// within a few ulps of the constant: the solver's certificates leave
// psi's diagonal value only about 1e-9 below L0 at small eps, where this
// bound closes tiles of width 1/4 and more along the diagonal (the
// gradient vanishes there, and the second derivatives are small or
// negative).

// testCurveWrong is a test hook: 1 takes Mq and Mp over the tile itself
// instead of Bq and Bp, 2 takes M instead of max(0, M) (deliberately
// wrong bounds, which tests must catch). testNoCurve: bound does not try
// curve.
var (
	testCurveWrong int
	testNoCurve    bool
)

// curveTall and curveMargin say where bound tries curve, as the solver
// tries its own: where H is at most curveTall times the tile's wider
// side plus one logit across (far from the diagonal the remainder is
// large), and psi(p, p) is within curveMargin |L0 + Tau| of L0 + Tau
// (farther below it the Taylor forms close the tiles near the diagonal).
const (
	curveTall   = 4
	curveMargin = 1e-2
)

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

// diag returns enclosures of psi(p, p) for p in [p1.x, p2.x] (p1 <=
// p2), f (SB' + p (SB - SB')) - k1 - k2, and of f (SB - SB') (psi_q(p,
// p) is its multiple by 1-a, psi_p(p, p) by a).
func (pr *problem64) diag(p1, p2 coord64) (value, fd fi) {
	sb, sbp := pr.diagSums()
	dsum := sb.sub(sbp)
	es := pt64(-pr.sigma).exp() // f, k1 and k2 are times e^sigma
	p := fi{p1.x.lo, p2.x.hi}
	value = pr.f.mul(sbp.add(p.mul(dsum))).sub(pr.k1).sub(pr.k2).mul(es)
	return value, pr.f.mul(dsum).mul(es)
}

// curve returns the diagonal-curvature bound of psi on the finite tile
// with corners p1 <= p2, q1 <= q2, with r1 and r2 the coordinates of
// min(s1, t1) and max(s2, t2) (H). Mq and Mp are derivsGT's; when the
// bound is then above stop, each that is > 0 is intersected with
// pairedThird's (which costs about twice as much) and the bound formed
// again.
func (pr *problem64) curve(p1, p2, q1, q2, r1, r2 coord64, stop float64) float64 {
	// q - p over the tile: at most q2 - p1 = (1-p1) - (1-q2), at least
	// -(p2 - q1) = -((1-q1) - (1-p2)); each from x and from 1 - x, the
	// least kept (the complements keep their precision near 1).
	dp := min(up(q2.x.hi-p1.x.lo), up(p1.xb.hi-q2.xb.lo))
	dm := min(up(p2.x.hi-q1.x.lo), up(q1.xb.hi-p2.xb.lo))
	d2 := pt64(max(dp, dm, 0)).sqr().mul(pt64(0.5))
	// The two directions: the diagonal's range, the offset's range, the
	// slope's factor and the box of the second derivative.
	type dir struct {
		x1, x2         coord64 // the diagonal's range
		off, fac       fi      // the offset (q - p or p - q) and a or 1-a
		b1, b2, c1, c2 coord64 // Bq or Bp
		kind           [2]int
		base, m        float64
		gt             []fi
	}
	dirs := [2]dir{
		{x1: p1, x2: p2, off: fi{-dm, dp}, fac: pr.oma, b1: p1, b2: p2, c1: r1, c2: r2, kind: [2]int{0, 2}},
		{x1: q1, x2: q2, off: fi{-dp, dm}, fac: pr.a, b1: r1, b2: r2, c1: q1, c2: q2, kind: [2]int{2, 0}},
	}
	at := func(dr *dir, m float64) float64 {
		if testCurveWrong != 2 {
			m = max(m, 0)
		}
		ub := up(dr.base + pt64(m).mul(d2).hi)
		if ub != ub {
			panic(arithError("NaN bound"))
		}
		return ub
	}
	ub := math.Inf(1)
	for i := range dirs {
		dr := &dirs[i]
		if testCurveWrong == 1 {
			dr.b1, dr.b2, dr.c1, dr.c2 = p1, p2, q1, q2
		}
		value, fd := pr.diag(dr.x1, dr.x2)
		dr.base = up(value.hi + dr.off.mul(fd.mul(dr.fac)).hi)
		var r []fi
		r, dr.gt = pr.derivsGT(dr.b1, dr.b2, dr.c1, dr.c2, [][2]int{dr.kind})
		dr.m = r[0].hi
		ub = min(ub, at(dr, dr.m))
		if ub <= stop {
			return ub
		}
	}
	for i := range dirs {
		dr := &dirs[i]
		if dr.m <= 0 {
			continue // max(0, M) is 0 already
		}
		for _, x := range pr.pairedThird(dr.b1, dr.b2, dr.c1, dr.c2, [][2]int{dr.kind}, dr.gt) {
			ub = min(ub, at(dr, min(dr.m, x.hi)))
		}
		if ub <= stop {
			return ub
		}
	}
	return ub
}

// curveBox returns the coordinates r1 and r2 of min(s1, t1) and max(s2,
// t2) of the finite tile t with corners p1, p2, q1, q2, and whether H is
// at most curveTall times the tile's wider side plus one logit across.
func curveBox(t box, p1, p2, q1, q2 coord64) (r1, r2 coord64, ok bool) {
	r1, r2 = q1, q2
	lo, hi := t.t1, t.t2
	if cmpEnd(t.s1, t.t1) < 0 {
		r1, lo = p1, t.s1
	}
	if cmpEnd(t.s2, t.t2) > 0 {
		r2, hi = p2, t.s2
	}
	w := max(endFloat(t.s2)-endFloat(t.s1), endFloat(t.t2)-endFloat(t.t1))
	return r1, r2, endFloat(hi)-endFloat(lo) <= curveTall*w+1
}

// curveNear says whether psi(p, p) on [p1, p2] is within curveMargin |L0
// + Tau| of L0 + Tau (for the choice of bounds only).
func (pr *problem64) curveNear(p1, p2 coord64) bool {
	v, _ := pr.diag(p1, p2)
	return pr.rhs-v.hi < curveMargin*math.Abs(pr.rhs)
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
