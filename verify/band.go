package verify

import (
	"fmt"
	"math"
	"math/big"
)

// The diagonal band of a pieces certificate (certfile.File.BandBoxes).
//
// Near the diagonal p = q at large alpha, psi varies on the scale 1/alpha
// across the diagonal but on the scale 1 along it. The band's boxes are
// rectangles [s1, s2] x [r1, r2] in (s, r = t - s), s and t the logits of
// p and q: parallelograms {(s, s + r)} of the (s, t) square. The checker
// proves, exactly, that they partition the band [S1, S2] x [-beta, beta]
// of (s, r) (checkCover), and excuses every tile that lies inside the
// band's parallelogram {S1 <= s <= S2, |t - s| <= beta} (inBand): the
// tiles still partition the half square, and each point is in a tile that
// is bounded or in the band, whose boxes are bounded.
//
// The bound of a band box. psi is a signed sum of weighted pieces e^Phi,
//
//	Phi(s, r) = A psi_l(x) + (1-A) psi_l(y),  x = sg s, y = sg (s + r),
//	psi_l(x)  = log((e^x + e^-l)/(e^x + 1)) = softplus(-(x+l)) - softplus(-x),
//
// F_n's term j < n/2 with weight B_j/U and l = (n-2j) log((1-c)/c) for
// both sg = +1 (the halves in (p, q)) and sg = -1 (in (1-p, 1-q): term
// n - j), A = alpha; G with weight L1/E, l = +Inf (psi_Inf = log sigma),
// A = alpha, subtracted; G^T likewise with L2/E and A = 1 - alpha. (Term
// n/2 of an even n is the constant B_(n/2): no derivative.) Since x - y =
// -sg r, the mean value theorem with mu = -A sg r gives
//
//	Phi     = psi(y) + mu psi'(xi0)
//	Phi_s   = sg (psi'(y) + mu psi''(xi1))      Phi_r = sg (1-A) psi'(y)
//	Phi_ss  = psi''(y) + mu psi'''(xi2)         Phi_sr = Phi_rr = (1-A) psi''(y)
//	Phi_sss = sg (psi'''(y) + mu psi''''(xi3))  Phi_ssr = Phi_srr = Phi_rrr = sg (1-A) psi'''(y)
//
// with every xi between x and y (in the hull of the box's x and y): the
// s-derivatives stay of order 1 however large alpha is, and mu is of
// order alpha |r| <= alpha beta. The third derivatives of e^Phi are
//
//	D30 = e^Phi (Phi_s^3 + 3 Phi_s Phi_ss + Phi_sss)
//	D21 = e^Phi (Phi_s^2 Phi_r + 2 Phi_s Phi_sr + Phi_r Phi_ss + Phi_ssr)
//	D12 = e^Phi (Phi_s Phi_r^2 + Phi_s Phi_rr + 2 Phi_r Phi_sr + Phi_srr)
//	D03 = e^Phi (Phi_r^3 + 3 Phi_r Phi_rr + Phi_rrr)
//
// each enclosed over the box in float64 interval arithmetic. The
// derivatives of psi_l are psi_l^(k)(x) = sigma^(k-1)(x + l) -
// sigma^(k-1)(x) = l times a mean of sigma^(k) over [x, x + l] (k >= 1; both
// enclosed and intersected), with sigma^(k) = P_k(sigma) a polynomial of
// degree k + 1 with integer coefficients (P_0(S) = S, P_(k+1) = P_k'(S)
// S (1 - S)), enclosed over an interval of S by its values at the ends
// and on enclosures of P_k's critical points (proved by bisection with
// interval Horner, once). F's terms are grouped by
// l: every term with l within bandBucket of a group's least l (or with l
// >= bandGroupFrom, one group with l in [least, +Inf]) is bounded by the
// group's weight sum times the range of a piece with l in the group's
// range (psi_l^(k) enclosures hold for every l in it); so are the terms
// whose weight is below e^-bandTiny of the largest, as one group with l
// in [their least l, +Inf].
//
// The difference form. Where l + x is large, F's piece and G's piece of
// the same side nearly agree: psi_l(x) = log sigma(x) + softplus(-(x+l)),
// so e^Phi_l = f e^Delta with f = e^Phi_Inf and
//
//	Delta = A softplus(-(x+l)) + (1-A) softplus(-(y+l)) = -Phi_Inf(x + l, y + l),
//
// of order alpha e^-(l+x). Taken range by range, F's pieces (weights W
// summing to about 1/U) and G's (weight -L1/E, about -1/U) lose this
// cancellation, and the enclosure is of the size of either piece's third
// derivatives (alpha^3 e^Phi), orders of magnitude above psi's: at (n, c,
// alpha, eps) = (3342, 0.4572, 377.353, 0.003274) on s in [-0.25,
// -0.1875], r in [0.0159, 0.01656] with a certificate's multipliers,
// D03 in [-4.47e6, 4.47e6] against [-17.1, -5.42] below. So on each
// side, F's groups with l1 + x >= bandDiffFrom over the box (x the least
// of sg s and sg (s + r)) are taken as W f + W f g, g = e^Delta - 1, and
// psi's third derivatives on that side are
//
//	(sum of their W - L1/E) D3 f + sum W D3(f g) + (the other groups) - (L2/E) D3 (G^T's piece)
//
// the coefficient enclosed from the weights before it multiplies f's
// range. Delta's derivatives are those of G's Phi above with y and the
// hull H shifted by [l1, l2] (for every l in it; l2 = +Inf is an
// infinite end, where sigma's enclosures saturate), negated (mu is
// unchanged: x - y is); by Leibniz's rule D^(i,j)(f g) = sum_(a<=i,b<=j)
// C(i,a) C(j,b) D^(a,b) f D^(i-a,j-b) g, with D^(a,b) e^Phi = e^Phi times
// the Bell polynomials of Phi's derivatives (D10 = e^Phi Phi_s, D20 =
// e^Phi (Phi_s^2 + Phi_ss), D11 = e^Phi (Phi_s Phi_r + Phi_sr), ..., the
// third ones above), g's with e^Delta except D00 g = e^Delta - 1
// (enclosed with relative precision). Every term of D3(f g) is of order
// e^-(l+x) times f's (and e^Delta's range grows with mu e^-(l+x)). Both
// forms enclose the same sum (those groups and G's piece): the
// difference form is the tighter where e^-(l+x) is small, but can be the
// looser where it is not (up to 364 times, D03 at (1, 0.495, 10) in
// band_test.go's golden boxes), so where it alone does not close a box
// the bound is retried with the two enclosures intersected (twice the
// work, never wider than the pieces one by one). It is tried from l1 + x >= bandDiffFrom = 2: on the golden
// boxes of band_test.go, at every (n, c, alpha), the mean over boxes of
// log10 of the widths over the pieces' was within 0.03 of the least
// among thresholds 0, 1, 2, 3, 4 and 8.
//
// With these, psi over the box is at most
//
//	psi(m) + max_h [grad psi(m) . h + h' H(m) h / 2] + sum_{i+j=3} D^(i,j) h_s^i h_r^j / (i! j!)
//
// (Taylor with the Lagrange remainder; m the box's center, h over the box
// minus m), the value, gradient and Hessian at m from the (p, q)
// derivatives of problem64 (derivs at a point, the window's tail included)
// by the chain rule: p' = p(1-p), p'' = p'(1-2p), likewise q,
//
//	psi_s = p' psi_p + q' psi_q,  psi_r = q' psi_q,
//	psi_ss = p'^2 psi_pp + 2 p' q' psi_pq + q'^2 psi_qq + p'' psi_p + q'' psi_q,
//	psi_sr = p' q' psi_pq + q'^2 psi_qq + q'' psi_q,  psi_rr = q'^2 psi_qq + q'' psi_q,
//
// and the quadratic maximized over the rectangle by quadMax64. A box the
// form does not close is also bounded by problem64's bounds on its
// bounding rectangle [s1, s2] x [s1 + r1, s2 + r2] in (s, t), and split
// (in s, or in r where alpha times its width is larger) up to the tiles'
// budget.

