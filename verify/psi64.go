package verify

import (
	"math"
	"math/big"
	"slices"
	"sort"
)

// problem64 is the inequality of problem (psi.go) with every constant
// enclosed in float64 (fast.go), and the bounds of psi.go ported to it
// line by line. Sums over j run over a window lo <= j < hi; the terms
// outside it are bounded by tail (below). A problem64 with the window
// [0, n+1) has no tail.
type problem64 struct {
	n           int
	thirds      boxThirds // the third derivatives' enclosures over the last box (thirdsAt)
	a, am1, oma fi
	// f, k1 and k2 times e^sigma, and every value of g (at absolute
	// arguments: u_j and v_j, p and q) times e^-sigma, so that psi is
	// unchanged and neither f, k1, k2 nor g leave float64's range where
	// (alpha-1) eps and log U are large (f = e^-999 at alpha 1000, eps
	// 1). Sums of ratios (R0, R1 of paired) are not scaled.
	sigma       float64
	f, k1, k2   fi
	lk1, lk2    fi      // log k1, log k2 (-Inf for 0), plus sigma
	tau         float64 // the scale of paired and pairedThird
	lft, k1t    fi      // log(f e^tau), k1 e^tau
	mid         float64 // B_(n/2) e^-sigma, rounded up (n even)
	rhs         float64 // at most L0 + Tau
	bj, bpj, dj []fi    // B_j, B'_j, B_j - B'_j for j in 0..n (all of them; A_i, A'_i, D_i of terms.go, n = T - 1)
	side        []int8  // the side of each term (terms.go)
	pairThird   bool    // no term of unknown side: pairedThird applies
	lo, hi      int     // the window
	// Upper bounds of the sums over the j outside the window of B_j,
	// B'_j, E_j = (B_j + B'_j)^a B'_j^(1-a) and E'_j = (B_j +
	// B'_j)^a B_j^(1-a) (0 without a window; +Inf when unknown).
	sB, sBp, sE, sEp float64
	coefs            [4][4]fi
	lcache           map[float64]coord64    // logistic's enclosures by exact end
	endTermsUsed     int                    // entries of the ends' endTerms (at most maxEndTerms)
	termsOff         bool                   // keep no endTerms (TestEndTerms compares with and without)
	clock            int64                  // counts the kept coordinates' uses (dropTerms)
	drops            int                    // dropTerms calls
	testMaxTerms     int                    // the cap in place of maxEndTerms (tests; 0: none)
	ccache           map[[4]float64]coord64 // the Taylor centers by their enclosures
	// order[h]: the terms of half h (halfOf) from the most G-like to the
	// least (termOrder; nil for one group: j up for half 0, down for 1).
	order [2][]int32
	// splitJ, splitSuf: splitPaired's scratch.
	splitJ   []int32
	splitSuf []float64
	// diagB, diagBp: diagSums's enclosures of SB and SB' (diagOK: formed).
	diagB, diagBp fi
	diagOK        bool
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
	return newProblem64Bits(c, rhs, windowed, windowBits)
}

