package verify

import (
	"math"
	"math/big"
)

// problem64 is the inequality of problem (psi.go) with every constant
// enclosed in float64 (fast.go), and the bounds of psi.go ported to it
// line by line. Sums over j run over a window lo <= j < hi; the terms
// outside it are bounded by tail (below). A problem64 with the window
// [0, n+1) has no tail.
type problem64 struct {
	n           int
	a, am1, oma fi
	f, k1, k2   fi
	rhs         float64 // at most L0 + Tau
	bj, bpj, dj []fi    // B_j, B'_j, B_j - B'_j for j in 0..n (all of them)
	lo, hi      int     // the window
	// Upper bounds of the sums over the j outside the window of B_j,
	// B'_j, E_j = (B_j + B'_j)^a B'_j^(1-a) and E'_j = (B_j +
	// B'_j)^a B_j^(1-a) (0 without a window; +Inf when unknown).
	sB, sBp, sE, sEp float64
	coefs            [4][4]fi
}

// windowFrom is the smallest n whose sums are windowed; windowBits: the
// window holds every j with B_j or B'_j at least 2^-windowBits (a
// variable only for the tests, which narrow the window to make the tail
// matter).
const windowFrom = 200

var windowBits = 180

// testNoTail is a test hook: tail returns 0 (a deliberately broken fast
// path, which tests must catch).
var testNoTail bool

// weightsBig encloses B_j = C(n, j) c^j (1-c)^(n-j), j = 0..n, at 128
// bits (see eachWeight).
func weightsBig(n int, c *big.Rat) []ival {
	out := make([]ival, n+1)
	eachWeight(n, c, func(j int, b ival) { out[j] = b })
	return out
}

// eachWeight calls fn with an enclosure of B_j for j = 0..n in order, at
// 128 bits: B_0 = (1-c)^n by squarings, B_j = B_(j-1) (n-j+1)/j c/(1-c).
// The relative error is at most about 4 n 2^-128 (every step rounds
// outward), and big.Float's exponent range holds every B_j for any n the
// checker takes. The ends passed are not reused.
func eachWeight(n int, c *big.Rat, fn func(j int, b ival)) {
	cc := ratIval(c)
	cb := constIval(1).sub(cc)
	ratio := cc.div(cb)
	pw, acc := cb, constIval(1)
	for e := n; e > 0; e >>= 1 {
		if e&1 == 1 {
			acc = acc.mul(pw)
		}
		if e > 1 {
			pw = pw.mul(pw)
		}
	}
	prev := acc
	fn(0, prev)
	for j := 1; j <= n; j++ {
		b := prev.mul(ratio)
		lo := newDown(prec).Mul(b.lo, newDown(prec).SetInt64(int64(n-j+1)))
		hi := newUp(prec).Mul(b.hi, newUp(prec).SetInt64(int64(n-j+1)))
		jj := new(big.Float).SetInt64(int64(j))
		prev = ival{lo.Quo(lo, jj), hi.Quo(hi, jj)}
		fn(j, prev)
	}
}