// bandCert is the band of a certificate: its extent and boxes (box.t1,
// box.t2 hold r).
type bandCert struct {
	beta, s1, s2 end
	boxes        []box
}

// bandRoot returns the band [S1, S2] x [-beta, beta] in (s, r).
func (bc *bandCert) root() box {
	nb := new(big.Rat).Neg(bc.beta.r)
	return box{bc.s1, bc.s2, end{r: nb, f: -bc.beta.f, exact: bc.beta.exact}, bc.beta}
}

// checkBand checks the band's extent (0 < beta, S1 < S2 <= 0) and that its
// boxes partition it (checkCover).
func checkBand(bc *bandCert) error {
	if bc.beta.r.Sign() <= 0 {
		return fmt.Errorf("band beta %v is not positive", bc.beta)
	}
	if cmpEnd(bc.s1, bc.s2) >= 0 || bc.s2.r.Sign() > 0 {
		return fmt.Errorf("band [%v, %v] in s is empty or not inside s <= 0", bc.s1, bc.s2)
	}
	return checkCover(bc.boxes, bc.root(), "the band")
}

// inBand says whether the tile t lies inside the band's parallelogram:
// S1 <= s1, s2 <= S2, t2 - s1 <= beta and t1 - s2 >= -beta (exact).
func (bc *bandCert) inBand(t box) bool {
	if bc == nil || t.s1.inf != 0 || t.s2.inf != 0 || t.t1.inf != 0 || t.t2.inf != 0 {
		return false
	}
	if cmpEnd(t.s1, bc.s1) < 0 || cmpEnd(t.s2, bc.s2) > 0 {
		return false
	}
	hi := new(big.Rat).Sub(t.t2.r, t.s1.r)
	lo := new(big.Rat).Sub(t.t1.r, t.s2.r)
	return hi.Cmp(bc.beta.r) <= 0 && lo.Neg(lo).Cmp(bc.beta.r) <= 0
}

