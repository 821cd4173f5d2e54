package verify

import (
	"math/big"
)

// problem is the inequality of a certificate with every constant enclosed:
//
//	psi(p, q) = f F_n(p, q) - k1 G(p, q) - k2 G(q, p) <= rhs
//
// with f = 1/U = e^-LogU, k1 = L1/E, k2 = L2/E, E = e^((alpha-1) eps) and
// rhs = L0 + Tau. F_n(p, q) = sum_j g(p B_j + (1-p) B'_j, q B_j + (1-q) B'_j)
// with B_j = C(n, j) c^j (1-c)^(n-j) and B'_j = C(n, j) c^(n-j) (1-c)^j (the
// binomial weight moved inside g, which is 1-homogeneous).
type problem struct {
	a, am1, oma ival // alpha, alpha - 1, 1 - alpha
	f, k1, k2   ival
	rhs         *big.Float // lower end of L0 + Tau
	bj, bpj, dj []ival     // B_j, B'_j, B_j - B'_j (A_i, A'_i, D_i of terms.go)
	side        []int8     // the side of each term (terms.go)
	pairThird   bool       // no term of unknown side: pairedThird applies
	coefs       map[[2]int]ival
}

// coord is a coordinate x of the unit square with 1 - x enclosed apart,
// so that both keep their relative precision near 0 and near 1.
type coord struct{ x, xb ival }

// logistic encloses x = 1/(1+e^-s) and 1 - x = 1/(1+e^s) for a logit end.
func logistic(s end) coord {
	zero, one := constIval(0), constIval(1)
	switch {
	case s.inf < 0:
		return coord{zero, one}
	case s.inf > 0:
		return coord{one, zero}
	}
	v := ratIval(s.r)
	return coord{one.div(one.add(v.neg().exp())), one.div(one.add(v.exp()))}
}

// lin returns x B + (1 - x) B' for the coordinate x (both parts positive).
func lin(x coord, b, bp ival) ival { return x.x.mul(b).add(x.xb.mul(bp)) }

// mulHi returns an upper bound of c x for c in the interval c and x in
// [xlo, xhi], from whichever end of x the signs make largest; lo likewise.
func mulHi(c ival, x *big.Float) *big.Float {
	if x.Sign() >= 0 {
		return newUp(prec).Mul(c.hi, x)
	}
	return newUp(prec).Mul(c.lo, x)
}

func mulLo(c ival, x *big.Float) *big.Float {
	if x.Sign() >= 0 {
		return newDown(prec).Mul(c.lo, x)
	}
	return newDown(prec).Mul(c.hi, x)
}

// gUpper returns an upper bound of g(u, v) = u^a v^(1-a) at u = uHi, v = vLo
// (the largest u, the smallest v); vLo > 0. With a > 0 > 1-a the exponent
// a log u + (1-a) log v is largest at the upper bound of log u and the
// lower bound of log v: one directed log each.
func (pr *problem) gUpper(uHi, vLo *big.Float) *big.Float {
	if uHi.Sign() == 0 {
		return newUp(prec)
	}
	lu, lv := logBound(uHi, true), logBound(vLo, false)
	// (1-a) lv is largest at the smallest lv since 1-a < 0.
	e := addR(mulHi(pr.a, lu), mulHi(pr.oma, lv), true)
	return expBound(e, true)
}

// gLower returns a lower bound of g(u, v) at u = uLo, v = vHi (vHi > 0).
func (pr *problem) gLower(uLo, vHi *big.Float) *big.Float {
	if uLo.Sign() <= 0 {
		return newDown(prec)
	}
	lu, lv := logBound(uLo, false), logBound(vHi, true)
	e := addR(mulLo(pr.a, lu), mulLo(pr.oma, lv), false)
	return expBound(e, false)
}