// newProblem64 encloses the constants of c in float64. windowed selects
// the windowed sums (for n >= windowFrom); else every j is summed.
func newProblem64(c *cert, rhs *big.Float, windowed bool) *problem64 {
	n := c.n
	one := pt64(1)
	a := ratFi(c.alpha)
	pr := &problem64{n: n, a: a, am1: a.sub(one), oma: one.sub(a)}
	pr.f = ratFi(c.logU).neg().exp()
	einv := pr.am1.mul(ratFi(c.eps)).neg().exp()
	pr.k1, pr.k2 = ratFi(c.l1).mul(einv), ratFi(c.l2).mul(einv)
	pr.rhs = floatDown(rhs)
	pr.bj, pr.bpj, pr.dj = make([]fi, n+1), make([]fi, n+1), make([]fi, n+1)
	win := windowed && n >= windowFrom
	var lb []fi // log B_j
	if win {
		lb = make([]fi, n+1)
	}
	eachWeight(n, c.c, func(j int, b ival) {
		pr.bj[j] = toFi(b)
		pr.bpj[n-j] = pr.bj[j]
		if win {
			lb[j] = logBig(b)
		}
	})
	for j := range pr.dj {
		pr.dj[j] = pr.bj[j].sub(pr.bpj[j])
	}
	for i := range 4 {
		for j := range 4 {
			pr.coefs[i][j] = falling64(pr.a, i).mul(falling64(pr.oma, j))
		}
	}
	pr.lo, pr.hi = 0, n+1
	if !win {
		return pr
	}
	cut := -float64(windowBits) * math.Ln2
	pr.lo, pr.hi = n+1, 0
	for j := range lb {
		if lb[j].hi >= cut || lb[n-j].hi >= cut {
			pr.lo, pr.hi = min(pr.lo, j), max(pr.hi, j+1)
		}
	}
	// The tail sums, every term rounded up and added upward; log(B_j +
	// B'_j) is in [log max, log 2 + log max].
	for j := range lb {
		if j >= pr.lo && j < pr.hi {
			continue
		}
		pr.sB = up(pr.sB + pr.bj[j].hi)
		pr.sBp = up(pr.sBp + pr.bpj[j].hi)
		l, lp := lb[j], lb[n-j]
		ls := mk(max(l.lo, lp.lo), ln2Fi.hi+max(l.hi, lp.hi))
		as := pr.a.mul(ls)
		pr.sE = up(pr.sE + expHi(as.add(pr.oma.mul(lp)).hi))
		pr.sEp = up(pr.sEp + expHi(as.add(pr.oma.mul(l)).hi))
	}
	return pr
}

// full returns the problem with every j summed (no tail).
func (pr *problem64) full() *problem64 {
	q := *pr
	q.lo, q.hi = 0, pr.n+1
	q.sB, q.sBp, q.sE, q.sEp = 0, 0, 0, 0
	return &q
}

func (pr *problem64) windowed() bool { return pr.lo > 0 || pr.hi < pr.n+1 }

func falling64(x fi, i int) fi {
	r := pt64(1)
	for k := range i {
		r = r.mul(x.sub(pt64(float64(k))))
	}
	return r
}

type coord64 struct{ x, xb fi }

// logistic64 encloses x = 1/(1+e^-s) and 1 - x = 1/(1+e^s).
func logistic64(s end) coord64 {
	switch {
	case s.inf < 0:
		return coord64{pt64(0), pt64(1)}
	case s.inf > 0:
		return coord64{pt64(1), pt64(0)}
	}
	v := ratFi(s.r)
	one := pt64(1)
	return coord64{one.div(one.add(v.neg().exp())), one.div(one.add(v.exp()))}
}

func lin64(x coord64, b, bp fi) fi { return x.x.mul(b).add(x.xb.mul(bp)) }

// mulUp returns an upper bound of x s for x, s >= 0 (0 when s is 0, even
// for x = +Inf: s = 0 is an exact empty sum).
func mulUp(x, s float64) float64 {
	if s == 0 || x == 0 {
		return 0
	}
	return up(x * s)
}

// gUpper returns an upper bound of g(u, v) = u^a v^(1-a) at u = uHi, v = vLo.
func (pr *problem64) gUpper(uHi, vLo float64) float64 {
	if uHi == 0 {
		return 0
	}
	return pr.a.mul(pt64(logHi(uHi))).add(pr.oma.mul(pt64(logLo(vLo)))).exp().hi
}

// gLower returns a lower bound of g(u, v) at u = uLo, v = vHi.
func (pr *problem64) gLower(uLo, vHi float64) float64 {
	if uLo <= 0 {
		return 0
	}
	return pr.a.mul(pt64(logLo(uLo))).add(pr.oma.mul(pt64(logHi(vHi)))).exp().lo
}