// Grouping of F's terms in the third derivatives' enclosure.
const (
	bandBucket    = 0.25 // a group's l spans at most this
	bandGroupFrom = 60   // terms with l >= this form one group with l in [least, +Inf]
	bandTiny      = 50   // so do terms whose weight is below e^-bandTiny of the largest
	// bandBits is the window of the sums at the band's centers (for n >=
	// windowFrom): every j with B_j or B'_j at least 2^-bandBits, the
	// rest bounded by problem64's tail (about 1e-21 of psi's scale, far
	// below any margin the solver leaves).
	bandBits = 70
)

// bandPiece is a weighted piece e^Phi of psi: weight e^lw, l in [l1, l2]
// (+Inf: log sigma), exponent A.
type bandPiece struct {
	lw     fi
	l1, l2 float64
	a      fi
}

// bandProblem bounds psi on band boxes.
type bandProblem struct {
	pr    *problem64 // the center's value and derivatives
	alpha float64    // alpha rounded (only to choose a split)
	a     fi         // alpha enclosed
	fs    []bandPiece
	// g and gt are G's and G^T's pieces (l = +Inf, weights L1/E and
	// L2/E, subtracted), nil for a zero multiplier.
	g, gt *bandPiece
}

// newBandProblem prepares the pieces of a pieces certificate (one group
// of n bits at c), with pr the float64 problem of the centers (its
// weights B_j are those of every j).
func newBandProblem(c *cert, pr *problem64) *bandProblem {
	bp := &bandProblem{pr: pr, a: ratFi(c.alpha)}
	bp.alpha, _ = c.alpha.Float64()
	one := big.NewRat(1, 1)
	L := ratFi(new(big.Rat).Quo(new(big.Rat).Sub(one, c.c), c.c)).log()
	logU := ratFi(c.logU)
	a := ratFi(c.alpha)
	n := c.n
	type group struct {
		w      fi
		l1, l2 float64
	}
	var gs []group
	tail := group{l1: math.Inf(1), l2: math.Inf(1)}
	tiny := 0.0 // a weight below which a term joins tail (e^-bandTiny of the largest)
	for j := 0; 2*j < n; j++ {
		tiny = max(tiny, pr.bj[j].hi)
	}
	tiny *= math.Exp(-bandTiny)
	for j := (n - 1) / 2; j >= 0; j-- { // l increasing
		l := pt64(float64(n - 2*j)).mul(L)
		b := pr.bj[j]
		switch k := len(gs) - 1; {
		case l.lo >= bandGroupFrom || b.hi < tiny:
			tail.w = tail.w.add(b)
			tail.l1 = min(tail.l1, l.lo)
		case k >= 0 && l.hi-gs[k].l1 <= bandBucket:
			gs[k].w = gs[k].w.add(b)
			gs[k].l2 = max(gs[k].l2, l.hi)
		default:
			gs = append(gs, group{b, l.lo, l.hi})
		}
	}
	if tail.w.hi > 0 {
		gs = append(gs, tail)
	}
	for _, g := range gs {
		if g.w.hi > 0 {
			bp.fs = append(bp.fs, bandPiece{lw: log0(g.w).sub(logU), l1: g.l1, l2: g.l2, a: a})
		}
	}
	// log(L1/E), log(L2/E): E = e^((alpha-1) eps).
	ae := new(big.Rat).Sub(c.alpha, one)
	le := ratFi(ae.Mul(ae, c.eps))
	inf := math.Inf(1)
	if c.l1.Sign() > 0 {
		bp.g = &bandPiece{lw: ratFi(c.l1).log().sub(le), l1: inf, l2: inf, a: a}
	}
	if c.l2.Sign() > 0 {
		bp.gt = &bandPiece{lw: ratFi(c.l2).log().sub(le), l1: inf, l2: inf, a: pt64(1).sub(a)}
	}
	return bp
}