// monotone returns an upper bound of psi on the box with corners p1 <= p2,
// q1 <= q2: g(u, v) increases in u and decreases in v, each term's u is
// monotone in p and v in q, so F_n is at most the sum of g at the largest
// u and smallest v of each term (over the two ends), and G, G^T are at least
// their values at the opposite corners.
func (pr *problem) monotone(p1, p2, q1, q2 coord) *big.Float {
	fu := newUp(prec)
	for j := range pr.bj {
		u1, u2 := lin(p1, pr.bj[j], pr.bpj[j]), lin(p2, pr.bj[j], pr.bpj[j])
		v1, v2 := lin(q1, pr.bj[j], pr.bpj[j]), lin(q2, pr.bj[j], pr.bpj[j])
		fu = addR(fu, pr.gUpper(fmax(u1.hi, u2.hi), fmin(v1.lo, v2.lo)), true)
	}
	// G(p, q) = g(p, q) + g(1-p, 1-q) >= g(p1, q2) + g(1-p2, 1-q1).
	gl := addR(pr.gLower(p1.x.lo, q2.x.hi), pr.gLower(p2.xb.lo, q1.xb.hi), false)
	// G(q, p) = g(q, p) + g(1-q, 1-p) >= g(q1, p2) + g(1-q2, 1-p1).
	hl := addR(pr.gLower(q1.x.lo, p2.x.hi), pr.gLower(q2.xb.lo, p1.xb.hi), false)
	ub := newUp(prec).Mul(pr.f.hi, fu)
	ub = subR(ub, newDown(prec).Mul(pr.k1.lo, gl), true)
	ub = subR(ub, newDown(prec).Mul(pr.k2.lo, hl), true)
	return ub
}

// kinds of derivatives D^(i,j) = d^(i+j) / dp^i dq^j: the value, the
// gradient, the Hessian, the third derivatives.
var (
	kindsPoint = [][2]int{{0, 0}, {1, 0}, {0, 1}, {2, 0}, {1, 1}, {0, 2}}
	kindsThird = [][2]int{{3, 0}, {2, 1}, {1, 2}, {0, 3}}
)

// falling returns the falling factorial (x)_i = x (x-1) ... (x-i+1).
func falling(x ival, i int) ival {
	r := constIval(1)
	for k := range i {
		r = r.mul(x.sub(constIval(int64(k))))
	}
	return r
}

// derivs encloses D^(i,j) psi for each kind over the box with corners p1 <=
// p2, q1 <= q2 inside the open square (p1 = p2 and q1 = q2 for a point).
// With (x)_i the falling factorial, d^i/du^i d^j/dv^j g(u, v) =
// (a)_i (1-a)_j u^(a-i) v^(1-a-j), and e^((a-i) log u + (1-a-j) log v) is
// enclosed from the ranges of log u and log v (each once: the exact range
// up to rounding). Then
//
//	D^(i,j) F_n = sum_j D_j^(i+j) g^(i,j)(u_j, v_j)      (du/dp = dv/dq = D_j),
//	D^(i,j) G   = g^(i,j)(p, q) + (-1)^(i+j) g^(i,j)(1-p, 1-q),
//	D^(i,j) G^T = g^(j,i)(q, p) + (-1)^(i+j) g^(j,i)(1-q, 1-p),
//
// where G^T(p, q) = G(q, p).
func (pr *problem) derivs(p1, p2, q1, q2 coord, kinds [][2]int) []ival {
	out, _ := pr.derivsGT(p1, p2, q1, q2, kinds)
	return out
}