// tail returns an upper bound of sum_{j outside the window} g(u_j, v_j)
// over the box with corners p1 <= p2, q1 <= q2 (+Inf when none; 0 without
// a window). Each omitted term is at most each of
//
//	(i)   B_j g(p, q) + B'_j g(1-p, 1-q),
//	(ii)  (1-q)^(1-a) E_j,   E_j  = (B_j + B'_j)^a B'_j^(1-a),
//	(iii) q^(1-a) E'_j,      E'_j = (B_j + B'_j)^a B_j^(1-a):
//
// (i) because g is convex and 1-homogeneous, hence subadditive, and
// (u_j, v_j) = (p B_j, q B_j) + ((1-p) B'_j, (1-q) B'_j); (ii) and (iii)
// because u_j <= B_j + B'_j, v_j >= (1-q) B'_j and v_j >= q B_j, with
// u^a increasing and v^(1-a) decreasing. Over the box g(p, q) <= g(p2,
// q1), g(1-p, 1-q) <= g(1-p1, 1-q2), (1-q)^(1-a) <= (1-q2)^(1-a) and
// q^(1-a) <= q1^(1-a). So the omitted sum is at most each of the three
// bounds summed over the omitted j, with the sums sB, sBp, sE, sEp
// precomputed as upper bounds; the least is returned.
func (pr *problem64) tail(p1, p2, q1, q2 coord64) float64 {
	if !pr.windowed() || testNoTail {
		return 0
	}
	best := math.Inf(1)
	if q1.x.lo > 0 && q2.xb.lo > 0 {
		t := up(mulUp(pr.gUpper(p2.x.hi, q1.x.lo), pr.sB) + mulUp(pr.gUpper(p1.xb.hi, q2.xb.lo), pr.sBp))
		best = min(best, t)
	}
	if q2.xb.lo > 0 {
		best = min(best, mulUp(pr.gUpper(1, q2.xb.lo), pr.sE))
	}
	if q1.x.lo > 0 {
		best = min(best, mulUp(pr.gUpper(1, q1.x.lo), pr.sEp))
	}
	if best != best {
		panic(arithError("NaN tail"))
	}
	return best
}

// monotone is problem.monotone in float64, with the tail.
func (pr *problem64) monotone(p1, p2, q1, q2 coord64) float64 {
	fu := pr.fUpper(p1, p2, q1, q2)
	gl := dn(pr.gLower(p1.x.lo, q2.x.hi) + pr.gLower(p2.xb.lo, q1.xb.hi))
	hl := dn(pr.gLower(q1.x.lo, p2.x.hi) + pr.gLower(q2.xb.lo, p1.xb.hi))
	ub := mulUp(pr.f.hi, fu)
	ub = up(ub - dn(pr.k1.lo*max(gl, 0)))
	ub = up(ub - dn(pr.k2.lo*max(hl, 0)))
	if ub != ub {
		panic(arithError("NaN bound"))
	}
	return ub
}

// fUpper returns an upper bound of F_n on the box: the window's terms, each
// at its largest u and smallest v, plus the tail.
func (pr *problem64) fUpper(p1, p2, q1, q2 coord64) float64 {
	fu := pr.tail(p1, p2, q1, q2)
	for j := pr.lo; j < pr.hi; j++ {
		b, bp := pr.bj[j], pr.bpj[j]
		u1, u2 := lin64(p1, b, bp), lin64(p2, b, bp)
		v1, v2 := lin64(q1, b, bp), lin64(q2, b, bp)
		fu = up(fu + pr.gUpper(max(u1.hi, u2.hi), min(v1.lo, v2.lo)))
	}
	return fu
}