// sigPolys[k] are the integer coefficients, in S = sigma(x), of the k-th
// derivative of sigma (k = 0..5), sigDerivs[k] those of d/dS of it, and
// sigCrits[k] enclosures of every zero of sigDerivs[k] in [0, 1] (sigmaCrits).
var sigPolys, sigDerivs = sigmaCoefs()
var sigCrits = sigmaCrits()

func sigmaCoefs() (ps, ds [6][]float64) {
	ps[0] = []float64{0, 1}
	deriv := func(c []float64) []float64 {
		d := make([]float64, len(c)-1)
		for i := 1; i < len(c); i++ {
			d[i-1] = float64(i) * c[i]
		}
		return d
	}
	for k := range ps {
		if k > 0 {
			// P_k = P_(k-1)' (S - S^2): exact small integers.
			d := deriv(ps[k-1])
			p := make([]float64, len(d)+2)
			for i, x := range d {
				p[i+1] += x
				p[i+2] -= x
			}
			ps[k] = p
		}
		ds[k] = deriv(ps[k])
	}
	return ps, ds
}

// sigmaCrits encloses the zeros of P_k' in [0, 1]: [0, 1] is bisected
// until P_k' has one sign on a piece (interval Horner, outward) or the
// piece is narrower than 2^-40; the narrow pieces, adjacent ones merged,
// hold every zero, and P_k is monotone on each gap between them.
func sigmaCrits() (cs [6][]fi) {
	for k := range cs {
		var rec func(lo, hi float64)
		rec = func(lo, hi float64) {
			d := horner(sigDerivs[k], fi{lo, hi})
			if d.lo > 0 || d.hi < 0 {
				return
			}
			m := (lo + hi) / 2
			if hi-lo < 0x1p-40 || !(m > lo && m < hi) {
				if n := len(cs[k]); n > 0 && cs[k][n-1].hi >= lo {
					cs[k][n-1].hi = hi
				} else {
					cs[k] = append(cs[k], fi{lo, hi})
				}
				return
			}
			rec(lo, m)
			rec(m, hi)
		}
		rec(0, 1)
	}
	return cs
}

// horner encloses the polynomial c at every S in s.
func horner(c []float64, s fi) fi {
	v := pt64(c[len(c)-1])
	for i := len(c) - 2; i >= 0; i-- {
		v = v.mul(s).add(pt64(c[i]))
	}
	return v
}

// polyRange encloses P_k over s (within [0, 1]): its extremes are at
// s's ends or inside an enclosure of a zero of P_k' (sigCrits), where
// interval Horner over the (narrow) overlap encloses it.
func polyRange(k int, s fi) fi {
	v := horner(sigPolys[k], pt64(s.lo)).hull(horner(sigPolys[k], pt64(s.hi)))
	for _, c := range sigCrits[k] {
		if lo, hi := max(c.lo, s.lo), min(c.hi, s.hi); lo <= hi {
			v = v.hull(horner(sigPolys[k], fi{lo, hi}))
		}
	}
	return v
}

// sigmaAt encloses sigma(x) (x may be infinite): e^x/(1 + e^x) for x <=
// 0, 1/(1 + e^-x) above (no overflow).
func sigmaAt(x float64) fi {
	switch {
	case math.IsInf(x, 1):
		return pt64(1)
	case math.IsInf(x, -1):
		return pt64(0)
	case x <= 0:
		e := pt64(x).exp()
		return e.div(pt64(1).add(e))
	}
	return pt64(1).div(pt64(1).add(pt64(-x).exp()))
}

// sigS encloses sigma over [x1, x2] (ends may be infinite): sigma
// increases.
func sigS(x1, x2 float64) fi {
	return fi{max(sigmaAt(x1).lo, 0), min(sigmaAt(x2).hi, 1)}
}

// softplusAt encloses log(1 + e^z) at the point z.
func softplusAt(z float64) fi {
	if z <= 0 {
		return log1p64(pt64(z).exp())
	}
	return pt64(z).add(log1p64(pt64(-z).exp()))
}

// psiAt encloses psi_l(x) at the point x (l = +Inf: log sigma(x) =
// -softplus(-x)).
func psiAt(l, x float64) fi {
	if math.IsInf(l, 1) {
		return softplusAt(-x).neg()
	}
	return softplusAt(-up(x + l)).hull(softplusAt(-dn(x + l))).sub(softplusAt(-x))
}

// psiRanges are the ranges of sigma over X, over [X.lo + l1, X.hi + l2]
// and over [X.lo, X.hi + l2] (the last only for a finite l2), from which
// psiRange encloses psi_l^(k) over X for every l in [l1, l2].
type psiRanges struct {
	x            fi
	l1, l2       float64
	base, sh, wd fi
}