// derivsGT is derivs that also returns the enclosures of D^(i,j) G^T.
func (pr *problem) derivsGT(p1, p2, q1, q2 coord, kinds [][2]int) ([]ival, []ival) {
	// At a point the intervals are narrow: g is enclosed once and each
	// kind is c g / (u^i v^j). Over a box each kind is its own exponential,
	// whose enclosure is the exact range.
	point := p1.x.lo == p2.x.lo && p1.x.hi == p2.x.hi && q1.x.lo == q2.x.lo && q1.x.hi == q2.x.hi
	// terms returns c_(i,j) u^(a-i) v^(1-a-j) for each kind, with (i, j)
	// swapped when swap (for G^T), given u, v and their logs.
	terms := func(u, v, lu, lv ival, swap bool) []ival {
		out := make([]ival, len(kinds))
		var g ival
		if point {
			g = pr.a.mul(lu).add(pr.oma.mul(lv)).exp()
		}
		for k, ij := range kinds {
			i, j := ij[0], ij[1]
			if swap {
				i, j = j, i
			}
			c := pr.coef(i, j)
			if point {
				out[k] = c.mul(g.div(ipow(u, i).mul(ipow(v, j))))
				continue
			}
			e := pr.a.sub(constIval(int64(i))).mul(lu).add(pr.oma.sub(constIval(int64(j))).mul(lv))
			out[k] = c.mul(e.exp())
		}
		return out
	}
	out := make([]ival, len(kinds))
	gt := make([]ival, len(kinds))
	F := make([]ival, len(kinds))
	for k := range F {
		F[k] = constIval(0)
	}
	for j := range pr.bj {
		u := lin(p1, pr.bj[j], pr.bpj[j]).hull(lin(p2, pr.bj[j], pr.bpj[j]))
		v := lin(q1, pr.bj[j], pr.bpj[j]).hull(lin(q2, pr.bj[j], pr.bpj[j]))
		ts := terms(u, v, u.log(), v.log(), false)
		for k, ij := range kinds {
			t := ts[k]
			if o := ij[0] + ij[1]; o > 0 {
				t = t.mul(ipow(pr.dj[j], o))
			}
			F[k] = F[k].add(t)
		}
	}
	pr1, pr2 := ival{p1.x.lo, p2.x.hi}, ival{p2.xb.lo, p1.xb.hi} // p, 1-p
	qr1, qr2 := ival{q1.x.lo, q2.x.hi}, ival{q2.xb.lo, q1.xb.hi} // q, 1-q
	lp, lpb, lq, lqb := pr1.log(), pr2.log(), qr1.log(), qr2.log()
	g1, g2 := terms(pr1, qr1, lp, lq, false), terms(pr2, qr2, lpb, lqb, false)
	h1, h2 := terms(qr1, pr1, lq, lp, true), terms(qr2, pr2, lqb, lpb, true)
	for k, ij := range kinds {
		g2k, h2k := g2[k], h2[k]
		if (ij[0]+ij[1])%2 == 1 {
			g2k, h2k = g2k.neg(), h2k.neg()
		}
		G, H := g1[k].add(g2k), h1[k].add(h2k)
		gt[k] = H
		out[k] = pr.f.mul(F[k]).sub(pr.k1.mul(G)).sub(pr.k2.mul(H))
	}
	return out, gt
}

// coef returns (a)_i (1-a)_j, cached.
func (pr *problem) coef(i, j int) ival {
	k := [2]int{i, j}
	if c, ok := pr.coefs[k]; ok {
		return c
	}
	c := falling(pr.a, i).mul(falling(pr.oma, j))
	if pr.coefs == nil {
		pr.coefs = map[[2]int]ival{}
	}
	pr.coefs[k] = c
	return c
}

// ipow returns {x^n : x in x}, n >= 0.
func ipow(x ival, n int) ival {
	switch {
	case n == 0:
		return constIval(1)
	case n%2 == 0:
		return ipow(x, n/2).sqr()
	}
	// Odd powers are increasing: the ends' powers are the range.
	l, h := pointIval(x.lo), pointIval(x.hi)
	for range n - 1 {
		l, h = l.mul(pointIval(x.lo)), h.mul(pointIval(x.hi))
	}
	return ival{l.lo, h.hi}
}

// center returns an exact point c of [x1, x2] near mid (an enclosure of
// the logistic of the box's logit midpoint: near an edge psi varies with
// the logit, and the center must sit in the middle of the logit range) as
// a coord, with the offsets x - c over the interval. It works from x when
// x1 < 1/2 and from 1 - x otherwise (so that it keeps precision near 1);
// false when the enclosures are too wide to hold mid strictly between the
// ends.
func center(x1, x2, mid coord) (m coord, d ival, ok bool) {
	half := big.NewFloat(0.5)
	if x1.x.hi.Cmp(half) < 0 {
		c := mid.x.lo
		if c.Cmp(x1.x.hi) < 0 || c.Cmp(x2.x.lo) > 0 {
			return coord{}, ival{}, false
		}
		cp := pointIval(c)
		return coord{cp, constIval(1).sub(cp)}, ival{subR(x1.x.lo, c, false), subR(x2.x.hi, c, true)}, true
	}
	// 1 - x decreases in x: it ranges over [x2.xb, x1.xb].
	c := mid.xb.lo
	if c.Cmp(x2.xb.hi) < 0 || c.Cmp(x1.xb.lo) > 0 {
		return coord{}, ival{}, false
	}
	cp := pointIval(c)
	// x - m = (1 - m) - (1 - x) = c - xb.
	return coord{constIval(1).sub(cp), cp}, ival{subR(c, x1.xb.hi, false), subR(c, x2.xb.lo, true)}, true
}