// newProblem64Bits is newProblem64 with a window of every j with B_j or
// B'_j at least 2^-bits.
func newProblem64Bits(c *cert, rhs *big.Float, windowed bool, bits int) *problem64 {
	gs := c.grps()
	n := termCount(gs, math.MaxInt) - 1 // the last term's number: c.n for one group
	one := pt64(1)
	a := ratFi(c.alpha)
	pr := &problem64{n: n, a: a, am1: a.sub(one), oma: one.sub(a)}
	// The scale: sigma = log U rounded to an integer (exact), and the
	// exponents sigma - log U and sigma - (alpha-1) eps exact in big.Rat,
	// rounded once.
	lu, _ := c.logU.Float64()
	pr.sigma = math.Round(lu)
	sr := new(big.Rat).SetFloat64(pr.sigma)
	pr.f = ratFi(new(big.Rat).Sub(sr, c.logU)).exp()
	ae := new(big.Rat).Sub(c.alpha, big.NewRat(1, 1))
	le := ratFi(ae.Mul(ae, c.eps).Sub(sr, ae)) // log(e^sigma / E)
	einv := le.exp()
	pr.k1, pr.k2 = ratFi(c.l1).mul(einv), ratFi(c.l2).mul(einv)
	pr.lk1, pr.lk2 = log0(ratFi(c.l1)).add(le), log0(ratFi(c.l2)).add(le)
	// The scale of paired and pairedThird: tau = -log k1 rounded (log U
	// rounded when l1 = 0), so that e^tau k1 is near 1; f e^tau is folded
	// into the exponent of each term of R0 and R1.
	pr.tau = pr.sigma
	if l1, _ := c.l1.Float64(); l1 > 0 {
		pr.tau = math.Round(-(pr.lk1.lo - pr.sigma))
	}
	tr := new(big.Rat).SetFloat64(pr.tau)
	pr.lft = ratFi(new(big.Rat).Sub(tr, c.logU))
	ae2 := new(big.Rat).Sub(c.alpha, big.NewRat(1, 1))
	pr.k1t = log0(ratFi(c.l1)).add(ratFi(ae2.Mul(ae2, c.eps).Sub(tr, ae2))).exp()
	pr.rhs = floatDown(rhs)
	pr.bj, pr.bpj, pr.dj = make([]fi, n+1), make([]fi, n+1), make([]fi, n+1)
	win := windowed && len(gs) == 1 && n >= windowFrom
	var lb []fi // log B_j
	if win {
		lb = make([]fi, n+1)
	}
	eachTerm(gs, func(j int, b ival) {
		if 2*j == n {
			pr.mid = expHi(up(logBig(b).hi - pr.sigma))
		}
		pr.bj[j] = toFi(b)
		pr.bpj[n-j] = pr.bj[j]
		if win {
			lb[j] = logBig(b)
		}
	})
	for j := range pr.dj {
		pr.dj[j] = pr.bj[j].sub(pr.bpj[j])
	}
	pr.side = sides(gs, n+1)
	pr.pairThird = !slices.Contains(pr.side, sideUnknown)
	if len(gs) > 1 {
		pr.order = termOrder(gs, pr.side)
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
	cut := -float64(bits) * math.Ln2
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
	q.lcache, q.ccache, q.endTermsUsed = nil, nil, 0 // the ends' terms are the window's
	q.splitJ, q.splitSuf = nil, nil
	q.diagOK = false
	q.thirds = boxThirds{}
	return &q
}

// boxThirds holds, for one box, derivsGT's and pairedThird's enclosures
// of each third kind (kindsThird's order) as they are formed: partial
// takes one kind over the tile's box and taylorBoth all four, so that on
// a tile that tries both each kind is formed once. Each kind's
// enclosures do not depend on the other kinds formed with it, so that
// they are the same bit for bit.
type boxThirds struct {
	box            [4]coord64
	r, gt, paired  [4]fi
	have, pairHave [4]bool
}

// thirdsAt returns derivsGT(p1, p2, q1, q2, kindsThird[ks...]) (out and
// gt), each kind formed once per box.
func (pr *problem64) thirdsAt(p1, p2, q1, q2 coord64, ks []int) (out, gt []fi) {
	if testNoThirdsCache {
		return pr.derivsGT(p1, p2, q1, q2, thirdKinds(ks))
	}
	bt := &pr.thirds
	if b := [4]coord64{p1, p2, q1, q2}; bt.box != b {
		*bt = boxThirds{box: b}
	}
	if at := missing(&bt.have, ks); len(at) > 0 {
		r, g := pr.derivsGT(p1, p2, q1, q2, thirdKinds(at))
		for i, k := range at {
			bt.r[k], bt.gt[k], bt.have[k] = r[i], g[i], true
		}
	}
	return pick(&bt.r, ks), pick(&bt.gt, ks)
}

// pairedThirdsAt returns pairedThird over the box for kindsThird[ks...]
// (nil where pairedThird has none), each kind formed once per box; the
// box's thirdsAt of the same kinds come first.
func (pr *problem64) pairedThirdsAt(p1, p2, q1, q2 coord64, ks []int) []fi {
	if !pr.pairThird {
		return nil
	}
	_, gt := pr.thirdsAt(p1, p2, q1, q2, ks)
	if testNoThirdsCache {
		return pr.pairedThird(p1, p2, q1, q2, thirdKinds(ks), gt)
	}
	bt := &pr.thirds
	if at := missing(&bt.pairHave, ks); len(at) > 0 {
		r := pr.pairedThird(p1, p2, q1, q2, thirdKinds(at), pick(&bt.gt, at))
		for i, k := range at {
			bt.paired[k], bt.pairHave[k] = r[i], true
		}
	}
	return pick(&bt.paired, ks)
}

// missing returns the kinds of ks (indices into kindsThird) not yet in
// have.
func missing(have *[4]bool, ks []int) []int {
	var at []int
	for _, k := range ks {
		if !have[k] {
			at = append(at, k)
		}
	}
	return at
}

// pick returns v[ks...].
func pick(v *[4]fi, ks []int) []fi {
	out := make([]fi, len(ks))
	for i, k := range ks {
		out[i] = v[k]
	}
	return out
}

// testNoThirdsCache makes thirdsAt and pairedThirdsAt call derivsGT and
// pairedThird at each call, no enclosure kept (before/after).
var testNoThirdsCache bool

// thirdKinds returns kindsThird[ks...].
func thirdKinds(ks []int) [][2]int {
	out := make([][2]int, len(ks))
	for i, k := range ks {
		out[i] = kindsThird[k]
	}
	return out
}

// allThirds indexes every kind of kindsThird.
var allThirds = []int{0, 1, 2, 3}

func (pr *problem64) windowed() bool { return pr.lo > 0 || pr.hi < pr.n+1 }

func falling64(x fi, i int) fi {
	r := pt64(1)
	for k := range i {
		r = r.mul(x.sub(pt64(float64(k))))
	}
	return r
}

// coord64 is a coordinate x of the unit square with 1 - x and both logs
// enclosed apart: log x keeps its precision where x underflows (a logit
// beyond about -708), so that the terms of G and G^T, x^a y^(1-a), are
// bounded from the logs and not from an enclosure [0, tiny] of x.
type coord64 struct {
	x, xb, lx, lxb fi
	et             *endTerms // the tile end's terms (nil: none kept)
}

// coordOf returns the coordinate with x and 1 - x enclosed by x and xb
// (its logs from them; -Inf for an end at 0).
func coordOf(x, xb fi) coord64 { return coord64{x: x, xb: xb, lx: log0(x), lxb: log0(xb)} }

// log0 encloses log x for x >= 0, with log 0 = -Inf.
func log0(x fi) fi {
	if x.hi <= 0 {
		return fi{math.Inf(-1), math.Inf(-1)}
	}
	r := fi{math.Inf(-1), logHi(x.hi)}
	if x.lo > 0 {
		r.lo = logLo(x.lo)
	}
	return r
}

// log1p64 encloses log(1 + y) for y >= 0: from y - y^2/2 <= log(1 + y)
// <= y for small y (relative precision kept), else from log of 1 + y
// rounded outward.
func log1p64(y fi) fi {
	const small = 0x1p-30
	var r fi
	if y.lo < small {
		r.lo = max(dn(y.lo-up(up(y.lo*y.lo)*0.5)), 0)
	} else {
		r.lo = logLo(dn(1 + y.lo))
	}
	if y.hi < small {
		r.hi = y.hi
	} else {
		r.hi = logHi(up(1 + y.hi))
	}
	return r
}

// logistic64 encloses x = 1/(1+e^-s), 1 - x = 1/(1+e^s) and their logs:
// for s <= 0, log x = s - log(1 + e^s) and log(1-x) = -log(1 + e^s), and
// the mirror for s > 0 (no cancellation, and no underflow for any s).
func logistic64(s end) coord64 {
	inf := math.Inf(1)
	switch {
	case s.inf < 0:
		return coord64{x: pt64(0), xb: pt64(1), lx: fi{-inf, -inf}, lxb: pt64(0)}
	case s.inf > 0:
		return coord64{x: pt64(1), xb: pt64(0), lx: pt64(0), lxb: fi{-inf, -inf}}
	}
	v := pt64(s.f)
	if !s.exact {
		v = ratFi(s.r)
	}
	one := pt64(1)
	c := coord64{x: one.div(one.add(v.neg().exp())), xb: one.div(one.add(v.exp()))}
	if v.hi <= 0 {
		l := log1p64(v.exp())
		c.lx, c.lxb = v.sub(l), l.neg()
	} else {
		l := log1p64(v.neg().exp())
		c.lx, c.lxb = l.neg(), v.neg().sub(l)
	}
	return c
}

func lin64(x coord64, b, bp fi) fi { return x.x.mul(b).add(x.xb.mul(bp)) }

// pos and posB say whether x > 0 and 1 - x > 0 are known (finite logs).
func (c coord64) pos() bool  { return c.lx.lo > math.Inf(-1) }
func (c coord64) posB() bool { return c.lxb.lo > math.Inf(-1) }

// odds encloses (1-x)/x for x > 0 (invOdds x/(1-x) for x < 1): by
// division where x is normal, from the logs where it underflows (+Inf at
// worst, never below the truth).
func (c coord64) odds() fi { return ratio(c.xb, c.x, c.lxb, c.lx) }

func (c coord64) invOdds() fi { return ratio(c.x, c.xb, c.lx, c.lxb) }

func ratio(a, b, la, lb fi) fi {
	if b.lo >= 0x1p-1000 {
		return a.div(b)
	}
	return la.sub(lb).exp()
}

// recip returns an upper bound of 1/min(x, 1-x) for x between the
// coordinates x1 <= x2: e^-min(log x1, log(1 - x2)) (+Inf at an edge).
func recip(x1, x2 coord64) float64 {
	return expHi(-min(x1.lx.lo, x2.lxb.lo))
}

// k2H returns a lower bound of k2 G^T(p, q) = k2 (g(q, p) + g(1-q, 1-p))
// on the box: k2 (g(q1, p2) + g(1-q2, 1-p1)), from the logs.
func (pr *problem64) k2H(p1, p2, q1, q2 coord64) float64 {
	return dn(pr.gLowerK(pr.lk2, q1.lx.lo, p2.lx.hi) + pr.gLowerK(pr.lk2, q2.lxb.lo, p1.lxb.hi))
}

// mulUp returns an upper bound of x s for x, s >= 0 (0 when s is 0, even
// for x = +Inf: s = 0 is an exact empty sum).
func mulUp(x, s float64) float64 {
	if s == 0 || x == 0 {
		return 0
	}
	return up(x * s)
}

// gUpper returns an upper bound of g(u, v) = u^a v^(1-a) at u = uHi, v = vLo
// (times e^-sigma, as every g of gUpperL, gLower and gLowerL).
func (pr *problem64) gUpper(uHi, vLo float64) float64 {
	if uHi == 0 {
		return 0
	}
	return pr.gUpperL(logHi(uHi), logLo(vLo))
}

// gUpperL returns an upper bound of g(u, v) from an upper bound lu of log u
// and a lower bound lv of log v (0 for lu = -Inf, +Inf for lv = -Inf).
func (pr *problem64) gUpperL(lu, lv float64) float64 {
	if math.IsInf(lu, -1) {
		return 0
	}
	return expHi(pr.a.mul(pt64(lu)).add(pr.oma.mul(pt64(lv))).sub(pt64(pr.sigma)).hi)
}

// gRatio returns an upper bound of f e^tau g(u, v) at u = uHi > 0, v =
// vLo (the terms of R0 and R1 of paired, times f e^tau).
func (pr *problem64) gRatio(uHi, vLo float64) float64 {
	return pr.gRatioL(logHi(uHi), logLo(vLo))
}

// gRatioL is gRatio from an upper bound lu of log u and a lower bound lv
// of log v (the log's arithmetic exception for lu or lv = -Inf, a u or v
// enclosure reaching 0).
func (pr *problem64) gRatioL(lu, lv float64) float64 {
	if math.IsInf(lu, -1) || math.IsInf(lv, -1) {
		panic(arithError("float64 log of a number that is not positive"))
	}
	return expHi(pr.a.mul(pt64(lu)).add(pr.oma.mul(pt64(lv))).add(pr.lft).hi)
}

// gTau returns a lower (upward false) or upper bound of g(u, v) e^-tau
// from bounds of log u and log v on the matching sides (0 for lu = -Inf,
// +Inf for lv = -Inf upward).
func (pr *problem64) gTau(lu, lv float64, upward bool) float64 {
	if math.IsInf(lu, -1) {
		return 0
	}
	e := pr.a.mul(pt64(lu)).add(pr.oma.mul(pt64(lv))).sub(pt64(pr.tau))
	if upward {
		return expHi(e.hi)
	}
	return expLo(e.lo)
}

// gLowerK returns a lower bound of e^lk g(u, v) (times e^-sigma) from a
// lower bound lu of log u and an upper bound lv of log v (0 for lu or
// lk.lo = -Inf): k g in log space, for k = k1 or k2 (e^-999 at alpha 1000,
// eps 1) and g far above 1.
func (pr *problem64) gLowerK(lk fi, lu, lv float64) float64 {
	if math.IsInf(lu, -1) || math.IsInf(lk.lo, -1) {
		return 0
	}
	return expLo(pt64(lk.lo).add(pr.a.mul(pt64(lu))).add(pr.oma.mul(pt64(lv))).sub(pt64(pr.sigma)).lo)
}

// gLower returns a lower bound of g(u, v) at u = uLo, v = vHi.
func (pr *problem64) gLower(uLo, vHi float64) float64 {
	if uLo <= 0 {
		return 0
	}
	return pr.gLowerL(logLo(uLo), logHi(vHi))
}

// gLowerL returns a lower bound of g(u, v) from a lower bound lu of log u
// and an upper bound lv of log v (0 for lu = -Inf).
func (pr *problem64) gLowerL(lu, lv float64) float64 {
	if math.IsInf(lu, -1) {
		return 0
	}
	return expLo(pr.a.mul(pt64(lu)).add(pr.oma.mul(pt64(lv))).sub(pt64(pr.sigma)).lo)
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
	if q1.pos() && q2.posB() {
		t := up(mulUp(pr.gUpperL(p2.lx.hi, q1.lx.lo), pr.sB) + mulUp(pr.gUpperL(p1.lxb.hi, q2.lxb.lo), pr.sBp))
		best = min(best, t)
	}
	if q2.posB() {
		best = min(best, mulUp(pr.gUpperL(0, q2.lxb.lo), pr.sE))
	}
	if q1.pos() {
		best = min(best, mulUp(pr.gUpperL(0, q1.lx.lo), pr.sEp))
	}
	if best != best {
		panic(arithError("NaN tail"))
	}
	return best
}

// monotone is problem.monotone in float64, with the omitted terms of
// F_n bounded in one of two ways (the smaller bound is returned): by tail,
// or absorbed into G. The latter because each omitted term is at most B_j
// g(p, q) + B'_j g(1-p, 1-q) (tail, (i)), so that
//
//	f F_n - k1 G <= f W + (f sB - k1) g(p, q) + (f sBp - k1) g(1-p, 1-q)
//
// with W the window's sum: k1 is lowered by f sB (or f sBp), a relative
// change of about 2^-windowBits n, and the bound needs no corner where g
// is large (at q = 0, say, where tail is infinite).
func (pr *problem64) monotone(p1, p2, q1, q2 coord64) float64 {
	w := pr.fUpper(p1, p2, q1, q2)
	fw := mulUp(pr.f.hi, w)
	k2h := pr.k2H(p1, p2, q1, q2)
	k1g := dn(pr.gLowerK(pr.lk1, p1.lx.lo, q2.lx.hi) + pr.gLowerK(pr.lk1, p2.lxb.lo, q1.lxb.hi))
	ub := up(up(up(fw+mulUp(pr.f.hi, pr.tail(p1, p2, q1, q2)))-k1g) - k2h)
	if pr.windowed() {
		sB, sBp := pr.absorbed()
		a := up(up(fw+pr.minusG0(sB, p1, p2, q1, q2)) + pr.minusG1(sBp, p1, p2, q1, q2))
		ub = min(ub, up(a-k2h))
	}
	if ub != ub {
		panic(arithError("NaN bound"))
	}
	return ub
}

// processed is monotone with every term of F_n absorbed into G: F_n is
// the Renyi moment of the laws of the n coins drawn through one channel
// from Bern(p) and from Bern(q), so F_n <= G (alpha > 1, data processing)
// and
//
//	f F_n - k1 G - k2 G^T <= (f - k1) g(p, q) + (f - k1) g(1-p, 1-q) - k2 G^T,
//
// with no sum over j. It is exact on the diagonal (F_n = G = G^T = 1).
func (pr *problem64) processed(p1, p2, q1, q2 coord64) float64 {
	ub := up(up(pr.minusG0(1, p1, p2, q1, q2)+pr.minusG1(1, p1, p2, q1, q2)) - pr.k2H(p1, p2, q1, q2))
	if ub != ub {
		panic(arithError("NaN bound"))
	}
	return ub
}

// testNoProcessed: problem64.bound does not try processed (before/after).
var testNoProcessed bool

// absorbed returns sB and sBp, the sums that monotone and paired absorb
// into G (0 under testNoTail).
func (pr *problem64) absorbed() (sB, sBp float64) {
	if testNoTail {
		return 0, 0
	}
	return pr.sB, pr.sBp
}

// minusG0 returns an upper bound of (f s - k1) g(p, q) on the box, s >= 0;
// minusG1 of (f s - k1) g(1-p, 1-q).
func (pr *problem64) minusG0(s float64, p1, p2, q1, q2 coord64) float64 {
	return pr.timesG(s, func(lk fi) float64 { return pr.gLowerK(lk, p1.lx.lo, q2.lx.hi) },
		func() float64 { return pr.gUpperL(p2.lx.hi, q1.lx.lo) })
}

func (pr *problem64) minusG1(s float64, p1, p2, q1, q2 coord64) float64 {
	return pr.timesG(s, func(lk fi) float64 { return pr.gLowerK(lk, p2.lxb.lo, q1.lxb.hi) },
		func() float64 { return pr.gUpperL(p1.lxb.hi, q2.lxb.lo) })
}

// timesG returns an upper bound of (f s - k1) g, s >= 0, with kg(lk) a
// lower bound of e^lk g for an enclosure lk and gHi() an upper bound of
// g. Where f s < k1 the product is formed in log space: k1 - f s = k1 (1
// - r), r = f s / k1, so that k1 may be below float64's range while k1 g
// is not.
func (pr *problem64) timesG(s float64, kg func(lk fi) float64, gHi func() float64) float64 {
	if s == 0 {
		return -kg(pr.lk1)
	}
	fs := mulUp(pr.f.hi, s)
	if r := expHi(up(logHi(fs) - pr.lk1.lo)); r < 1 {
		l := dn(pr.lk1.lo + logLo(dn(1-r)))
		return -kg(fi{l, l})
	}
	return mulUp(gHi(), max(up(fs-pr.k1.lo), 0))
}

// fUpper returns an upper bound of the window's part of F_n on the box:
// its terms, each at its largest u and smallest v.
func (pr *problem64) fUpper(p1, p2, q1, q2 coord64) float64 {
	var fu float64
	for j := pr.lo; j < pr.hi; j++ {
		fu = up(fu + pr.termUpper(j, p1, p2, q1, q2))
	}
	return fu
}

// termUpper returns an upper bound of term j of F_n on the box.
func (pr *problem64) termUpper(j int, p1, p2, q1, q2 coord64) float64 {
	if p1.et != nil && p2.et != nil && q1.et != nil && q2.et != nil {
		// The ends' logs: max of the upper bounds, min of the lower.
		lu := max(pr.luAt(p1, j).hi, pr.luAt(p2, j).hi)
		if math.IsInf(lu, -1) {
			return 0
		}
		lv := min(pr.luAt(q1, j).lo, pr.luAt(q2, j).lo)
		return pr.gUpperL(lu, logOf(fi{lv, lv}).lo)
	}
	b, bp := pr.bj[j], pr.bpj[j]
	u1, u2 := lin64(p1, b, bp), lin64(p2, b, bp)
	v1, v2 := lin64(q1, b, bp), lin64(q2, b, bp)
	return pr.gUpper(max(u1.hi, u2.hi), min(v1.lo, v2.lo))
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
		pinv = recip(p1, p2)
		qinv = recip(q1, q2)
	}
	// terms returns c_(i,j) e^shift u^(a-i) v^(1-a-j) e^-sigma for each
	// kind (k1 G and k2 G^T with shift log k1 or log k2: the product in
	// log space).
	terms := func(u, v, lu, lv fi, swap bool, out []fi, shift fi) {
		if math.IsInf(shift.hi, -1) {
			for k := range kinds {
				out[k] = pt64(0)
			}
			return
		}
		sh := shift.sub(pt64(pr.sigma))
		var g fi
		if point {
			g = pr.a.mul(lu).add(pr.oma.mul(lv)).add(sh).exp()
		}
		for k, ij := range kinds {
			i, j := ij[0], ij[1]
			if swap {
				i, j = j, i
			}
			c := pr.coefs[i][j]
			if point {
				// c g / (u^i v^j), unless the power underflows.
				if d := ipow64(u, i).mul(ipow64(v, j)); d.lo >= 0x1p-1000 {
					out[k] = c.mul(g.div(d))
					continue
				}
			}
			e := pr.a.sub(pt64(float64(i))).mul(lu).add(pr.oma.sub(pt64(float64(j))).mul(lv))
			out[k] = c.mul(e.add(sh).exp())
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
	ends := p1.et != nil && p2.et != nil && q1.et != nil && q2.et != nil
	for j := pr.lo; j < pr.hi; j++ {
		if ends && point {
			lu, lv := pr.luAt(p1, j), pr.luAt(q1, j)
			terms(pr.uAt(p1, j), pr.uAt(q1, j), logOf(lu), logOf(lv), false, ts, fi{})
		} else if ends {
			// log of the hull of u_j at the ends: the hull of their logs.
			a1, a2, b1, b2 := pr.luAt(p1, j), pr.luAt(p2, j), pr.luAt(q1, j), pr.luAt(q2, j)
			terms(fi{}, fi{}, logOf(a1.hull(a2)), logOf(b1.hull(b2)), false, ts, fi{})
		} else {
			b, bp := pr.bj[j], pr.bpj[j]
			u := lin64(p1, b, bp).hull(lin64(p2, b, bp))
			v := lin64(q1, b, bp).hull(lin64(q2, b, bp))
			terms(u, v, u.log(), v.log(), false, ts, fi{})
		}
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
	lp, lpb, lq, lqb := fi{p1.lx.lo, p2.lx.hi}, fi{p2.lxb.lo, p1.lxb.hi}, fi{q1.lx.lo, q2.lx.hi}, fi{q2.lxb.lo, q1.lxb.hi}
	g1, g2, h1, h2 := buf[4*nk:5*nk], buf[5*nk:6*nk], buf[6*nk:7*nk], make([]fi, nk)
	terms(pr1, qr1, lp, lq, false, g1, pr.lk1)
	terms(pr2, qr2, lpb, lqb, false, g2, pr.lk1)
	terms(qr1, pr1, lq, lp, true, h1, pr.lk2)
	terms(qr2, pr2, lqb, lpb, true, h2, pr.lk2)
	for k, ij := range kinds {
		g2k, h2k := g2[k], h2[k]
		if (ij[0]+ij[1])%2 == 1 {
			g2k, h2k = g2k.neg(), h2k.neg()
		}
		G, H := g1[k].add(g2k), h1[k].add(h2k)
		gt[k] = H
		out[k] = pr.f.mul(F[k]).sub(G).sub(H)
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
		return coordOf(cp, pt64(1).sub(cp)), fi{pt64(x1.x.lo).sub(cp).lo, pt64(x2.x.hi).sub(cp).hi}, true
	}
	c := mid.xb.lo
	if c < x2.xb.hi || c > x1.xb.lo {
		return coord64{}, fi{}, false
	}
	cp := pt64(c)
	return coordOf(pt64(1).sub(cp), cp), fi{cp.sub(pt64(x1.xb.hi)).lo, cp.sub(pt64(x2.xb.lo)).hi}, true
}

// taylor is problem.taylor in float64 (+Inf when it cannot center).
func (pr *problem64) taylor(p1, p2, q1, q2, ms, mt coord64, paired bool) float64 {
	if paired {
		return pr.taylorBoth(p1, p2, q1, q2, ms, mt, math.Inf(-1))
	}
	return pr.taylorBoth(p1, p2, q1, q2, ms, mt, math.Inf(1))
}

// taylorBoth returns the unpaired Taylor bound when it is at most stop,
// else the paired one (the third derivatives' enclosures intersected with
// pairedThird's; the unpaired bound when pairedThird raises an arithmetic
// exception): the two share the center's derivatives and derivsGT, which
// are computed once.
func (pr *problem64) taylorBoth(p1, p2, q1, q2, ms, mt coord64, stop float64) float64 {
	mp, dp, ok1 := pr.center(p1, p2, ms)
	mq, dq, ok2 := pr.center(q1, q2, mt)
	if !ok1 || !ok2 {
		return math.Inf(1)
	}
	c := pr.derivs(mp, mp, mq, mq, kindsPoint)
	r, _ := pr.thirdsAt(p1, p2, q1, q2, allThirds)
	q := quadMax64(c[1], c[2], c[3], c[4], c[5], dp, dq)
	value := func() float64 {
		rem := pt64(0)
		for k, ij := range kindsThird {
			i, j := ij[0], ij[1]
			fact := float64([4]int64{1, 1, 2, 6}[i] * [4]int64{1, 1, 2, 6}[j])
			rem = rem.add(r[k].mul(ipow64(dp, i)).mul(ipow64(dq, j)).div(pt64(fact)))
		}
		return up(up(c[0].hi+q) + rem.hi)
	}
	ub := math.Inf(1)
	if stop > math.Inf(-1) {
		ub = try(value)
		if ub <= stop {
			return ub
		}
	}
	pt := func() float64 {
		for k, x := range pr.pairedThirdsAt(p1, p2, q1, q2, allThirds) {
			r[k] = fi{max(r[k].lo, x.lo), min(r[k].hi, x.hi)}
		}
		return value()
	}
	return min(ub, try(pt))
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
// of F_n are absorbed as in monotone: they are at most sB g(p, q) + sBp
// g(1-p, 1-q), so R0 gains sB and R1 sBp. A half that cannot be paired
// (its odds are infinite at an edge, or overflow) is bounded as in
// monotone, f times its terms at their largest u and smallest v plus (f
// sB - k1) g(p, q) (or the mirror).
func (pr *problem64) paired(p1, p2, q1, q2 coord64) float64 {
	inf := math.Inf(1)
	// r0 and r1 stay +Inf for a half that cannot be paired (an edge, or
	// odds that overflow).
	r0, r1 := inf, inf
	var op1, oq2, op2, oq1 fi
	if p1.pos() && q2.pos() {
		op1, oq2, r0 = p1.odds(), q2.odds(), 0
	}
	if p2.posB() && q1.posB() {
		op2, oq1, r1 = p2.invOdds(), q1.invOdds(), 0
	}
	sB, sBp := pr.absorbed()
	if r0 == 0 {
		r0 = mulUp(sB, expHi(pr.lft.hi))
	}
	if r1 == 0 {
		r1 = mulUp(sBp, expHi(pr.lft.hi))
	}
	if r0 == inf && r1 == inf {
		return inf // the monotone bound
	}
	for j := pr.lo; j < pr.hi; j++ {
		s := pr.side[j]
		switch {
		case (s == sideLo || s == sideUnknown) && r0 < inf:
			r0 = up(r0 + pr.gRatioL(pr.lwAt(p1, j, 0, op1).hi, pr.lwAt(q2, j, 0, oq2).lo))
		case s == sideHi && r1 < inf:
			r1 = up(r1 + pr.gRatioL(pr.lwAt(p2, j, 1, op2).hi, pr.lwAt(q1, j, 1, oq1).lo))
		}
	}
	half := func(r float64, gLo, gHi func() float64) float64 {
		if r == inf {
			return inf // no pairing (and 0 times +Inf is no bound)
		}
		b := up(r - pr.k1t.lo)
		if b <= 0 {
			// g b <= gLo b for b <= 0 (gLo >= 0).
			return up(gLo() * b)
		}
		return mulUp(gHi(), b)
	}
	h0 := half(r0, func() float64 { return pr.gTau(p1.lx.lo, q2.lx.hi, false) },
		func() float64 { return pr.gTau(p2.lx.hi, q1.lx.lo, true) })
	h1 := half(r1, func() float64 { return pr.gTau(p2.lxb.lo, q1.lxb.hi, false) },
		func() float64 { return pr.gTau(p1.lxb.hi, q2.lxb.lo, true) })
	if h0 == inf || h1 == inf {
		var m [2]float64
		for j := pr.lo; j < pr.hi; j++ {
			s := pr.side[j]
			switch {
			case (s == sideLo || s == sideUnknown) && h0 == inf:
				m[0] = up(m[0] + pr.termUpper(j, p1, p2, q1, q2))
			case s == sideHi && h1 == inf:
				m[1] = up(m[1] + pr.termUpper(j, p1, p2, q1, q2))
			}
		}
		if h0 == inf {
			h0 = up(mulUp(pr.f.hi, m[0]) + pr.minusG0(sB, p1, p2, q1, q2))
		}
		if h1 == inf {
			h1 = up(mulUp(pr.f.hi, m[1]) + pr.minusG1(sBp, p1, p2, q1, q2))
		}
	}
	return pr.joinHalves(h0, h1, p1, p2, q1, q2)
}

// joinHalves returns an upper bound of psi on the box from upper bounds
// h0 and h1 of its two halves (f times F's terms of each half and the
// omitted terms' share, less k1 times G's half): plus f times the
// constant term (sideMid), less k2 G^T (k2H).
func (pr *problem64) joinHalves(h0, h1 float64, p1, p2, q1, q2 coord64) float64 {
	ub := up(h0 + h1)
	if pr.side[pr.n/2] == sideMid {
		ub = up(ub + mulUp(pr.f.hi, pr.mid))
	}
	ub = up(ub - pr.k2H(p1, p2, q1, q2))
	if ub != ub {
		panic(arithError("NaN bound"))
	}
	return ub
}

// splitPaired returns an upper bound of psi on the box with corners p1
// <= p2, q1 <= q2 (+Inf for none) that pairs with G's half only some of
// F's terms, as paired does all of them, and bounds the others by their
// largest value over the box, as monotone does.
//
// Half 0 (half 1 is its mirror: 1-p, 1-q, B_j and B'_j swapped, sideHi,
// the pairing corner (p2, q1)). For a term j of half 0, u_j = p w_j(p)
// and v_j = q w_j(q) with w_j(x) = B_j + B'_j (1-x)/x, so by
// 1-homogeneity g(u_j, v_j) = g(p, q) rho_j(p, q), rho_j = w_j(p)^a
// w_j(q)^(1-a): w_j decreases, a > 1 and 1-a < 0, so rho_j decreases in p
// and increases in q, and over the box rho_j <= rho_j(p1, q2). For any
// set S of half 0's terms in the window, with sB >= the sum of B_j over
// the j outside it (absorbed: each omitted term is at most B_j g(p, q) +
// B'_j g(1-p, 1-q), tail's (i), so f times the omitted terms is at most f
// sB g(p, q) + f sBp g(1-p, 1-q), the second part going to half 1),
//
//	f sum_(j in S) g(u_j, v_j) + f sB g(p, q) - k1 g(p, q)
//	    = g(p, q) (f (sum_(j in S) rho_j + sB) - k1) <= g(p, q) b,
//
// b = f (sum_(j in S) rho_j(p1, q2) + sB) - k1 (scaled by e^tau as in
// paired); and g(p, q) b <= g(p1, q2) b when b <= 0 (g >= its least
// value over the box, at (p1, q2)), else <= g(p2, q1) b (its largest).
// The terms of half 0 not in S are each at most termUpper (their largest
// u and smallest v over the box, u_j and v_j being linear in p and q). So
// half 0 of psi, f times its terms and omitted share less k1 g(p, q), is
// at most that pairing bound plus f times the sum of termUpper over the
// rest, for every S. S = none gives monotone's half (with the omitted
// terms absorbed), S = all of them paired's.
//
// The S tried are the prefixes of the half's terms from the most G-like
// (B'_j/B_j smallest: w_j nearly the constant B_j, rho_j nearly B_j^a
// B_j^(1-a), so its ratio to g(p, q) moves little over the box) to the
// least (termOrder): every prefix, each in O(1) from the running sum of
// rho_j at the pairing corner and the sums of termUpper over the suffixes
// (all rounded up). Near the diagonal at large alpha the terms with B'_j
// comparable to B_j are nearly constant while g(p, q) moves by e^(alpha
// w) over a box of width w: paired takes their ratio to g at the wrong
// corner, monotone takes g itself at both. The best prefix of each half
// is taken; the constant term (sideMid) and k2 G^T are as in paired. A
// half that cannot be paired (an edge) is monotone's.
func (pr *problem64) splitPaired(p1, p2, q1, q2 coord64) float64 {
	sB, sBp := pr.absorbed()
	h0 := pr.splitHalf(0, sB, p1, p2, q1, q2)
	h1 := pr.splitHalf(1, sBp, p1, p2, q1, q2)
	return pr.joinHalves(h0, h1, p1, p2, q1, q2)
}

// testSplitWrongCorner is a test hook: splitPaired bounds the unpaired
// terms at their least u and largest v (a deliberately wrong bound, which
// tests must catch). testNoSplitPaired: bound does not try splitPaired.
var testSplitWrongCorner, testNoSplitPaired bool

// splitHalf returns splitPaired's bound of half h (f times its terms and
// the omitted terms' share s g, less k1 times G's half h): the least over
// the prefixes.
func (pr *problem64) splitHalf(h int, s float64, p1, p2, q1, q2 coord64) float64 {
	js := pr.halfTerms(h)
	// suf[i]: the sum of termUpper over js[i:], rounded up.
	if cap(pr.splitSuf) < len(js)+1 {
		pr.splitSuf = make([]float64, len(js)+1)
	}
	suf := pr.splitSuf[:len(js)+1]
	suf[len(js)] = 0
	for i := len(js) - 1; i >= 0; i-- {
		t := pr.termUpper(int(js[i]), p1, p2, q1, q2)
		if testSplitWrongCorner {
			t = pr.termLowerWrong(int(js[i]), p1, p2, q1, q2)
		}
		suf[i] = up(suf[i+1] + t)
	}
	// The half unpaired (monotone's): f times every term at its largest,
	// plus (f s - k1) g.
	var best float64
	if h == 0 {
		best = up(mulUp(pr.f.hi, suf[0]) + pr.minusG0(s, p1, p2, q1, q2))
	} else {
		best = up(mulUp(pr.f.hi, suf[0]) + pr.minusG1(s, p1, p2, q1, q2))
	}
	// The pairing corner's odds and G's half at its least and largest
	// (times e^-tau), as in paired.
	var ox, oy fi
	var x, y coord64
	var gLo, gHi float64
	if h == 0 {
		if !p1.pos() || !q2.pos() {
			return best
		}
		x, y, ox, oy = p1, q2, p1.odds(), q2.odds()
		gLo, gHi = pr.gTau(p1.lx.lo, q2.lx.hi, false), pr.gTau(p2.lx.hi, q1.lx.lo, true)
	} else {
		if !p2.posB() || !q1.posB() {
			return best
		}
		x, y, ox, oy = p2, q1, p2.invOdds(), q1.invOdds()
		gLo, gHi = pr.gTau(p2.lxb.lo, q1.lxb.hi, false), pr.gTau(p1.lxb.hi, q2.lxb.lo, true)
	}
	r := mulUp(s, expHi(pr.lft.hi))
	for i := 0; ; i++ {
		b := up(r - pr.k1t.lo)
		var v float64
		if b <= 0 {
			v = up(gLo * b)
		} else {
			v = mulUp(gHi, b)
		}
		best = min(best, up(v+mulUp(pr.f.hi, suf[i])))
		if i == len(js) {
			return best
		}
		j := int(js[i])
		r = up(r + pr.gRatioL(pr.lwAt(x, j, h, ox).hi, pr.lwAt(y, j, h, oy).lo))
	}
}

// termLowerWrong is termUpper at the wrong corner (least u, largest v):
// for testSplitWrongCorner only.
func (pr *problem64) termLowerWrong(j int, p1, p2, q1, q2 coord64) float64 {
	b, bp := pr.bj[j], pr.bpj[j]
	u1, u2 := lin64(p1, b, bp), lin64(p2, b, bp)
	v1, v2 := lin64(q1, b, bp), lin64(q2, b, bp)
	return pr.gUpper(min(u1.hi, u2.hi), max(v1.lo, v2.lo))
}

// halfTerms returns the window's terms of half h (halfOf) from the most
// G-like to the least (pr.order; one group: j up for half 0, down for
// half 1, B'_j/B_j being ((1-c)/c)^(2j-n)), in a buffer that the next
// call reuses.
func (pr *problem64) halfTerms(h int) []int32 {
	js := pr.splitJ[:0]
	switch {
	case pr.order[h] != nil:
		for _, j := range pr.order[h] {
			if int(j) >= pr.lo && int(j) < pr.hi {
				js = append(js, j)
			}
		}
	case h == 0:
		for j := pr.lo; j < pr.hi; j++ {
			if pr.halfOf(j) == 0 {
				js = append(js, int32(j))
			}
		}
	default:
		for j := pr.hi - 1; j >= pr.lo; j-- {
			if pr.halfOf(j) == 1 {
				js = append(js, int32(j))
			}
		}
	}
	pr.splitJ = js
	return js
}

// pairedThird is problem.pairedThird in float64. The omitted terms of R0
// at a corner (p, q) are D_j^o u_j^(a-i) v_j^(1-a-j) / (p^(a-i) q^(1-a-j)),
// at most P^i Q^j tail / P0 in magnitude (as in derivsGT); R1's with
// (1-p, 1-q) in P0's place.
func (pr *problem64) pairedThird(p1, p2, q1, q2 coord64, kinds [][2]int, gt []fi) []fi {
	if !pr.pairThird {
		return nil // a term of unknown side (problem.pairedThird)
	}
	corners := [4][2]coord64{{p1, q1}, {p1, q2}, {p2, q1}, {p2, q2}}
	// A segment (p1 = p2 or q1 = q2, as partial's) has two distinct
	// corners: nx, ny count the distinct p and q, and the others are
	// skipped (at (10^4, 0.4782, 1.001, 0.01501) the segments were half
	// of the check's pairedThird).
	nx, ny := 2, 2
	if p1 == p2 && !testNoSegment {
		nx = 1
	}
	if q1 == q2 && !testNoSegment {
		ny = 1
	}
	skip := func(c int) bool { return c>>1 >= nx || c&1 >= ny }
	// sums[k][c][h]: R0 (h = 0) and R1 (h = 1) of kind k at corner c, the
	// corner (ps[c>>1], qs[c&1]).
	sums := make([][4][2]fi, len(kinds))
	for c, pq := range corners {
		if skip(c) {
			continue
		}
		p, q := pq[0], pq[1]
		var lpq [2][2]fi // log p, log q; log(1-p), log(1-q)
		var tv, pinv, qinv float64
		if pr.windowed() {
			tv = pr.tail(p, p, q, q)
			pinv = recip(p, p)
			qinv = recip(q, q)
			lpq = [2][2]fi{{p.lx, q.lx}, {p.lxb, q.lxb}}
		}
		for k, ij := range kinds {
			for h := range 2 {
				sums[k][c][h] = pt64(0)
				if tv == 0 {
					continue
				}
				i, jj := ij[0], ij[1]
				e := pr.a.sub(pt64(float64(i))).mul(lpq[h][0]).add(pr.oma.sub(pt64(float64(jj))).mul(lpq[h][1]))
				p0 := expLo(e.sub(pt64(pr.sigma)).lo)
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
				t = mulUp(pt64(t).div(pt64(p0)).hi, expHi(pr.lft.hi))
				sums[k][c][h] = fi{-t, t}
			}
		}
	}
	// The odds of each p and q ((1-x)/x for R0, x/(1-x) for R1): w and
	// its log depend on the corner's p only, z on its q only, so that
	// they are computed once for the two corners that share them.
	ps, qs := [2]coord64{p1, p2}, [2]coord64{q1, q2}
	var oddsP, oddsQ [2][2]fi // for the coordinates without endTerms
	for x := range 2 {
		if ps[x].et == nil {
			oddsP[x] = [2]fi{ps[x].odds(), ps[x].invOdds()}
		}
		if qs[x].et == nil {
			oddsQ[x] = [2]fi{qs[x].odds(), qs[x].invOdds()}
		}
	}
	adk := make([]fi, len(kinds))
	for j := pr.lo; j < pr.hi; j++ {
		h := 0
		switch pr.side[j] { // never sideUnknown here (pairThird)
		case sideMid:
			continue
		case sideHi:
			h = 1
		}
		ad := pr.dj[j]
		if h == 1 {
			ad = ad.neg()
		}
		for k, ij := range kinds {
			adk[k] = ipow64(ad, ij[0]+ij[1])
		}
		// w^(a-i) z^(1-a-jj) e^lft = g e^lft / (w^i z^jj): one exp for
		// every kind, unless w or z is so small that the powers could
		// leave float64's range (pw, pz: the powers of 1/w and 1/z).
		var lw, lz [2]fi
		var pw, pz [2][4]fi
		var okw, okz [2]bool
		for x := range nx {
			var l fi
			_, l, pw[x], okw[x] = pr.wAt(ps[x], j, h, oddsP[x][h])
			lw[x] = logOf(l)
		}
		for y := range ny {
			var l fi
			_, l, pz[y], okz[y] = pr.wAt(qs[y], j, h, oddsQ[y][h])
			lz[y] = logOf(l)
		}
		for c := range corners {
			if skip(c) {
				continue
			}
			x, y := c>>1, c&1
			shared := okw[x] && okz[y]
			var g fi
			if shared {
				g = pr.a.mul(lw[x]).add(pr.oma.mul(lz[y])).add(pr.lft).exp()
			}
			for k, ij := range kinds {
				i, jj := ij[0], ij[1]
				var t fi
				if shared {
					t = g.mul(pw[x][i]).mul(pz[y][jj])
				} else {
					e := pr.a.sub(pt64(float64(i))).mul(lw[x]).add(pr.oma.sub(pt64(float64(jj))).mul(lz[y]))
					t = e.add(pr.lft).exp()
				}
				sums[k][c][h] = sums[k][c][h].add(adk[k].mul(t))
			}
		}
	}
	r := make([][2]fi, len(kinds))
	for k := range kinds {
		for h := range 2 {
			r[k][h] = sums[k][0][h]
			for c := 1; c < len(corners); c++ {
				if !skip(c) {
					r[k][h] = r[k][h].hull(sums[k][c][h])
				}
			}
		}
	}
	lp, lpb := fi{p1.lx.lo, p2.lx.hi}, fi{p2.lxb.lo, p1.lxb.hi}
	lq, lqb := fi{q1.lx.lo, q2.lx.hi}, fi{q2.lxb.lo, q1.lxb.hi}
	out := make([]fi, len(kinds))
	for k, ij := range kinds {
		i, j := ij[0], ij[1]
		ei, ej := pr.a.sub(pt64(float64(i))), pr.oma.sub(pt64(float64(j)))
		P0 := ei.mul(lp).add(ej.mul(lq)).sub(pt64(pr.tau)).exp()
		P1 := ei.mul(lpb).add(ej.mul(lqb)).sub(pt64(pr.tau)).exp()
		h0 := P0.mul(r[k][0].sub(pr.k1t))
		h1 := P1.mul(r[k][1].sub(pr.k1t))
		if (i+j)%2 == 1 {
			h1 = h1.neg()
		}
		out[k] = pr.coefs[i][j].mul(h0.add(h1)).sub(gt[k])
	}
	return out
}

// testNoSegment makes pairedThird take a segment's four corners, two of
// them twice (before/after: the same enclosures bit for bit).
var testNoSegment bool

// partial is problem.partial in float64 (+Inf when it cannot center).
func (pr *problem64) partial(p1, p2, q1, q2, ms, mt coord64, axis int) float64 {
	var (
		s1, s2, t1, t2 coord64
		d              fi
		ok             bool
		kinds          = [][2]int{{0, 1}, {0, 2}} // over the segment
		third          = []int{3}                 // over the box: (0, 3) in kindsThird
	)
	if axis == 1 {
		var mq coord64
		if mq, d, ok = pr.center(q1, q2, mt); !ok {
			return math.Inf(1)
		}
		s1, s2, t1, t2 = p1, p2, mq, mq
	} else {
		var mp coord64
		if mp, d, ok = pr.center(p1, p2, ms); !ok {
			return math.Inf(1)
		}
		s1, s2, t1, t2 = mp, mp, q1, q2
		kinds, third = [][2]int{{1, 0}, {2, 0}}, []int{0} // (3, 0)
	}
	a0 := min(pr.monotone(s1, s2, t1, t2), pr.paired(s1, s2, t1, t2))
	seg, segGT := pr.derivsGT(s1, s2, t1, t2, kinds)
	r3s, _ := pr.thirdsAt(p1, p2, q1, q2, third)
	r3 := r3s[0]
	value := func() float64 {
		half := pt64(0.5)
		side := func(g float64, x0, x1 float64) float64 {
			return quad164(pt64(g), half.mul(pt64(seg[1].hi)), x0, x1)
		}
		q := max(side(seg[0].hi, 0, d.hi), side(seg[0].lo, d.lo, 0))
		cube := ipow64(d, 3).mul(r3).div(pt64(6))
		return up(up(a0+q) + max(cube.hi, 0))
	}
	// pairedThird only narrows derivsGT's ranges, and costs as much
	// again: it is formed only where they do not close the box (as
	// taylorBoth). Where it has no bound (a corner whose p^(a-i)
	// underflows, as at logit -1024), derivsGT's ranges stand.
	ub := try(value)
	if ub <= pr.rhs {
		return ub
	}
	// narrow intersects r with the paired enclosures, where they exist.
	narrow := func(r []fi, paired func() []fi) {
		try(func() float64 {
			for k, x := range paired() {
				r[k] = fi{max(r[k].lo, x.lo), min(r[k].hi, x.hi)}
			}
			return 0
		})
	}
	narrow(seg, func() []fi { return pr.pairedThird(s1, s2, t1, t2, kinds, segGT) })
	narrow(r3s, func() []fi { return pr.pairedThirdsAt(p1, p2, q1, q2, third) })
	r3 = r3s[0]
	return min(ub, try(value))
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
	p1, p2, q1, q2, err := pr.logistic4(t)
	if err {
		return math.Inf(1)
	}
	ub = math.Inf(1)
	if !testNoProcessed {
		ub = try(func() float64 { return pr.processed(p1, p2, q1, q2) })
		if ub <= pr.rhs {
			return ub
		}
	}
	ub = min(ub, try(func() float64 { return pr.monotone(p1, p2, q1, q2) }))
	if ub <= pr.rhs {
		return ub
	}
	ub = min(ub, try(func() float64 { return pr.paired(p1, p2, q1, q2) }))
	if ub <= pr.rhs {
		return ub
	}
	if !testNoSplitPaired {
		ub = min(ub, try(func() float64 { return pr.splitPaired(p1, p2, q1, q2) }))
		if ub <= pr.rhs {
			return ub
		}
	}
	if t.s1.inf != 0 || t.s2.inf != 0 || t.t1.inf != 0 || t.t2.inf != 0 {
		return ub
	}
	var ms, mt coord64
	if try(func() float64 {
		ms, mt = pr.logisticMid(t.s1, t.s2), pr.logisticMid(t.t1, t.t2)
		return 0
	}) != 0 {
		return ub
	}
	// Near an edge at small alpha, the one-variable form along the side
	// nearer 0 (axis 1, Taylor in q, where s is the farther) closes most
	// tiles the forms above leave, and the other forms almost none of
	// them (measured at alpha 1.001: of the solver's edge tiles, 728 of
	// 1,160 at n = 10^3 and 10^4, and never the other axis alone): it is
	// tried before them.
	first := -1
	if es, et := max(-t.s1.f, t.s2.f), max(-t.t1.f, t.t2.f); max(es, et) > edgeLogit && pr.a.hi < partialFirstBelow && !testNoPartialFirst {
		first = 0
		if es > et {
			first = 1
		}
		ub = min(ub, try(func() float64 { return pr.partial(p1, p2, q1, q2, ms, mt, first) }))
		if ub <= pr.rhs {
			return ub
		}
	}
	// The diagonal-curvature bound before the Taylor forms: it costs
	// about a third of taylorBoth and closes the large tiles near the
	// diagonal that they leave.
	if r1, r2, ok := curveBox(t, p1, p2, q1, q2); ok && !testNoCurve && pr.curveNear(p1, p2) {
		ub = min(ub, try(func() float64 { return pr.curve(p1, p2, q1, q2, r1, r2, pr.rhs) }))
		if ub <= pr.rhs {
			return ub
		}
	}
	ub = min(ub, try(func() float64 { return pr.taylorBoth(p1, p2, q1, q2, ms, mt, pr.rhs) }))
	if ub <= pr.rhs {
		return ub
	}
	for axis := range 2 {
		if axis == first {
			continue
		}
		ub = min(ub, try(func() float64 { return pr.partial(p1, p2, q1, q2, ms, mt, axis) }))
		if ub <= pr.rhs {
			return ub
		}
	}
	return ub
}

// edgeLogit and partialFirstBelow: the one-variable form is tried first
// on tiles reaching beyond logit edgeLogit (p or q within about 5e-5 of
// 0 or 1) when alpha < partialFirstBelow (bound).
// testNoPartialFirst keeps the old order (before/after).
const (
	edgeLogit         = 10
	partialFirstBelow = 10
)

var testNoPartialFirst bool

// try returns fn's bound, or +Inf for NaN or an arithmetic exception (a
// bound dropped, never trusted; the others are still tried).
func try(fn func() float64) (ub float64) {
	defer func() {
		if r := recover(); r != nil {
			if !isArith(r) {
				panic(r)
			}
			ub = math.Inf(1)
		}
	}()
	ub = fn()
	if ub != ub {
		ub = math.Inf(1)
	}
	return ub
}

// logistic4 returns the coordinates of t's corners (err on an arithmetic
// exception).
func (pr *problem64) logistic4(t box) (p1, p2, q1, q2 coord64, err bool) {
	err = try(func() float64 {
		p1, p2, q1, q2 = pr.logistic(t.s1), pr.logistic(t.s2), pr.logistic(t.t1), pr.logistic(t.t2)
		return 0
	}) != 0
	return
}

// logistic is logistic64, remembered for the ends that the parser read
// exactly as float64 (the tiles share their ends; the enclosure depends
// on the end only).
func (pr *problem64) logistic(s end) coord64 {
	if s.inf != 0 || !s.exact {
		return logistic64(s)
	}
	if c, ok := pr.lcache[s.f]; ok {
		if pr.reuse(&c) {
			pr.lcache[s.f] = c
		}
		return c
	}
	c := logistic64(s)
	pr.keepTerms(&c)
	if pr.lcache == nil {
		pr.lcache = map[float64]coord64{}
	}
	pr.lcache[s.f] = c
	return c
}

// logisticMid is logistic64 at the midpoint of the finite ends a and b:
// from float64 when both are exact and so is their midpoint (the sum's
// rounding error, by Knuth's two-sum, is 0, and halving it does not
// underflow), else from midEnd's rational.
func logisticMid(a, b end) coord64 {
	if m, ok := exactMid(a, b); ok {
		return logistic64(end{f: m, exact: true})
	}
	return logistic64(midEnd(a, b))
}

// exactMid returns the midpoint of a and b when both are exact and so is
// the midpoint in float64.
func exactMid(a, b end) (float64, bool) {
	if a.exact && b.exact {
		s := a.f + b.f
		bb := s - a.f
		if (a.f-(s-bb))+(b.f-bb) == 0 && !math.IsInf(s, 0) {
			if m := s / 2; m*2 == s {
				return m, true
			}
		}
	}
	return 0, false
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
	ms, mt := logisticMid(t.s1, t.s2), logisticMid(t.t1, t.t2)
	return pr.derivs(ms, ms, mt, mt, kindsPoint[:1])[0].lo
}

// endTerms holds, for one exact tile end x (a coordinate that many tiles
// share), the enclosures over the window's j (index j - lo) that the
// bounds take at x, built on first use: the numbers the bounds would
// otherwise compute again for every tile with that end. An enclosure whose
// end at 0 has no log keeps -Inf there; the bounds then raise the
// arithmetic exception that the log would have raised.
type endTerms struct {
	used int64 // when a tile last took it (problem64.clock)
	u    []fi  // u_j(x) = x B_j + (1-x) B'_j (lin64)
	lu   []fi  // log u_j(x) (log0)
	// w_j(x) = B_j + B'_j (1-x)/x for the terms of half 0, B'_j + B_j
	// x/(1-x) for those of half 1 (halfOf: sideLo and sideUnknown, sideHi;
	// with one group 2j < n, 2j > n), and its log (log0); pw, the powers
	// (1/w_j)^i, i = 0..3, where okw (w_j >= 2^-300).
	half [2]bool
	w    []fi
	lw   []fi
	pw   [][4]fi
	okw  []bool
}

// maxEndTerms caps the entries of every end's endTerms of a problem (about
// 120 bytes each): past it, the ends' terms are computed for each tile.
const maxEndTerms = 1 << 18

// luAt returns log u_j(x) at the end x (x.et not nil), as log0.
func (pr *problem64) luAt(x coord64, j int) fi {
	e := x.et
	if e.lu == nil {
		u, lu := make([]fi, pr.hi-pr.lo), make([]fi, pr.hi-pr.lo)
		for i := range lu {
			u[i] = lin64(x, pr.bj[pr.lo+i], pr.bpj[pr.lo+i])
			lu[i] = log0(u[i])
		}
		e.u, e.lu = u, lu
	}
	return e.lu[j-pr.lo]
}

// uAt returns u_j(x) at the end x (x.et not nil).
func (pr *problem64) uAt(x coord64, j int) fi {
	pr.luAt(x, j)
	return x.et.u[j-pr.lo]
}

// keepTerms gives x an endTerms (x is then a coordinate that many tiles
// share: an end, a midpoint, a center). When the cap is reached the kept
// coordinates drop theirs first (dropTerms): the tiles are checked column
// by column (Check), so the coordinates in use are the recent ones.
func (pr *problem64) keepTerms(x *coord64) {
	m, cap := pr.hi-pr.lo, maxEndTerms
	if pr.testMaxTerms > 0 {
		cap = pr.testMaxTerms
	}
	if m <= 0 || m > cap || pr.termsOff {
		return
	}
	if pr.endTermsUsed+m > cap {
		pr.dropTerms()
		pr.drops++
	}
	pr.endTermsUsed += m
	pr.clock++
	x.et = &endTerms{used: pr.clock}
}

// reuse marks the kept coordinate x as used now, or gives it an endTerms
// again where dropTerms took its (then it says x changed, to be stored).
func (pr *problem64) reuse(x *coord64) (changed bool) {
	pr.clock++
	if x.et == nil {
		pr.keepTerms(x)
		return x.et != nil
	}
	x.et.used = pr.clock
	return false
}

// dropTerms removes the endTerms of the least recently used half of the
// kept coordinates (a tile that holds one keeps it until it is done).
func (pr *problem64) dropTerms() {
	type kept struct {
		used int64
		drop func()
	}
	var ks []kept
	for k, c := range pr.lcache {
		if c.et != nil {
			ks = append(ks, kept{c.et.used, func() { c.et = nil; pr.lcache[k] = c }})
		}
	}
	for k, c := range pr.ccache {
		if c.et != nil {
			ks = append(ks, kept{c.et.used, func() { c.et = nil; pr.ccache[k] = c }})
		}
	}
	sort.Slice(ks, func(a, b int) bool { return ks[a].used < ks[b].used })
	for _, k := range ks[:(len(ks)+1)/2] {
		k.drop()
		pr.endTermsUsed -= pr.hi - pr.lo
	}
}

// center is center64 with the center remembered by its enclosures of x
// and 1 - x (the tiles of a column share it; the same enclosures give the
// same coordinate), with its endTerms; the offsets d are center64's.
func (pr *problem64) center(x1, x2, mid coord64) (coord64, fi, bool) {
	m, d, ok := center64(x1, x2, mid)
	if !ok {
		return m, d, ok
	}
	key := [4]float64{m.x.lo, m.x.hi, m.xb.lo, m.xb.hi} // coordOf's inputs
	if c, ok := pr.ccache[key]; ok {
		if pr.reuse(&c) {
			pr.ccache[key] = c
		}
		return c, d, true
	}
	pr.keepTerms(&m)
	if pr.ccache == nil {
		pr.ccache = map[[4]float64]coord64{}
	}
	pr.ccache[key] = m
	return m, d, true
}

// logisticMid is the package's logisticMid, remembered for an exact
// midpoint (in the ends' cache: the same coordinate).
func (pr *problem64) logisticMid(a, b end) coord64 {
	if m, ok := exactMid(a, b); ok {
		return pr.logistic(end{f: m, exact: true})
	}
	return logistic64(midEnd(a, b))
}

// logOf returns the log enclosure l (as log0 gives it) with the
// arithmetic exception that the log of an enclosure reaching 0 raises.
func logOf(l fi) fi {
	if math.IsInf(l.lo, -1) {
		panic(arithError("float64 log of a number that is not positive"))
	}
	return l
}

// wAt returns w_j(x), its log (as log0), the powers of 1/w_j and whether
// they are kept (w_j >= 2^-300), for j in the window, h = halfOf(j) >=
// 0 (the half's entries are all that x.et holds): from x.et when kept,
// else computed from odds, x's odds for h = 0, its inverse for h = 1
// (unused when x.et is kept).
func (pr *problem64) wAt(x coord64, j, h int, odds fi) (w, lw fi, pw [4]fi, ok bool) {
	e := x.et
	if e == nil {
		return pr.wOne(j, h, odds)
	}
	if !e.half[h] {
		pr.wBuild(x, h)
	}
	i := j - pr.lo
	return e.w[i], e.lw[i], e.pw[i], e.okw[i]
}

// lwAt is the log of wAt alone.
func (pr *problem64) lwAt(x coord64, j, h int, odds fi) fi {
	if e := x.et; e != nil && e.half[h] {
		return e.lw[j-pr.lo]
	}
	_, lw, _, _ := pr.wAt(x, j, h, odds)
	return lw
}

// wOne computes w_j, its log, the powers of 1/w_j and whether they are
// kept, from odds (x's odds for h = 0, its inverse for h = 1).
func (pr *problem64) wOne(j, h int, odds fi) (w, lw fi, pw [4]fi, ok bool) {
	b, bp := pr.bj[j], pr.bpj[j]
	if h == 1 {
		b, bp = bp, b
	}
	w = b.add(bp.mul(odds))
	lw = log0(w)
	if ok = w.lo >= 0x1p-300; ok {
		iw := pt64(1).div(w)
		for i := range pw {
			pw[i] = ipow64(iw, i)
		}
	}
	return
}

// halfOf returns the half of G that term j is paired with (paired's R0
// or R1, the h of wAt): 0 for sideLo and sideUnknown, 1 for sideHi, -1
// for sideMid (no pairing: the constant term).
func (pr *problem64) halfOf(j int) int {
	switch pr.side[j] {
	case sideHi:
		return 1
	case sideMid:
		return -1
	}
	return 0
}

// wBuild fills x.et's half h (an arithmetic exception leaves it unbuilt).
func (pr *problem64) wBuild(x coord64, h int) {
	e := x.et
	m := pr.hi - pr.lo
	if e.w == nil {
		e.w, e.lw, e.pw, e.okw = make([]fi, m), make([]fi, m), make([][4]fi, m), make([]bool, m)
	}
	o := x.odds()
	if h == 1 {
		o = x.invOdds()
	}
	for j := pr.lo; j < pr.hi; j++ {
		if pr.halfOf(j) != h {
			continue
		}
		i := j - pr.lo
		e.w[i], e.lw[i], e.pw[i], e.okw[i] = pr.wOne(j, h, o)
	}
	e.half[h] = true
}