// newPsiRanges computes the ranges of sigma of psiRanges, with base its
// range over X (shared by the pieces).
func newPsiRanges(x fi, l1, l2 float64, base fi) psiRanges {
	r := psiRanges{x: x, l1: l1, l2: l2, base: base, sh: sigS(dn(x.lo+l1), up(x.hi+l2))}
	if !math.IsInf(l2, 1) {
		r.wd = sigS(x.lo, up(x.hi+l2))
	}
	return r
}

// psiRange encloses psi_l^(k) over x in X for every l in [l1, l2] (0 < l1
// <= l2 <= +Inf): psi_l increases in x and decreases in l; for k >= 1 the
// difference of sigma^(k-1) at x + l and x, intersected (l2 finite) with
// [l1, l2] times the range of sigma^(k) over [X.lo, X.hi + l2].
func (r *psiRanges) psiRange(k int) fi {
	if k == 0 {
		return fi{psiAt(r.l2, r.x.lo).lo, psiAt(r.l1, r.x.hi).hi}
	}
	d := polyRange(k-1, r.sh).sub(polyRange(k-1, r.base))
	if math.IsInf(r.l2, 1) {
		return d
	}
	in := fi{r.l1, r.l2}.mul(polyRange(k, r.wd))
	v := fi{max(d.lo, in.lo), min(d.hi, in.hi)}
	if v.lo > v.hi {
		panic(arithError("band: psi_l^(k) enclosures disjoint"))
	}
	return v
}

// Test hooks, deliberately wrong derivatives which tests must catch:
// testBandDropMu drops the alpha-sized part mu psi” of Phi_s;
// testBandDiffBug breaks the difference form (diffThird): 1 drops its
// term (e^Delta - 1) D^(i,j) e^Phi_Inf, 2 takes Delta with the wrong sign.
var (
	testBandDropMu  bool
	testBandDiffBug int
)

// bandDiffFrom is the least l1 + x over a box and a side (x the least of
// sg s and sg (s + r), l1 a group's least l) from which thirdRange takes
// the group in the difference form (see the top of the file); +Inf
// turns the form off (tests).
var bandDiffFrom = 2.0

// bandSide is a box's y and its hull with x for one sign sg, with the
// ranges of sigma over them (shared by the pieces).
type bandSide struct {
	sg           float64
	y, h, sy, sh fi
}

func newBandSide(sg float64, S, R fi) bandSide {
	sgn := func(x fi) fi {
		if sg < 0 {
			return x.neg()
		}
		return x
	}
	X, Y := sgn(S), sgn(S.add(R))
	H := X.hull(Y)
	return bandSide{sg: sg, y: Y, h: H, sy: sigS(Y.lo, Y.hi), sh: sigS(H.lo, H.hi)}
}

// shifted returns the side with x and y shifted by every l in [l1, l2]
// (l2 may be +Inf: sigma's and log sigma's enclosures take an infinite
// end): a mean-value form over the shifted hull holds for each l.
func (sd *bandSide) shifted(l1, l2 float64) bandSide {
	y := fi{dn(sd.y.lo + l1), up(sd.y.hi + l2)}
	h := fi{dn(sd.h.lo + l1), up(sd.h.hi + l2)}
	return bandSide{sg: sd.sg, y: y, h: h, sy: sigS(y.lo, y.hi), sh: sigS(h.lo, h.hi)}
}

// phiD holds enclosures over a box of Phi and of its derivatives in (s,
// r): v = Phi, s = Phi_s, r = Phi_r, ss = Phi_ss, sr = Phi_sr = Phi_rr,
// sss = Phi_sss, t = Phi_ssr = Phi_srr = Phi_rrr.
type phiD struct{ v, s, r, ss, sr, sss, t fi }

// phiRanges encloses phiD over the box (r in R) on the side sd, for
// psi_l with l in [l1, l2] and exponent a, by the mean-value forms of the
// top of the file.
func phiRanges(sd *bandSide, l1, l2 float64, a, R fi) phiD {
	sgn := func(x fi) fi {
		if sd.sg < 0 {
			return x.neg()
		}
		return x
	}
	mu := sgn(a.mul(R)).neg()
	ry, rh := newPsiRanges(sd.y, l1, l2, sd.sy), newPsiRanges(sd.h, l1, l2, sd.sh)
	var pY [4]fi
	var pH [5]fi
	for k := range 5 {
		if k < 4 {
			pY[k] = ry.psiRange(k)
		}
		if k > 0 {
			pH[k] = rh.psiRange(k)
		}
	}
	b := pt64(1).sub(a)
	d := phiD{
		v:   pY[0].add(mu.mul(pH[1])),
		s:   sgn(pY[1].add(mu.mul(pH[2]))),
		r:   sgn(b.mul(pY[1])),
		ss:  pY[2].add(mu.mul(pH[3])),
		sr:  b.mul(pY[2]),
		sss: sgn(pY[3].add(mu.mul(pH[4]))),
		t:   sgn(b.mul(pY[3])),
	}
	if testBandDropMu {
		d.s = sgn(pY[1])
	}
	return d
}