// taylor returns an upper bound of psi on the finite box with corners p1 <=
// p2, q1 <= q2, or nil when the enclosures cannot center it. With m the
// center and d = x - m, Taylor's formula of order 3 with the Lagrange
// remainder reads
//
//	psi(m + d) = psi(m) + Q(d) + sum_{i+j=3} D^(i,j) psi(xi) d_p^i d_q^j / (i! j!),
//
// Q(d) = grad psi(m) . d + d^T H(m) d / 2, xi on the segment (in the box).
// The bound is psi(m) plus an upper bound of Q over the rectangle of d for
// every gradient and Hessian in their enclosures (quadMax), plus the
// remainder with each third derivative enclosed over the box.
func (pr *problem) taylor(p1, p2, q1, q2, ms, mt coord, paired bool) *big.Float {
	mp, dp, ok1 := center(p1, p2, ms)
	mq, dq, ok2 := center(q1, q2, mt)
	if !ok1 || !ok2 {
		return nil
	}
	c := pr.derivs(mp, mp, mq, mq, kindsPoint)
	r, gt := pr.derivsGT(p1, p2, q1, q2, kindsThird)
	if paired {
		for k, x := range pr.pairedThird(p1, p2, q1, q2, kindsThird, gt) {
			r[k] = ival{fmax(r[k].lo, x.lo), fmin(r[k].hi, x.hi)} // both enclose the range
		}
	}
	rem := constIval(0)
	for k, ij := range kindsThird {
		i, j := ij[0], ij[1]
		fact := constIval([4]int64{1, 1, 2, 6}[i] * [4]int64{1, 1, 2, 6}[j])
		rem = rem.add(r[k].mul(ipow(dp, i)).mul(ipow(dq, j)).div(fact))
	}
	q := quadMax(c[1], c[2], c[3], c[4], c[5], dp, dq)
	ub := addR(c[0].hi, q, true)
	return addR(ub, rem.hi, true)
}

// quadMax returns an upper bound of Q(x, y) = gp x + gq y + (hpp x^2 + 2 hpq
// x y + hqq y^2)/2 over the rectangle dp x dq, for every coefficient in its
// enclosure. A quadratic's maximum on a rectangle is on an edge unless the
// quadratic is concave (negative definite Hessian) with its critical point
// inside; on an edge it is a one-variable quadratic, whose maximum is at an
// end or, when concave, at most its unconstrained maximum.
func quadMax(gp, gq, hpp, hpq, hqq ival, dp, dq ival) *big.Float {
	half := pointIval(big.NewFloat(0.5))
	best := newUp(prec).SetInf(true)
	take := func(x *big.Float) {
		if x.Cmp(best) > 0 {
			best = x
		}
	}
	// edge: along y in [y1, y2] with the other variable fixed at e:
	// alpha + beta y + gamma y^2 / 2.
	edge := func(alpha, beta, gamma ival, y ival) {
		at := func(v *big.Float) ival {
			yv := pointIval(v)
			return alpha.add(beta.mul(yv)).add(half.mul(gamma).mul(yv.sqr()))
		}
		take(at(y.lo).hi)
		take(at(y.hi).hi)
		switch {
		case gamma.lo.Sign() >= 0: // convex: the ends
		case gamma.hi.Sign() < 0: // concave: the vertex when it may be inside
			ys := beta.div(gamma.neg()) // -beta/gamma
			if ys.hi.Cmp(y.lo) >= 0 && ys.lo.Cmp(y.hi) <= 0 {
				take(alpha.add(beta.sqr().div(constIval(2).mul(gamma.neg()))).hi)
			}
		default: // unknown curvature: the interval extension over the edge
			take(alpha.add(beta.mul(y)).add(half.mul(gamma).mul(y.sqr())).hi)
		}
	}
	for _, e := range []*big.Float{dp.lo, dp.hi} {
		x := pointIval(e)
		edge(gp.mul(x).add(half.mul(hpp).mul(x.sqr())), gq.add(hpq.mul(x)), hqq, dq)
	}
	for _, e := range []*big.Float{dq.lo, dq.hi} {
		y := pointIval(e)
		edge(gq.mul(y).add(half.mul(hqq).mul(y.sqr())), gp.add(hpq.mul(y)), hpp, dp)
	}
	// Interior: only a concave Q has an interior maximum.
	det := hpp.mul(hqq).sub(hpq.sqr())
	if hpp.lo.Sign() >= 0 || hqq.lo.Sign() >= 0 || det.hi.Sign() <= 0 {
		return best // no Hessian in the enclosure is negative definite
	}
	if hpp.hi.Sign() < 0 && det.lo.Sign() > 0 {
		// Every Hessian is negative definite: with A = -H the maximum over
		// all d is g^T A^-1 g / 2, at d* = A^-1 g.
		app, apq, aqq := hpp.neg(), hpq.neg(), hqq.neg()
		xs := aqq.mul(gp).sub(apq.mul(gq)).div(det)
		ys := app.mul(gq).sub(apq.mul(gp)).div(det)
		if xs.hi.Cmp(dp.lo) < 0 || xs.lo.Cmp(dp.hi) > 0 || ys.hi.Cmp(dq.lo) < 0 || ys.lo.Cmp(dq.hi) > 0 {
			return best // the critical point is outside: the maximum is on an edge
		}
		num := aqq.mul(gp.sqr()).sub(constIval(2).mul(apq).mul(gp.mul(gq))).add(app.mul(gq.sqr()))
		take(num.div(constIval(2).mul(det)).hi)
		return best
	}
	// Undecided: the interval extension over the rectangle.
	all := gp.mul(dp).add(gq.mul(dq)).add(half.mul(hpp.mul(dp.sqr()).add(hqq.mul(dq.sqr())))).add(hpq.mul(dp.mul(dq)))
	take(all.hi)
	return best
}