// derivsGT is problem.derivsGT in float64. The omitted terms of D^(i,j)
// F_n are each at most |(a)_i (1-a)_j| g(u_j, v_j) P^i Q^j in magnitude,
// P = 1/min(p, 1-p), Q = 1/min(q, 1-q): |D_j| <= max(B_j, B'_j) while u_j
// >= min(p, 1-p) (B_j + B'_j) and v_j likewise; so their sum is within
// |c_k| P^i Q^j tail of 0, P and Q taken at the box's extremes.
func (pr *problem64) derivsGT(p1, p2, q1, q2 coord64, kinds [][2]int) ([]fi, []fi) {
	point := p1 == p2 && q1 == q2
	var tv, pinv, qinv float64
	if pr.windowed() {
		tv = pr.tail(p1, p2, q1, q2)
		pinv = pt64(1).div(pt64(min(p1.x.lo, p2.xb.lo))).hi
		qinv = pt64(1).div(pt64(min(q1.x.lo, q2.xb.lo))).hi
	}
	terms := func(u, v, lu, lv fi, swap bool, out []fi) {
		var g fi
		if point {
			g = pr.a.mul(lu).add(pr.oma.mul(lv)).exp()
		}
		for k, ij := range kinds {
			i, j := ij[0], ij[1]
			if swap {
				i, j = j, i
			}
			c := pr.coefs[i][j]
			if point {
				out[k] = c.mul(g.div(ipow64(u, i).mul(ipow64(v, j))))
				continue
			}
			e := pr.a.sub(pt64(float64(i))).mul(lu).add(pr.oma.sub(pt64(float64(j))).mul(lv))
			out[k] = c.mul(e.exp())
		}
	}
	nk := len(kinds)
	buf := make([]fi, 7*nk)
	out, gt, F, ts := buf[:nk], buf[nk:2*nk], buf[2*nk:3*nk], buf[3*nk:4*nk]
	for k, ij := range kinds {
		F[k] = pt64(0)
		if tv != 0 {
			c := pr.coefs[ij[0]][ij[1]]
			t := max(math.Abs(c.lo), math.Abs(c.hi))
			t = mulUp(t, tv)
			for range ij[0] {
				t = mulUp(t, pinv)
			}
			for range ij[1] {
				t = mulUp(t, qinv)
			}
			if t != t {
				panic(arithError("NaN tail"))
			}
			F[k] = fi{-t, t}
		}
	}
	for j := pr.lo; j < pr.hi; j++ {
		b, bp := pr.bj[j], pr.bpj[j]
		u := lin64(p1, b, bp).hull(lin64(p2, b, bp))
		v := lin64(q1, b, bp).hull(lin64(q2, b, bp))
		terms(u, v, u.log(), v.log(), false, ts)
		for k, ij := range kinds {
			t := ts[k]
			if o := ij[0] + ij[1]; o > 0 {
				t = t.mul(ipow64(pr.dj[j], o))
			}
			F[k] = F[k].add(t)
		}
	}
	pr1, pr2 := fi{p1.x.lo, p2.x.hi}, fi{p2.xb.lo, p1.xb.hi}
	qr1, qr2 := fi{q1.x.lo, q2.x.hi}, fi{q2.xb.lo, q1.xb.hi}
	lp, lpb, lq, lqb := pr1.log(), pr2.log(), qr1.log(), qr2.log()
	g1, g2, h1, h2 := buf[4*nk:5*nk], buf[5*nk:6*nk], buf[6*nk:7*nk], make([]fi, nk)
	terms(pr1, qr1, lp, lq, false, g1)
	terms(pr2, qr2, lpb, lqb, false, g2)
	terms(qr1, pr1, lq, lp, true, h1)
	terms(qr2, pr2, lqb, lpb, true, h2)
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

func (pr *problem64) derivs(p1, p2, q1, q2 coord64, kinds [][2]int) []fi {
	out, _ := pr.derivsGT(p1, p2, q1, q2, kinds)
	return out
}

// center is center (psi.go) in float64.
func center64(x1, x2, mid coord64) (m coord64, d fi, ok bool) {
	if x1.x.hi < 0.5 {
		c := mid.x.lo
		if c < x1.x.hi || c > x2.x.lo {
			return coord64{}, fi{}, false
		}
		cp := pt64(c)
		return coord64{cp, pt64(1).sub(cp)}, fi{pt64(x1.x.lo).sub(cp).lo, pt64(x2.x.hi).sub(cp).hi}, true
	}
	c := mid.xb.lo
	if c < x2.xb.hi || c > x1.xb.lo {
		return coord64{}, fi{}, false
	}
	cp := pt64(c)
	return coord64{pt64(1).sub(cp), cp}, fi{cp.sub(pt64(x1.xb.hi)).lo, cp.sub(pt64(x2.xb.lo)).hi}, true
}

// taylor is problem.taylor in float64 (+Inf when it cannot center).
func (pr *problem64) taylor(p1, p2, q1, q2, ms, mt coord64, paired bool) float64 {
	mp, dp, ok1 := center64(p1, p2, ms)
	mq, dq, ok2 := center64(q1, q2, mt)
	if !ok1 || !ok2 {
		return math.Inf(1)
	}
	c := pr.derivs(mp, mp, mq, mq, kindsPoint)
	r, gt := pr.derivsGT(p1, p2, q1, q2, kindsThird)
	if paired {
		for k, x := range pr.pairedThird(p1, p2, q1, q2, kindsThird, gt) {
			r[k] = fi{max(r[k].lo, x.lo), min(r[k].hi, x.hi)}
		}
	}
	rem := pt64(0)
	for k, ij := range kindsThird {
		i, j := ij[0], ij[1]
		fact := float64([4]int64{1, 1, 2, 6}[i] * [4]int64{1, 1, 2, 6}[j])
		rem = rem.add(r[k].mul(ipow64(dp, i)).mul(ipow64(dq, j)).div(pt64(fact)))
	}
	q := quadMax64(c[1], c[2], c[3], c[4], c[5], dp, dq)
	return up(up(c[0].hi+q) + rem.hi)
}

// quadMax64 is quadMax (psi.go) in float64.
func quadMax64(gp, gq, hpp, hpq, hqq fi, dp, dq fi) float64 {
	half := pt64(0.5)
	best := math.Inf(-1)
	take := func(x float64) {
		if x != x {
			panic(arithError("NaN in quadMax"))
		}
		best = max(best, x)
	}
	edge := func(alpha, beta, gamma fi, y fi) {
		at := func(v float64) fi {
			yv := pt64(v)
			return alpha.add(beta.mul(yv)).add(half.mul(gamma).mul(yv.sqr()))
		}
		take(at(y.lo).hi)
		take(at(y.hi).hi)
		switch {
		case gamma.lo >= 0:
		case gamma.hi < 0:
			ys := beta.div(gamma.neg())
			if ys.hi >= y.lo && ys.lo <= y.hi {
				take(alpha.add(beta.sqr().div(pt64(2).mul(gamma.neg()))).hi)
			}
		default:
			take(alpha.add(beta.mul(y)).add(half.mul(gamma).mul(y.sqr())).hi)
		}
	}
	for _, e := range []float64{dp.lo, dp.hi} {
		x := pt64(e)
		edge(gp.mul(x).add(half.mul(hpp).mul(x.sqr())), gq.add(hpq.mul(x)), hqq, dq)
	}
	for _, e := range []float64{dq.lo, dq.hi} {
		y := pt64(e)
		edge(gq.mul(y).add(half.mul(hqq).mul(y.sqr())), gp.add(hpq.mul(y)), hpp, dp)
	}
	det := hpp.mul(hqq).sub(hpq.sqr())
	if hpp.lo >= 0 || hqq.lo >= 0 || det.hi <= 0 {
		return best
	}
	if hpp.hi < 0 && det.lo > 0 {
		app, apq, aqq := hpp.neg(), hpq.neg(), hqq.neg()
		xs := aqq.mul(gp).sub(apq.mul(gq)).div(det)
		ys := app.mul(gq).sub(apq.mul(gp)).div(det)
		if xs.hi < dp.lo || xs.lo > dp.hi || ys.hi < dq.lo || ys.lo > dq.hi {
			return best
		}
		num := aqq.mul(gp.sqr()).sub(pt64(2).mul(apq).mul(gp.mul(gq))).add(app.mul(gq.sqr()))
		take(num.div(pt64(2).mul(det)).hi)
		return best
	}
	all := gp.mul(dp).add(gq.mul(dq)).add(half.mul(hpp.mul(dp.sqr()).add(hqq.mul(dq.sqr())))).add(hpq.mul(dp.mul(dq)))
	take(all.hi)
	return best
}

// paired is problem.paired in float64 (+Inf for none). The omitted terms
// of R0 = sum g(u_j/p, v_j/q) = sum g(u_j, v_j) / g(p, q) at (p1, q2) are
// at most tail at that point over g(p1, q2); of R1 likewise at (p2, q1)
// over g(1-p2, 1-q1).
func (pr *problem64) paired(p1, p2, q1, q2 coord64) float64 {
	inf := math.Inf(1)
	if !(p1.x.lo > 0) || !(q1.xb.lo > 0) || !(q2.x.lo > 0) {
		return inf
	}
	n := pr.n
	op1, oq2 := p1.xb.div(p1.x), q2.xb.div(q2.x)
	op2, oq1 := p2.x.div(p2.xb), q1.x.div(q1.xb)
	var r0, r1 float64
	if pr.windowed() {
		t0 := pr.tail(p1, p1, q2, q2)
		g0 := pr.gLower(p1.x.lo, q2.x.hi)
		t1 := pr.tail(p2, p2, q1, q1)
		g1 := pr.gLower(p2.xb.lo, q1.xb.hi)
		if !(g0 > 0) || !(g1 > 0) {
			return inf
		}
		r0, r1 = pt64(t0).div(pt64(g0)).hi, pt64(t1).div(pt64(g1)).hi
	}
	for j := pr.lo; j < pr.hi; j++ {
		switch {
		case 2*j < n:
			u := pr.bj[j].add(pr.bpj[j].mul(op1))
			v := pr.bj[j].add(pr.bpj[j].mul(oq2))
			r0 = up(r0 + pr.gUpper(u.hi, v.lo))
		case 2*j > n:
			u := pr.bpj[j].add(pr.bj[j].mul(op2))
			v := pr.bpj[j].add(pr.bj[j].mul(oq1))
			r1 = up(r1 + pr.gUpper(u.hi, v.lo))
		}
	}
	half := func(r float64, gLo, gHi func() float64) float64 {
		b := up(mulUp(pr.f.hi, r) - pr.k1.lo)
		if b <= 0 {
			// g b <= gLo b for b <= 0 (gLo >= 0).
			return up(gLo() * b)
		}
		return mulUp(gHi(), b)
	}
	h0 := half(r0, func() float64 { return pr.gLower(p1.x.lo, q2.x.hi) },
		func() float64 { return pr.gUpper(p2.x.hi, q1.x.lo) })
	h1 := half(r1, func() float64 { return pr.gLower(p2.xb.lo, q1.xb.hi) },
		func() float64 {
			if !(q2.xb.lo > 0) {
				return inf
			}
			return pr.gUpper(p1.xb.hi, q2.xb.lo)
		})
	ub := up(h0 + h1)
	if n%2 == 0 {
		ub = up(ub + mulUp(pr.f.hi, pr.bj[n/2].hi))
	}
	hl := dn(pr.gLower(q1.x.lo, p2.x.hi) + pr.gLower(q2.xb.lo, p1.xb.hi))
	ub = up(ub - dn(pr.k2.lo*max(hl, 0)))
	if ub != ub {
		panic(arithError("NaN bound"))
	}
	return ub
}

// pairedThird is problem.pairedThird in float64. The omitted terms of R0
// at a corner (p, q) are D_j^o u_j^(a-i) v_j^(1-a-j) / (p^(a-i) q^(1-a-j)),
// at most P^i Q^j tail / P0 in magnitude (as in derivsGT); R1's with
// (1-p, 1-q) in P0's place.
func (pr *problem64) pairedThird(p1, p2, q1, q2 coord64, kinds [][2]int, gt []fi) []fi {
	n := pr.n
	corners := [4][2]coord64{{p1, q1}, {p1, q2}, {p2, q1}, {p2, q2}}
	r := make([][2]fi, len(kinds))
	sums := make([][2]fi, len(kinds))
	for c, pq := range corners {
		p, q := pq[0], pq[1]
		odds := [2][2]fi{{p.xb.div(p.x), q.xb.div(q.x)}, {p.x.div(p.xb), q.x.div(q.xb)}}
		var lpq [2][2]fi // log p, log q; log(1-p), log(1-q)
		var tv, pinv, qinv float64
		if pr.windowed() {
			tv = pr.tail(p, p, q, q)
			pinv = pt64(1).div(pt64(min(p.x.lo, p.xb.lo))).hi
			qinv = pt64(1).div(pt64(min(q.x.lo, q.xb.lo))).hi
			lpq = [2][2]fi{{p.x.log(), q.x.log()}, {p.xb.log(), q.xb.log()}}
		}
		for k, ij := range kinds {
			for h := range 2 {
				sums[k][h] = pt64(0)
				if tv == 0 {
					continue
				}
				i, jj := ij[0], ij[1]
				e := pr.a.sub(pt64(float64(i))).mul(lpq[h][0]).add(pr.oma.sub(pt64(float64(jj))).mul(lpq[h][1]))
				p0 := e.exp().lo
				if !(p0 > 0) {
					panic(arithError("no tail bound"))
				}
				t := mulUp(tv, 1)
				for range i {
					t = mulUp(t, pinv)
				}
				for range jj {
					t = mulUp(t, qinv)
				}
				t = pt64(t).div(pt64(p0)).hi
				sums[k][h] = fi{-t, t}
			}
		}
		for j := pr.lo; j < pr.hi; j++ {
			h := 0
			b, bp := pr.bj[j], pr.bpj[j]
			switch {
			case 2*j == n:
				continue
			case 2*j > n:
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
				e := pr.a.sub(pt64(float64(i))).mul(lw).add(pr.oma.sub(pt64(float64(jj))).mul(lz))
				sums[k][h] = sums[k][h].add(ipow64(ad, i+jj).mul(e.exp()))
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
	lp := fi{p1.x.lo, p2.x.hi}.log()
	lpb := fi{p2.xb.lo, p1.xb.hi}.log()
	lq := fi{q1.x.lo, q2.x.hi}.log()
	lqb := fi{q2.xb.lo, q1.xb.hi}.log()
	out := make([]fi, len(kinds))
	for k, ij := range kinds {
		i, j := ij[0], ij[1]
		ei, ej := pr.a.sub(pt64(float64(i))), pr.oma.sub(pt64(float64(j)))
		P0 := ei.mul(lp).add(ej.mul(lq)).exp()
		P1 := ei.mul(lpb).add(ej.mul(lqb)).exp()
		h0 := P0.mul(pr.f.mul(r[k][0]).sub(pr.k1))
		h1 := P1.mul(pr.f.mul(r[k][1]).sub(pr.k1))
		if (i+j)%2 == 1 {
			h1 = h1.neg()
		}
		out[k] = pr.coefs[i][j].mul(h0.add(h1)).sub(pr.k2.mul(gt[k]))
	}
	return out
}

// partial is problem.partial in float64 (+Inf when it cannot center).
func (pr *problem64) partial(p1, p2, q1, q2, ms, mt coord64, axis int) float64 {
	var (
		s1, s2, t1, t2 coord64
		d              fi
		ok             bool
		kinds          = [][2]int{{0, 1}, {0, 2}, {0, 3}}
	)
	if axis == 1 {
		var mq coord64
		if mq, d, ok = center64(q1, q2, mt); !ok {
			return math.Inf(1)
		}
		s1, s2, t1, t2 = p1, p2, mq, mq
	} else {
		var mp coord64
		if mp, d, ok = center64(p1, p2, ms); !ok {
			return math.Inf(1)
		}
		s1, s2, t1, t2 = mp, mp, q1, q2
		kinds = [][2]int{{1, 0}, {2, 0}, {3, 0}}
	}
	a0 := min(pr.monotone(s1, s2, t1, t2), pr.paired(s1, s2, t1, t2))
	ranges := func(a1, a2, b1, b2 coord64, ks [][2]int) []fi {
		r, gt := pr.derivsGT(a1, a2, b1, b2, ks)
		for k, x := range pr.pairedThird(a1, a2, b1, b2, ks, gt) {
			r[k] = fi{max(r[k].lo, x.lo), min(r[k].hi, x.hi)}
		}
		return r
	}
	seg := ranges(s1, s2, t1, t2, kinds[:2])
	r3 := ranges(p1, p2, q1, q2, kinds[2:])[0]
	half := pt64(0.5)
	side := func(g float64, x0, x1 float64) float64 {
		return quad164(pt64(g), half.mul(pt64(seg[1].hi)), x0, x1)
	}
	q := max(side(seg[0].hi, 0, d.hi), side(seg[0].lo, d.lo, 0))
	cube := ipow64(d, 3).mul(r3).div(pt64(6))
	return up(up(a0+q) + max(cube.hi, 0))
}

func quad164(b, c fi, x0, x1 float64) float64 {
	at := func(x float64) float64 {
		v := pt64(x)
		return b.mul(v).add(c.mul(v.sqr())).hi
	}
	m := max(at(x0), at(x1))
	if c.hi < 0 {
		v := b.div(pt64(2).mul(c.neg()))
		if v.hi >= x0 && v.lo <= x1 {
			m = max(m, b.sqr().div(pt64(4).mul(c.neg())).hi)
		}
	}
	if m != m {
		panic(arithError("NaN in quad1"))
	}
	return m
}

// bound is problem.bound in float64: an upper bound of psi on t, +Inf
// when none (an arithmetic exception: NaN, a log of an enclosure reaching
// 0, ...).
func (pr *problem64) bound(t box) (ub float64) {
	defer func() {
		if r := recover(); r != nil {
			if !isArith(r) {
				panic(r)
			}
			ub = math.Inf(1)
		}
	}()
	defer func() {
		if ub != ub {
			ub = math.Inf(1)
		}
	}()
	p1, p2, q1, q2 := logistic64(t.s1), logistic64(t.s2), logistic64(t.t1), logistic64(t.t2)
	ub = pr.monotone(p1, p2, q1, q2)
	if ub <= pr.rhs {
		return ub
	}
	if pb := pr.paired(p1, p2, q1, q2); pb < ub {
		ub = pb
		if ub <= pr.rhs {
			return ub
		}
	}
	if t.s1.inf != 0 || t.s2.inf != 0 || t.t1.inf != 0 || t.t2.inf != 0 {
		return ub
	}
	ms, mt := logistic64(midEnd(t.s1, t.s2)), logistic64(midEnd(t.t1, t.t2))
	for _, paired := range []bool{false, true} {
		ub = min(ub, pr.taylor(p1, p2, q1, q2, ms, mt, paired))
		if ub <= pr.rhs {
			return ub
		}
	}
	for axis := range 2 {
		ub = min(ub, pr.partial(p1, p2, q1, q2, ms, mt, axis))
		if ub <= pr.rhs {
			return ub
		}
	}
	return ub
}

// centerValue is problem.centerValue in float64: a lower bound of psi at
// the logit center of the finite box t (+Inf when none).
func (pr *problem64) centerValue(t box) (v float64) {
	if t.s1.inf != 0 || t.s2.inf != 0 || t.t1.inf != 0 || t.t2.inf != 0 {
		return math.Inf(1)
	}
	defer func() {
		if r := recover(); r != nil {
			if !isArith(r) {
				panic(r)
			}
			v = math.Inf(1)
		}
	}()
	ms, mt := logistic64(midEnd(t.s1, t.s2)), logistic64(midEnd(t.t1, t.t2))
	return pr.derivs(ms, ms, mt, mt, kindsPoint[:1])[0].lo
}