// neg returns the enclosures of -Phi's.
func (d phiD) neg() phiD {
	return phiD{d.v.neg(), d.s.neg(), d.r.neg(), d.ss.neg(), d.sr.neg(), d.sss.neg(), d.t.neg()}
}

// bell returns enclosures of D^(i,j) e^Phi / e^Phi (b[i][j], i in s, j
// in r, i + j <= 3): the two-variable Bell polynomials of Phi's
// derivatives (the third ones those of the top of the file).
func (d *phiD) bell() (b [4][4]fi) {
	two, three := pt64(2), pt64(3)
	b[0][0] = pt64(1)
	b[1][0], b[0][1] = d.s, d.r
	b[2][0] = d.s.sqr().add(d.ss)
	b[1][1] = d.s.mul(d.r).add(d.sr)
	b[0][2] = d.r.sqr().add(d.sr) // Phi_rr = Phi_sr
	b[3][0] = ipow64(d.s, 3).add(three.mul(d.s).mul(d.ss)).add(d.sss)
	b[2][1] = d.s.sqr().mul(d.r).add(two.mul(d.s).mul(d.sr)).add(d.r.mul(d.ss)).add(d.t)
	b[1][2] = d.s.mul(d.r.sqr()).add(d.s.mul(d.sr)).add(two.mul(d.r).mul(d.sr)).add(d.t)
	b[0][3] = ipow64(d.r, 3).add(three.mul(d.r).mul(d.sr)).add(d.t)
	return b
}

// thirds picks D30, D21, D12, D03 from b, times e.
func thirds(e fi, b *[4][4]fi) [4]fi {
	return [4]fi{e.mul(b[3][0]), e.mul(b[2][1]), e.mul(b[1][2]), e.mul(b[0][3])}
}

// third encloses D30, D21, D12, D03 of the piece e^Phi (side sd) over
// the box S x R, times its weight.
func (pc *bandPiece) third(sd *bandSide, R fi) [4]fi {
	d := phiRanges(sd, pc.l1, pc.l2, pc.a, R)
	b := d.bell()
	return thirds(d.v.add(pc.lw).exp(), &b)
}

// diffThird encloses, over the box S x R on the side sd, D30, D21, D12,
// D03 of e^Phi_l - e^Phi_Inf divided by f = e^Phi_Inf (G's piece, bf its
// bell), for every l in the piece's [l1, l2] (the difference form of the
// top of the file): e^Phi_l - f = f g with g = e^Delta - 1, Delta =
// -Phi_Inf(x + l, y + l), and by Leibniz's rule D^(i,j)(f g) / f = sum
// C(i,a) C(j,b) (D^(a,b) f / f) D^(i-a,j-b) g. The weight is the
// caller's.
func (pc *bandPiece) diffThird(sd *bandSide, R fi, bf *[4][4]fi) [4]fi {
	inf := math.Inf(1)
	sh := sd.shifted(pc.l1, pc.l2)
	dl := phiRanges(&sh, inf, inf, pc.a, R)
	if testBandDiffBug != 2 {
		dl = dl.neg()
	}
	dg := dl.bell()
	ed := dl.v.exp()
	for i := range 4 {
		for j := 0; i+j <= 3; j++ {
			dg[i][j] = ed.mul(dg[i][j])
		}
	}
	dg[0][0] = fi{expm1Fi(dl.v.lo).lo, expm1Fi(dl.v.hi).hi} // e^x - 1 increases
	binom := [4][4]float64{{1}, {1, 1}, {1, 2, 1}, {1, 3, 3, 1}}
	var r [4]fi
	for k := range r {
		i, j := 3-k, k
		for a := 0; a <= i; a++ {
			for b := 0; b <= j; b++ {
				if testBandDiffBug == 1 && a == i && b == j {
					continue
				}
				r[k] = r[k].add(pt64(binom[i][a] * binom[j][b]).mul(bf[a][b]).mul(dg[i-a][j-b]))
			}
		}
	}
	return r
}