// paired returns an upper bound of psi on the box with corners p1 <= p2,
// q1 <= q2, or nil when it is not finite (at the edge p = 0). Each term of
// F_n with B_j > B'_j (j < n/2) is g(p, q) g(u_j/p, v_j/q) by homogeneity,
// and u_j/p = B_j + B'_j (1-p)/p decreases in p, v_j/q in q; so
//
//	half 0 = g(p, q) (f R0(p, q) - k1),  R0 = sum_{j<n/2} g(u_j/p, v_j/q),
//
// where R0 is largest at (p1, q2), the corner where g(p, q) is smallest.
// With B0 = f R0(p1, q2) - k1: half 0 <= g(p1, q2) B0 when B0 <= 0, else
// g(p2, q1) B0. The terms j > n/2 pair with g(1-p, 1-q) in the mirror way
// (R1 largest at (p2, q1)), the middle term of an even n is the constant
// B_{n/2}, and G(q, p) is bounded below as in monotone. Any split of the
// terms between the halves is valid (u_j/p decreases in p whatever the
// sign of D_j): for a ranges certificate the halves are the sides of
// terms.go, a term of unknown side going with half 0.
func (pr *problem) paired(p1, p2, q1, q2 coord) *big.Float {
	if p1.x.lo.Sign() <= 0 || q1.xb.lo.Sign() <= 0 {
		return nil
	}
	// Odds at the corners: (1-p1)/p1, (1-q2)/q2 for half 0 and
	// p2/(1-p2), q1/(1-q1) for half 1 (q2 may be 1: odds 0; q1 may be 0).
	op1, oq2 := p1.xb.div(p1.x), ival{}
	if q2.x.lo.Sign() > 0 {
		oq2 = q2.xb.div(q2.x)
	} else {
		return nil
	}
	op2, oq1 := p2.x.div(p2.xb), q1.x.div(q1.xb)
	r0, r1 := newUp(prec), newUp(prec)
	for j := range pr.bj {
		switch pr.side[j] {
		case sideLo, sideUnknown:
			u := pr.bj[j].add(pr.bpj[j].mul(op1))
			v := pr.bj[j].add(pr.bpj[j].mul(oq2))
			r0 = addR(r0, pr.gUpper(u.hi, v.lo), true)
		case sideHi:
			u := pr.bpj[j].add(pr.bj[j].mul(op2))
			v := pr.bpj[j].add(pr.bj[j].mul(oq1))
			r1 = addR(r1, pr.gUpper(u.hi, v.lo), true)
		}
	}
	half := func(r *big.Float, gLo, gHi func() *big.Float) *big.Float {
		b := newUp(prec).Mul(pr.f.hi, r)
		b = subR(b, pr.k1.lo, true)
		if b.Sign() <= 0 {
			return newUp(prec).Mul(gLo(), b)
		}
		g := gHi()
		if g == nil {
			return nil
		}
		return newUp(prec).Mul(g, b)
	}
	h0 := half(r0, func() *big.Float { return pr.gLower(p1.x.lo, q2.x.hi) },
		func() *big.Float { return pr.gUpper(p2.x.hi, q1.x.lo) })
	h1 := half(r1, func() *big.Float { return pr.gLower(p2.xb.lo, q1.xb.hi) },
		func() *big.Float {
			if q2.xb.lo.Sign() <= 0 {
				return nil // g(1-p, 0) is infinite
			}
			return pr.gUpper(p1.xb.hi, q2.xb.lo)
		})
	if h0 == nil || h1 == nil {
		return nil
	}
	ub := addR(h0, h1, true)
	if m := len(pr.bj) - 1; pr.side[m/2] == sideMid {
		ub = addR(ub, newUp(prec).Mul(pr.f.hi, pr.bj[m/2].hi), true)
	}
	hl := addR(pr.gLower(q1.x.lo, p2.x.hi), pr.gLower(q2.xb.lo, p1.xb.hi), false)
	return subR(ub, newDown(prec).Mul(pr.k2.lo, hl), true)
}