// thirdRange encloses D30, D21, D12, D03 of psi over S x R. On each side,
// F's groups with l1 + x >= bandDiffFrom over the box are also taken in
// the difference form: their sum with G's piece is
//
//	(sum of their weights W - L1/E) D3 f + sum W D3(f g)
//
// (f = e^Phi_Inf, diffThird), the coefficient enclosed before it
// multiplies f's range (weights over e^ref, ref the largest weight's
// log: no overflow). With meet, that sum is also enclosed piece by piece
// and the two enclosures of the same number intersected (disjoint ones
// are an arithError); the other groups and G^T's piece are taken piece
// by piece.
func (bp *bandProblem) thirdRange(S, R fi, meet bool) [4]fi {
	var r [4]fi
	add := func(s *[4]fi, t [4]fi) {
		for k := range s {
			s[k] = s[k].add(t[k])
		}
	}
	inf := math.Inf(1)
	for _, sg := range [2]float64{1, -1} {
		sd := newBandSide(sg, S, R)
		diff := func(pc *bandPiece) bool { return pc.l1+sd.h.lo >= bandDiffFrom }
		ref := -inf // the largest log weight of the difference form
		for i := range bp.fs {
			if diff(&bp.fs[i]) {
				ref = max(ref, bp.fs[i].lw.hi)
			}
		}
		if ref > -inf && bp.g != nil {
			ref = max(ref, bp.g.lw.hi)
		}
		var dG phiD // G's Phi and its derivatives
		var bG [4][4]fi
		if bp.g != nil || ref > -inf {
			dG = phiRanges(&sd, inf, inf, bp.a, R)
			bG = dG.bell()
		}
		var pw, dw [4]fi // the groups in the difference form and G: piece by piece, and so
		var coef fi      // (sum of their W - L1/E) / e^ref
		for i := range bp.fs {
			pc := &bp.fs[i]
			if !diff(pc) {
				add(&r, pc.third(&sd, R))
				continue
			}
			if meet {
				add(&pw, pc.third(&sd, R))
			}
			coef = coef.add(pc.lw.sub(pt64(ref)).exp())
			e := dG.v.add(pc.lw).exp()
			d := pc.diffThird(&sd, R, &bG)
			add(&dw, [4]fi{e.mul(d[0]), e.mul(d[1]), e.mul(d[2]), e.mul(d[3])})
		}
		if bp.g != nil && (ref == -inf || meet) {
			t := thirds(dG.v.add(bp.g.lw).exp(), &bG)
			add(&pw, [4]fi{t[0].neg(), t[1].neg(), t[2].neg(), t[3].neg()})
		}
		if ref > -inf {
			if bp.g != nil {
				coef = coef.sub(bp.g.lw.sub(pt64(ref)).exp())
			}
			add(&dw, thirds(dG.v.add(pt64(ref)).exp().mul(coef), &bG))
			if meet {
				for k := range dw {
					dw[k] = fi{max(pw[k].lo, dw[k].lo), min(pw[k].hi, dw[k].hi)}
					if dw[k].lo > dw[k].hi {
						panic(arithError("band: the difference form and the pieces disjoint"))
					}
				}
			}
			pw = dw
		}
		add(&r, pw)
		if bp.gt != nil {
			t := bp.gt.third(&sd, R)
			add(&r, [4]fi{t[0].neg(), t[1].neg(), t[2].neg(), t[3].neg()})
		}
	}
	return r
}

// endFi encloses a finite end.
func endFi(e end) fi {
	if e.exact {
		return pt64(e.f)
	}
	return ratFi(e.r)
}