// pairedThird encloses the third derivatives of psi over the finite box
// with corners p1 <= p2, q1 <= q2 by pairing each half of F with the same
// half of G, which nearly cancel where c is small. For kind (i, j) of
// order o = i + j >= 1, c_k = (a)_i (1-a)_j:
//
//	half 0 (j < n/2, D_j > 0):  f D^(i,j) F_0 - k1 D^(i,j) G_0 = c_k P0 (f R0 - k1),
//	P0 = p^(a-i) q^(1-a-j),  R0 = sum D_j^o (u_j/p)^(a-i) (v_j/q)^(1-a-j),
//
// with u_j/p = B_j + B'_j (1-p)/p decreasing in p and v_j/q in q, so every
// term of R0 is monotone in p and in q in the same directions and R0's
// range is spanned by its values at the four corners; half 1 (j > n/2,
// D_j < 0) is (-1)^o c_k P1 (f R1 - k1) with P1 = (1-p)^(a-i) (1-q)^(1-a-j)
// and u_j/(1-p) = B'_j + B_j p/(1-p) increasing in p; the middle term of
// an even n has D = 0. The G^T part is as in derivs. The halves are the
// sides of terms.go (for a pieces certificate j < n/2 and j > n/2); when
// a term's side is unknown, the sign of D_j is not known constant on a
// half, and pairedThird returns nil (no enclosure).
func (pr *problem) pairedThird(p1, p2, q1, q2 coord, kinds [][2]int, gt []ival) []ival {
	if !pr.pairThird {
		return nil
	}
	corners := [4][2]coord{{p1, q1}, {p1, q2}, {p2, q1}, {p2, q2}}
	r := make([][2]ival, len(kinds)) // ranges of R0, R1 per kind
	for c, pq := range corners {
		p, q := pq[0], pq[1]
		odds := [2][2]ival{{p.xb.div(p.x), q.xb.div(q.x)}, {p.x.div(p.xb), q.x.div(q.xb)}}
		sums := make([][2]ival, len(kinds))
		for k := range sums {
			sums[k] = [2]ival{constIval(0), constIval(0)}
		}
		for j := range pr.bj {
			h := 0
			b, bp := pr.bj[j], pr.bpj[j]
			switch pr.side[j] {
			case sideMid:
				continue
			case sideHi:
				h, b, bp = 1, pr.bpj[j], pr.bj[j]
			}
			lw := b.add(bp.mul(odds[h][0])).log()
			lz := b.add(bp.mul(odds[h][1])).log()
			ad := pr.dj[j]
			if h == 1 {
				ad = ad.neg()
			}
			for k, ij := range kinds {
				i, jj := ij[0], ij[1]
				e := pr.a.sub(constIval(int64(i))).mul(lw).add(pr.oma.sub(constIval(int64(jj))).mul(lz))
				sums[k][h] = sums[k][h].add(ipow(ad, i+jj).mul(e.exp()))
			}
		}
		for k := range kinds {
			for h := range 2 {
				if c == 0 {
					r[k][h] = sums[k][h]
				} else {
					r[k][h] = r[k][h].hull(sums[k][h])
				}
			}
		}
	}
	lp := ival{p1.x.lo, p2.x.hi}.log()
	lpb := ival{p2.xb.lo, p1.xb.hi}.log()
	lq := ival{q1.x.lo, q2.x.hi}.log()
	lqb := ival{q2.xb.lo, q1.xb.hi}.log()
	out := make([]ival, len(kinds))
	for k, ij := range kinds {
		i, j := ij[0], ij[1]
		ei, ej := pr.a.sub(constIval(int64(i))), pr.oma.sub(constIval(int64(j)))
		P0 := ei.mul(lp).add(ej.mul(lq)).exp()
		P1 := ei.mul(lpb).add(ej.mul(lqb)).exp()
		h0 := P0.mul(pr.f.mul(r[k][0]).sub(pr.k1))
		h1 := P1.mul(pr.f.mul(r[k][1]).sub(pr.k1))
		if (i+j)%2 == 1 {
			h1 = h1.neg()
		}
		out[k] = pr.coef(i, j).mul(h0.add(h1)).sub(pr.k2.mul(gt[k]))
	}
	return out
}