// taylor returns the Taylor bound of psi over the band box b ((s, r):
// b.t1, b.t2 hold r), +Inf on an arithmetic exception.
func (bp *bandProblem) taylor(b box) float64 {
	return try(func() float64 {
		S, R := fi{endFi(b.s1).lo, endFi(b.s2).hi}, fi{endFi(b.t1).lo, endFi(b.t2).hi}
		sm := (S.lo + S.hi) / 2
		tm := sm + (R.lo+R.hi)/2
		if !(S.lo <= sm && sm <= S.hi) || math.IsInf(tm, 0) {
			return math.Inf(1)
		}
		rc := pt64(tm).sub(pt64(sm)) // the center's r
		ds, dr := S.sub(pt64(sm)), R.sub(rc)
		mp, mq := logistic64(end{f: sm, exact: true}), logistic64(end{f: tm, exact: true})
		c := bp.pr.derivs(mp, mp, mq, mq, kindsPoint)
		p1, q1 := mp.x.mul(mp.xb), mq.x.mul(mq.xb)
		p2, q2 := p1.mul(mp.xb.sub(mp.x)), q1.mul(mq.xb.sub(mq.x))
		two := pt64(2)
		gs := p1.mul(c[1]).add(q1.mul(c[2]))
		gr := q1.mul(c[2])
		hrr := q1.sqr().mul(c[5]).add(q2.mul(c[2]))
		hsr := p1.mul(q1).mul(c[4]).add(hrr)
		hss := p1.sqr().mul(c[3]).add(two.mul(p1).mul(q1).mul(c[4])).add(q1.sqr().mul(c[5])).add(p2.mul(c[1])).add(q2.mul(c[2]))
		q := min(quadMax64(gs, gr, hss, hsr, hrr, ds, dr), schurMax(gs, gr, hss, hsr, hrr, ds), schurMax(gr, gs, hrr, hsr, hss, dr))
		if up(c[0].hi+q) > bp.pr.rhs {
			return up(c[0].hi + q) // the remainder is not needed to fail
		}
		bound := func(meet bool) float64 {
			t3 := bp.thirdRange(S, R, meet)
			rem := pt64(0)
			for k, fact := range [4]float64{6, 2, 2, 6} {
				rem = rem.add(t3[k].mul(ipow64(ds, 3-k)).mul(ipow64(dr, k)).div(pt64(fact)))
			}
			return up(up(c[0].hi+q) + rem.hi)
		}
		// The difference form alone first; the intersection (twice the
		// work) only where that does not close the box.
		if ub := bound(false); ub <= bp.pr.rhs {
			return ub
		}
		return bound(true)
	})
}

// schurMax returns an upper bound of Q(x, y) = gp x + gq y + (hpp x^2 + 2
// hpq x y + hqq y^2)/2 over dp x dq (every y), +Inf unless hqq < 0: then
// Q(x, y) <= M(x) = max over every y of Q(x, y) = gq^2/(-2 hqq) + (gp +
// gq hpq/(-hqq)) x + (hpp + hpq^2/(-hqq)) x^2/2, whose maximum over dp
// quad164 bounds. Along the diagonal the Hessian in (s, r) is nearly
// singular (hss hrr ~ hsr^2), where quadMax64's enclosure of its
// determinant straddles 0 and it falls back to the natural extension
// over the box; M keeps the cancellation in its x^2 coefficient.
func schurMax(gp, gq, hpp, hpq, hqq, dp fi) float64 {
	if hqq.hi >= 0 {
		return math.Inf(1)
	}
	nh := hqq.neg()
	c0 := gq.sqr().div(pt64(2).mul(nh))
	c1 := gp.add(gq.mul(hpq).div(nh))
	c2 := hpp.add(hpq.sqr().div(nh)).mul(pt64(0.5))
	return up(c0.hi + quad164(c1, c2, dp.lo, dp.hi))
}

// bandRect returns the bounding rectangle [s1, s2] x [s1 + r1, s2 + r2]
// in (s, t) of the band box b.
func bandRect(b box) box {
	t1 := new(big.Rat).Add(b.s1.r, b.t1.r)
	t2 := new(big.Rat).Add(b.s2.r, b.t2.r)
	e1, x1 := t1.Float64()
	e2, x2 := t2.Float64()
	return box{b.s1, b.s2, end{r: t1, f: e1, exact: x1}, end{r: t2, f: e2, exact: x2}}
}

// proveBand checks psi <= rhs on the band box b (in (s, r)), splitting it
// when needed; it returns nil, or the box that failed and its bound as
// text.
func (ch *checker) proveBand(b box, depth int, extra *int, maxExtra int, boxes *int) (*box, string) {
	if ch.ctx.Err() != nil {
		return &b, "cancelled"
	}
	*boxes++
	ub := ch.band.taylor(b)
	if ub <= ch.fast.rhs {
		return nil, ""
	}
	if ok, _, _ := ch.bound(bandRect(b)); ok {
		return nil, ""
	}
	if depth <= 0 || *extra+2 > maxExtra {
		return &b, fmt.Sprintf("Taylor %.17g", ub)
	}
	*extra += 2
	ws := new(big.Rat).Sub(b.s2.r, b.s1.r)
	wr := new(big.Rat).Sub(b.t2.r, b.t1.r)
	wr.Mul(wr, new(big.Rat).SetFloat64(max(ch.band.alpha, 1)))
	x, y := b, b
	if ws.Cmp(wr) >= 0 {
		m := midEnd(b.s1, b.s2)
		x.s2, y.s1 = m, m
	} else {
		m := midEnd(b.t1, b.t2)
		x.t2, y.t1 = m, m
	}
	if bad, s := ch.proveBand(x, depth-1, extra, maxExtra, boxes); bad != nil {
		return bad, s
	}
	return ch.proveBand(y, depth-1, extra, maxExtra, boxes)
}