// partial bounds psi on the finite box by a Taylor form in one variable,
// the other free (near the edges, where psi hardly moves along one side
// and the two-variable form is poor). Along q (axis 1), with mq the
// center and d = q - mq:
//
//	psi(p, mq + d) = psi(p, mq) + psi_q(p, mq) d + psi_qq(p, mq) d^2/2 + psi_qqq(p, xi) d^3/6,
//
// each coefficient bounded over the segment p in [p1, p2] at q = mq (the
// value by the monotone and paired bounds of that segment, the
// derivatives by their enclosures there, paired and separate intersected)
// and psi_qqq over the box. Axis 0 expands in p likewise. nil when the box
// cannot be centered.
func (pr *problem) partial(p1, p2, q1, q2, ms, mt coord, axis int) *big.Float {
	var (
		s1, s2, t1, t2 coord
		d              ival
		ok             bool
		kinds          = [][2]int{{0, 1}, {0, 2}, {0, 3}}
	)
	if axis == 1 {
		var mq coord
		if mq, d, ok = center(q1, q2, mt); !ok {
			return nil
		}
		s1, s2, t1, t2 = p1, p2, mq, mq
	} else {
		var mp coord
		if mp, d, ok = center(p1, p2, ms); !ok {
			return nil
		}
		s1, s2, t1, t2 = mp, mp, q1, q2
		kinds = [][2]int{{1, 0}, {2, 0}, {3, 0}}
	}
	a0 := pr.monotone(s1, s2, t1, t2)
	if pb := pr.paired(s1, s2, t1, t2); pb != nil {
		a0 = fmin(a0, pb)
	}
	ranges := func(a1, a2, b1, b2 coord, ks [][2]int) []ival {
		r, gt := pr.derivsGT(a1, a2, b1, b2, ks)
		for k, x := range pr.pairedThird(a1, a2, b1, b2, ks, gt) {
			r[k] = ival{fmax(r[k].lo, x.lo), fmin(r[k].hi, x.hi)}
		}
		return r
	}
	seg := ranges(s1, s2, t1, t2, kinds[:2])
	r3 := ranges(p1, p2, q1, q2, kinds[2:])[0]
	// One side of the center at a time: on [0, d.hi] the linear term is at
	// most r1.hi x, on [d.lo, 0] at most r1.lo x.
	half := pointIval(big.NewFloat(0.5))
	side := func(g *big.Float, x0, x1 *big.Float) *big.Float {
		return quad1(pointIval(g), half.mul(pointIval(seg[1].hi)), x0, x1)
	}
	q := fmax(side(seg[0].hi, newDown(prec), d.hi), side(seg[0].lo, d.lo, newUp(prec)))
	cube := ipow(d, 3).mul(r3).div(constIval(6))
	ub := addR(a0, q, true)
	return addR(ub, fmax(cube.hi, newUp(prec)), true)
}

// quad1 returns an upper bound of b x + c x^2 over x in [x0, x1] (b, c
// enclosed): the ends, and the vertex of a concave one when it may be
// inside.
func quad1(b, c ival, x0, x1 *big.Float) *big.Float {
	at := func(x *big.Float) *big.Float {
		v := pointIval(x)
		return b.mul(v).add(c.mul(v.sqr())).hi
	}
	m := fmax(at(x0), at(x1))
	if c.hi.Sign() < 0 {
		v := b.div(constIval(2).mul(c.neg())) // -b/(2c)
		if v.hi.Cmp(x0) >= 0 && v.lo.Cmp(x1) <= 0 {
			m = fmax(m, b.sqr().div(constIval(4).mul(c.neg())).hi)
		}
	}
	return m
}
