package certify

import (
	"container/heap"
	"context"
	"math"
	"sort"
)

// The diagonal band (docs/certificates.md, "The diagonal band").
//
// Near the diagonal p = q at large alpha, psi varies on the scale 1/alpha
// across the diagonal (in r = t - s, with s, t the logits of p, q) but
// only on the scale 1 along it (in s at fixed r): every piece of psi is
// a term e^Phi with
//
//	Phi(s, r) = A psi_l(x) + (1-A) psi_l(y),  x = sg s, y = sg (s + r),
//
// where sg = +1 for the halves in (p, q) and -1 for those in (1-p, 1-q);
// A = alpha for F's terms and G, A = 1-alpha for G^T; and
//
//	psi_l(x) = log((e^x + e^-l)/(e^x + 1)) = softplus(-(x+l)) - softplus(-x)
//
// is log u of a term of F with e_j = e^-l (l = (n-2j) log((1-c)/c) >= 0;
// l = +Inf for G, where psi is log sigma(x)). By the mean value theorem,
// with mu = -A sg r (|mu| <= alpha |r|, of order 1 in a band |r| <= beta
// of a few 1/alpha),
//
//	Phi      = psi(y) + mu psi'(xi0)
//	Phi_s    = sg (psi'(y) + mu psi''(xi1))      Phi_r = sg (1-A) psi'(y)
//	Phi_ss   = psi''(y) + mu psi'''(xi2)         Phi_sr = Phi_rr = (1-A) psi''(y)
//	Phi_sss  = sg (psi'''(y) + mu psi''''(xi3))  Phi_ssr = Phi_srr = Phi_rrr = sg (1-A) psi'''(y)
//
// with each xi between x and y: the s-derivatives are of order 1 and
// each r-derivative is alpha times one, so over a box of width w_s in s
// and w_r ~ w/alpha in r the third-order Taylor remainder is of order
// w_s^3 + w^3, whatever alpha is. The band search (searchBand) tiles
// {s in [-32, 0], |r| <= beta} (in slabs of s, bandSlabs) with boxes in
// (s, r) and bounds each by
// the Taylor form of order 3 around its center m:
//
//	psi(m + h) <= psi(m) + grad psi(m) . h + h' H(m) h / 2
//	              + sum_{i+j=3} max over the box of D^(i,j) psi * h_s^i h_r^j / (i! j!),
//
// the value, gradient and Hessian at m from the (p, q) derivatives
// (problem.deriv, with their error bounds) by the chain rule (dp/ds =
// p(1-p), dq/ds = dq/dr = q(1-q)), and each third derivative's range
// from the pieces' ranges: e^Phi times a polynomial in the ranges above,
// in interval arithmetic. The derivatives of psi_l are
//
//	psi_l^(k)(x) = sigma^(k-1)(x + l) - sigma^(k-1)(x) = integral_x^(x+l) sigma^(k)  (k >= 1),
//
// and each is enclosed by the intersection of both forms; sigma^(k) is a
// polynomial in sigma (sigma' = sigma (1 - sigma)), whose range over an
// interval of sigma is at its ends and at its critical points. Terms of F
// whose weight is below e^-50 of the largest are not summed: each lies in
// the range of a piece with l unknown (psi^(k) in sigma^(k-1)([x, Inf)) -
// sigma^(k-1)(X), psi in [log sigma(Y), 0]), and their weights' sum times
// that range bounds them.
//
// A box where the Taylor form fails or does not close is also bounded by
// the monotone and paired bounds of its bounding rectangle in (s, t).
// When every box of a slab closes below l0 + tau, the (s, t) search
// closes each of its boxes that lies inside that slab of the band without
// bounding it.
// With an exported tiling (Settings.Tiling) the band's boxes of the
// proved slabs are kept (band.tiles) and go to the certificate file as its
// band (certfile.File.BandBoxes), next to the (s, t) tiles, those inside
// the band included: the checker (package verify) proves that the band's
// boxes partition the band, bounds each of them by its own Taylor form in
// (s, r), and excuses the tiles inside the band.

// Knobs: the band's extent, its share of the box budget, and the alpha
// from which it is tried.
const (
	bandRho = 16 // the band is |r| <= bandRho / alpha
	// From alpha = bandWideFrom the band is |r| <= bandWide / alpha: there
	// the (s, t) boxes along the band's edges cost more than the wider
	// band's. At eps = 1e-3, n in {1, 15, 10^4}, c in {0.1, 0.4, 0.495},
	// the evaluations went down at all 7 points at alpha 700 (to 0.61 to
	// 0.98 of before) and at all 11 at alpha 750 to 1000 (0.51 to 0.99),
	// but up at 3 of 7 at alpha 500 (to 1.22) and at 3 of 7 at alpha 300,
	// and at (3342, 0.4572, 377, 3.3e-3) and (93, 0.2909, 312, 1.5e-3);
	// docs/reach.md.
	bandWide, bandWideFrom = 32, 700
	bandFrom               = 10 // alpha from which the band is searched
	// bandEps: the band is searched only at eps below it, for every
	// caller (docs/certificates.md, "Where the band is searched").
	// Measured at eps 0.05 (alpha 10 to 1000, n 1 to 10^4): wherever its
	// slabs close it closes with fewer boxes (2,470 against 10,106 at (1,
	// 0.495, 100, 0.05)), and over 36 such points Post's checker took 4.6
	// s instead of 9.2 s; at the grids' eps >= 0.1 (alpha 50) it costs
	// CPU at every point (some close in fewer but dearer boxes; the demo
	// took 1.47 times as long); at 0.07 it is mixed. 0.06 lies between,
	// so that 0.05 is inside whatever the rounding of eps.
	bandEps   = 0.06
	bandShare = 4 // the band may use 1/bandShare of the box budget
	// bandSkip is the log weight below the largest from which F's terms
	// are bounded together (e^-50 = 2e-22).
	bandSkip = 50
	// bandGroup is the l_j from which F's terms are bounded together, as
	// one term with l in [least l_j, Inf] (sigma^(k) moves by e^-40 or
	// less between x + l and +Inf for x >= -40).
	bandGroup = 80
	// bandMerge: in a box whose least x or y is xlo, the groups with
	// l + xlo >= bandMerge are bounded with G's far terms as one group,
	// with l in [their least l, Inf]: the difference form (diffThird) of
	// each is of order e^-(x+l) times G's piece, so merging them loses at
	// most about e^-bandMerge of it. Away from c = 1/2, where l_j moves by
	// 2 lam from one j to the next, hundreds of groups become a few dozen
	// (docs/reach.md, "The band's far groups").
	bandMerge = 20
	// bandBucket: below bandGroup, terms whose l_j lie within bandBucket
	// of each other are bounded together, as one term with l in their
	// range (0.3: at (10^4, 0.495, 1000, 1e-3) the band closes in 1,227
	// boxes with 69 groups, 1.9 s, against 1,197 with 550 terms, 8.6 s).
	bandBucket = 0.3
	// bandSlabMax caps the boxes of one slab: where the band pays, a slab
	// closes in a few hundred to a few thousand boxes; where the margin
	// along the diagonal is tiny (1.7e-7 at (15, 0.1, 10, 1e-3)) the
	// slabs cost more than the whole (s, t) search did.
	bandSlabMax = 1500
	// Where the tangent point's ridge r = 2|D| (D the Theorem 4 logit)
	// is within bandRidgeMax/alpha of the diagonal, the band reaches
	// bandRidge |D| if that is wider: at (1, 0.495, 1000, 0.01), alpha D =
	// 10.7, 8,313 boxes instead of 47,151; at alpha D = 51 widening cost
	// 4 times the boxes.
	bandRidge, bandRidgeMax = 4, 25

	// bandSlack is an absolute margin on every range of sigma^(k) and psi
	// (the rounding of polynomials of degree <= 5 with coefficients below
	// 100 in S in [0, 1], and of softplus differences; about 1e-13).
	bandSlack = 1e-12
)

// diffFrom is the least l + x over a box from which a group of F's terms
// is taken as G's piece plus the difference (thirdRange): there Delta is
// at most about (1 + alpha |r|) e^-(l+x), small in the band. Measured
// (boxes of Certify): at (1, 0.495, 1000, 1e-3), where l = 0.02, 0 leaves
// the point open at 200,000 boxes and 3 proves it in 27,214 (26,726 with
// no difference form); at (93, 0.2909, 312, 1.5e-3), (8, 0.018, 835,
// 2.2e-3), (15, 0.1, 1000, 1e-3) and (341, 0.42, 540, 4.7e-3) 0, 3 and 5
// are within 0.2% of each other.
var diffFrom = 3.0

// Test knobs: diagOff turns the band off (benchmarks before/after);
// testDiagDropMu drops the alpha-sized part mu psi^(2)(xi1) of Phi_s (a
// deliberately wrong derivative, which TestDiagonalThird must catch).
// testDiffWrongSign takes Delta as +Phi_Inf(x + l, y + l) in diffThird
// (a deliberately wrong sign, which TestDiagonalThird must catch).
// testNoMerge bounds every group of F's terms apart (bandMerge off).
var (
	testNoMerge       = false
	diagOff           = false
	testDiagDropMu    = false
	testDiffWrongSign = false
)

// sigPoly[k] holds the coefficients, in S = sigma(x), of the k-th
// derivative of sigma; sigCrit[k] the zeros of its derivative in S in
// (0, 1) (where its extremes are).
var sigPoly, sigCrit = sigmaPolys()

func sigmaPolys() (p [5][]float64, crit [5][]float64) {
	p[0] = []float64{0, 1}
	for k := 1; k < 5; k++ {
		// d/dx P(S) = P'(S) S (1-S).
		p[k] = polyMul(polyDeriv(p[k-1]), []float64{0, 1, -1})
	}
	for k := range p {
		crit[k] = roots01(polyDeriv(p[k]))
	}
	return p, crit
}

func polyDeriv(c []float64) []float64 {
	d := make([]float64, max(len(c)-1, 1))
	for i := 1; i < len(c); i++ {
		d[i-1] = float64(i) * c[i]
	}
	return d
}

func polyMul(a, b []float64) []float64 {
	r := make([]float64, len(a)+len(b)-1)
	for i, x := range a {
		for j, y := range b {
			r[i+j] += x * y
		}
	}
	return r
}

func polyEval(c []float64, x float64) float64 {
	v := 0.0
	for i := len(c) - 1; i >= 0; i-- {
		v = v*x + c[i]
	}
	return v
}

// roots01 returns the points in (0, 1) where the polynomial c changes
// sign (found on a grid of 4096 cells, then by bisection): every local
// extreme of its antiderivative. A zero where c keeps its sign is no
// extreme and is not needed.
func roots01(c []float64) []float64 {
	var rs []float64
	const cells = 4096
	for i := range cells {
		a, b := float64(i)/cells, float64(i+1)/cells
		fa, fb := polyEval(c, a), polyEval(c, b)
		if fa == 0 && i > 0 {
			rs = append(rs, a)
			continue
		}
		if fa*fb >= 0 {
			continue
		}
		for range 80 {
			m := (a + b) / 2
			if fm := polyEval(c, m); (fm < 0) == (fa < 0) {
				a, fa = m, fm
			} else {
				b = m
			}
		}
		rs = append(rs, (a+b)/2)
	}
	return rs
}

// sigma returns 1/(1+e^-x).
func sigma(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// sigRange returns the range of sigma^(k) over [x1, x2] (ends may be
// infinite), padded by bandSlack. At a critical point found to within
// 1e-15 the polynomial's value is off by its second derivative times
// 1e-30, far inside the pad.
func sigRange(k int, x1, x2 float64) interval {
	s1, s2 := sigma(x1), sigma(x2)
	c := sigPoly[k]
	r := interval{math.Inf(1), math.Inf(-1)}
	try := func(s float64) {
		v := polyEval(c, s)
		r.lo, r.hi = math.Min(r.lo, v), math.Max(r.hi, v)
	}
	try(s1)
	try(s2)
	for _, s := range sigCrit[k] {
		if s > s1 && s < s2 {
			try(s)
		}
	}
	return interval{r.lo - bandSlack, r.hi + bandSlack}
}

// psiL returns psi_l(x) (l >= 0, +Inf for G).
func psiL(l, x float64) float64 {
	if math.IsInf(l, 1) {
		return -softplus(-x)
	}
	return softplus(-(x + l)) - softplus(-x)
}

func softplus(z float64) float64 {
	if z > 0 {
		return z + math.Log1p(math.Exp(-z))
	}
	return math.Log1p(math.Exp(z))
}

// psiRange returns a range of the k-th derivative of psi_l over X for
// every l in [l1, l2] (k = 0..4; 0 <= l1 <= l2 <= +Inf; l = +Inf is G's
// psi = log sigma; [l1, l2] = [0, Inf] bounds the unsummed terms of F).
// psi_l increases in x and decreases in l; for k >= 1, psi_l^(k)(x) =
// sigma^(k-1)(x + l) - sigma^(k-1)(x), with sigma(+Inf) = 1 and the
// higher derivatives 0 there; for a single finite l also l times the range
// of sigma^(k) over [x, x + l], and the two ranges are intersected.
func psiRange(l1, l2 float64, k int, X interval) interval {
	pad := func(r interval) interval {
		m := bandSlack + 8*eps64*(math.Abs(r.lo)+math.Abs(r.hi)+math.Abs(X.lo)+math.Abs(X.hi))
		return interval{r.lo - m, r.hi + m}
	}
	switch {
	case l2 == 0:
		return interval{}
	case k == 0:
		return pad(interval{psiL(l2, X.lo), psiL(l1, X.hi)})
	}
	d := sigRange(k-1, X.lo+l1, X.hi+l2).add(scaleIv(-1, sigRange(k-1, X.lo, X.hi)))
	if l1 != l2 || math.IsInf(l1, 1) {
		return d
	}
	in := scaleIv(l1, sigRange(k, X.lo, X.hi+l1))
	in = interval{in.lo - 4*eps64*math.Abs(in.lo), in.hi + 4*eps64*math.Abs(in.hi)}
	return interval{math.Max(d.lo, in.lo), math.Min(d.hi, in.hi)}
}

// hullIv returns the smallest interval holding x and y.
func hullIv(x, y interval) interval {
	return interval{math.Min(x.lo, y.lo), math.Max(x.hi, y.hi)}
}

// cube and sq return the ranges of x^3 and x^2.
func cubeIv(x interval) interval { return interval{x.lo * x.lo * x.lo, x.hi * x.hi * x.hi} }
func sqIv(x interval) interval {
	lo, hi := x.lo*x.lo, x.hi*x.hi
	if lo > hi {
		lo, hi = hi, lo
	}
	if x.lo <= 0 && x.hi >= 0 {
		lo = 0
	}
	return interval{lo, hi}
}

// outward widens an interval by 16 ulps of its ends' sizes plus 1e-300
// (the rounding of the interval arithmetic above, a few dozen roundings
// of at most 2 ulps relative each).
func outward(x interval) interval {
	m := 64*eps64*(math.Abs(x.lo)+math.Abs(x.hi)) + 1e-300
	return interval{x.lo - m, x.hi + m}
}

// phiDerivs are ranges, over a box, of Phi and of its derivatives in
// (s, r) up to order 3 (the field names the variables differentiated by).
type phiDerivs struct{ v, s, r, ss, sr, rr, sss, ssr, srr, rrr interval }

// phiRanges returns the ranges of phiDerivs over the box [s1, s2] x [r1,
// r2] (see the top of the file) for psi_l with l in [l1, l2], sign sg and
// exponent A, with x and y shifted by sh (Delta's form, diffThird; {0, 0}
// for a piece).
func phiRanges(l1, l2, sg, A float64, bx [4]float64, sh interval) phiDerivs {
	s1, s2, r1, r2 := bx[0], bx[1], bx[2], bx[3]
	ord := func(a, b float64) interval { return interval{math.Min(a, b), math.Max(a, b)} }
	X := ord(sg*s1, sg*s2)
	y1, y2 := s1+r1, s2+r2
	py := 2 * eps64 * (math.Abs(y1) + math.Abs(y2))
	Y := ord(sg*(y1-py), sg*(y2+py))
	if sh != (interval{}) {
		// Beyond x = 700, log sigma and its derivatives are within
		// e^-700 of their values at 700, far inside bandSlack: the
		// shifted ends are capped there (l2 may be +Inf).
		shift := func(x interval) interval {
			lo, hi := math.Min(x.lo+sh.lo, 700), math.Min(x.hi+sh.hi, 700)
			return interval{lo - 2*eps64*math.Abs(lo), hi + 2*eps64*math.Abs(hi)}
		}
		X, Y = shift(X), shift(Y)
	}
	H := hullIv(X, Y)
	mu := ord(-A*sg*r1, -A*sg*r2)
	mu = interval{mu.lo - 2*eps64*math.Abs(mu.lo), mu.hi + 2*eps64*math.Abs(mu.hi)}
	var pY, pH [5]interval
	for k := range 5 {
		if k < 4 {
			pY[k] = psiRange(l1, l2, k, Y)
		}
		if k > 0 {
			pH[k] = psiRange(l1, l2, k, H)
		}
	}
	b := 1 - A
	var d phiDerivs
	d.v = outward(pY[0].add(mulIv(mu, pH[1])))
	d.s = outward(scaleIv(sg, pY[1].add(mulIv(mu, pH[2]))))
	if testDiagDropMu {
		d.s = outward(scaleIv(sg, pY[1]))
	}
	d.r = outward(scaleIv(sg*b, pY[1]))
	d.ss = outward(pY[2].add(mulIv(mu, pH[3])))
	d.sr = outward(scaleIv(b, pY[2]))
	d.rr = d.sr
	d.sss = outward(scaleIv(sg, pY[3].add(mulIv(mu, pH[4]))))
	d.ssr = outward(scaleIv(sg*b, pY[3]))
	d.srr, d.rrr = d.ssr, d.ssr
	return d
}

// neg returns the ranges of -Phi's.
func (d phiDerivs) neg() phiDerivs {
	n := func(x interval) interval { return interval{-x.hi, -x.lo} }
	return phiDerivs{n(d.v), n(d.s), n(d.r), n(d.ss), n(d.sr), n(d.rr), n(d.sss), n(d.ssr), n(d.srr), n(d.rrr)}
}

// Indices of the derivatives D^(i,j) of expDerivs: i in s, j in r.
const (
	d00 = iota
	d10
	d01
	d20
	d11
	d02
	d30
	d21
	d12
	d03
)

// derivAt[i][j] is the index of D^(i,j) (i + j <= 3).
var derivAt = [4][4]int{{d00, d01, d02, d03}, {d10, d11, d12}, {d20, d21}, {d30}}

// expDerivs returns the ranges of D^(i,j) e^Phi (i + j <= 3), with e the
// range of e^Phi: e^Phi times the Bell polynomials of Phi's derivatives.
func expDerivs(e interval, d phiDerivs) [10]interval {
	three := func(x ...interval) interval {
		var s interval
		for _, v := range x {
			s = s.add(v)
		}
		return outward(mulIv(e, outward(s)))
	}
	return [10]interval{
		d00: e,
		d10: three(d.s),
		d01: three(d.r),
		d20: three(sqIv(d.s), d.ss),
		d11: three(mulIv(d.s, d.r), d.sr),
		d02: three(sqIv(d.r), d.rr),
		d30: three(cubeIv(d.s), scaleIv(3, mulIv(d.s, d.ss)), d.sss),
		d21: three(mulIv(sqIv(d.s), d.r), scaleIv(2, mulIv(d.s, d.sr)), mulIv(d.r, d.ss), d.ssr),
		d12: three(mulIv(d.s, sqIv(d.r)), mulIv(d.s, d.rr), scaleIv(2, mulIv(d.r, d.sr)), d.srr),
		d03: three(cubeIv(d.r), scaleIv(3, mulIv(d.r, d.rr)), d.rrr),
	}
}

// expIv returns the range of e^x over x, with the rounding of exp.
func expIv(x interval) interval {
	m := 64 * eps64 * (math.Abs(x.lo) + math.Abs(x.hi) + 1)
	return interval{math.Exp(x.lo) * (1 - m), math.Exp(x.hi) * (1 + m)}
}

// pieceDerivs returns the ranges of D^(i,j) e^Phi (i + j <= 3) over the
// box bx for psi_l with l in [l1, l2], sign sg and exponent A.
func pieceDerivs(l1, l2, sg, A float64, bx [4]float64) [10]interval {
	d := phiRanges(l1, l2, sg, A, bx, interval{})
	return expDerivs(expIv(d.v), d)
}

// pieceThird returns the ranges of the third derivatives (3,0), (2,1),
// (1,2), (0,3) in (s, r) of e^Phi over the box bx.
func pieceThird(l1, l2, sg, A float64, bx [4]float64) [4]interval {
	r := pieceDerivs(l1, l2, sg, A, bx)
	return [4]interval{r[d30], r[d21], r[d12], r[d03]}
}

// diffThird returns the ranges of the third derivatives in (s, r) over
// the box bx of e^Phi_l - e^Phi_Inf, the difference between a piece of F
// (l in [l1, l2]) and G's piece of the same sign and exponent, given g,
// the ranges of G's piece (pieceDerivs with l = +Inf). With psi_l(x) =
// log sigma(x) + softplus(-(x + l)),
//
//	e^Phi_l - e^Phi_Inf = e^Phi_Inf (e^Delta - 1),
//	Delta = A softplus(-(x+l)) + (1-A) softplus(-(y+l)) = -Phi_Inf(x + l, y + l),
//
// so Delta's derivatives are those of G's Phi with x and y shifted by l,
// negated, and the product's by Leibniz's rule. Each is of order
// e^-(x+l) times the piece's: where l is large, F's and G's pieces nearly
// cancel, and this keeps the cancellation that the pieces' ranges, taken
// one by one, lose.
func diffThird(l1, l2, sg, A float64, bx [4]float64, g [10]interval) [4]interval {
	inf := math.Inf(1)
	dl := phiRanges(inf, inf, sg, A, bx, interval{l1, l2})
	if !testDiffWrongSign {
		dl = dl.neg()
	}
	h := expDerivs(expIv(dl.v), dl)
	m := 64 * eps64 * (math.Abs(dl.v.lo) + math.Abs(dl.v.hi) + 1)
	lo, hi := math.Expm1(dl.v.lo), math.Expm1(dl.v.hi)
	h[d00] = interval{lo - m*math.Abs(lo) - 1e-300, hi + m*math.Abs(hi) + 1e-300}
	binom := [4][4]float64{{1}, {1, 1}, {1, 2, 1}, {1, 3, 3, 1}}
	var r [4]interval
	for k := range r {
		i, j := 3-k, k
		var s interval
		for a := 0; a <= i; a++ {
			for b := 0; b <= j; b++ {
				c := binom[i][a] * binom[j][b]
				s = s.add(scaleIv(c, mulIv(g[derivAt[a][b]], h[derivAt[i-a][j-b]])))
			}
		}
		r[k] = outward(s)
	}
	return r
}

// band is what the band search proved: psi <= l0 + tau on {s in sl,
// |t - s| <= beta} for each slab sl of slabs.
type band struct {
	ok     bool         // some slab is proved
	slabs  [][2]float64 // the slabs in s proved
	beta   float64
	boxes  int
	fTailW float64      // the sum of the weights w_j / U of F's terms not summed (below e^-bandSkip of the largest)
	fw     []float64    // the sums of w_j / U of the groups of terms bounded together
	fe     []float64    // their errors (of log w_j and of the exp)
	fl     [][2]float64 // each group's least and largest l_j, in decreasing l
	fwSum  []float64    // fwSum[i]: the sum of fw[:i], with its error feSum[i]
	feSum  []float64
	gW, gL float64 // the sum of w_j / U of the terms with l_j >= bandGroup, and their least l_j
	gWe    float64 // gW's error
	above  bool    // a point above l0 + tau was found: the band is given up
	thirds int     // boxes whose own third derivatives' ranges were formed (diagTaylor)
	tiles  []Tile  // with problem.tiling, the boxes of the proved slabs, as (s1, s2, r1, r2)
}

// contains says whether the (s, t) rectangle b lies inside the band
// (with the rounding of t - s covered).
func (bd *band) contains(b *box) bool {
	if bd == nil || !bd.ok {
		return false
	}
	hi, lo := b.t2-b.s1, b.t1-b.s2
	// The pad covers the rounding of t - s, and the certificate's decimal
	// ends (each within half an ulp of the float64 it names).
	pad := 2*eps64*(math.Abs(b.t2)+math.Abs(b.s1)+math.Abs(b.t1)+math.Abs(b.s2)) + 2*eps64*bd.beta
	if !(hi+pad <= bd.beta && lo-pad >= -bd.beta) {
		return false
	}
	for _, sl := range bd.slabs {
		if b.s1 >= sl[0] && b.s2 <= sl[1] {
			return true
		}
	}
	return false
}

// newBand prepares the band's terms of F.
func (pr *problem) newBand() *band {
	m := pr.m
	rho := float64(bandRho)
	if pr.alpha >= bandWideFrom {
		rho = bandWide
	}
	bd := &band{beta: rho / pr.alpha, gL: math.Inf(1)}
	if x := pr.alpha * math.Abs(pr.d); x <= bandRidgeMax {
		bd.beta = math.Max(bd.beta, bandRidge*math.Abs(pr.d))
	}
	top := math.Inf(-1)
	for _, lw := range m.lw {
		top = math.Max(top, lw)
	}
	for j, lw := range m.lw { // j: the term's index
		w := math.Exp(lw - pr.logU)
		we := w * termUlps * eps64 * (math.Abs(lw) + math.Abs(pr.logU) + 8)
		if lw < top-bandSkip {
			bd.fTailW += w * (1 + 16*eps64*(math.Abs(lw)+math.Abs(pr.logU)+1))
			continue
		}
		if l := -m.le[j]; l >= bandGroup {
			bd.gW += w
			bd.gWe += we + eps64*bd.gW
			bd.gL = math.Min(bd.gL, l)
			continue
		}
		l := -m.le[j]
		if k := len(bd.fl) - 1; k >= 0 && math.Abs(l-bd.fl[k][0]) <= bandBucket && math.Abs(l-bd.fl[k][1]) <= bandBucket {
			bd.fw[k] += w
			bd.fe[k] += we + eps64*bd.fw[k]
			bd.fl[k] = [2]float64{math.Min(l, bd.fl[k][0]), math.Max(l, bd.fl[k][1])}
			continue
		}
		bd.fw = append(bd.fw, w)
		bd.fe = append(bd.fe, we)
		bd.fl = append(bd.fl, [2]float64{l, l})
	}
	bd.fwSum, bd.feSum = make([]float64, len(bd.fw)+1), make([]float64, len(bd.fw)+1)
	for i, w := range bd.fw {
		bd.fwSum[i+1] = bd.fwSum[i] + w
		bd.feSum[i+1] = bd.feSum[i] + bd.fe[i] + eps64*bd.fwSum[i+1]
	}
	return bd
}

// thirdRange returns the ranges of D^(3,0), D^(2,1), D^(1,2), D^(0,3) of
// psi in (s, r) over the box bx, and false where one is not finite. On
// each side (sg), a group of F's terms with l + x >= diffFrom over the
// box is taken as G's piece plus the difference (diffThird): psi's third
// derivatives are then (sum of those groups' weights - k1/E) times G's
// piece's, which keeps the cancellation of F's and G's pieces, plus the
// small differences; the other groups are taken piece by piece.
func (pr *problem) thirdRange(bd *band, bx [4]float64) ([4]interval, bool) {
	var r [4]interval
	// acc adds w t, with w's error we.
	acc := func(w, we float64, t [4]interval) {
		for i := range r {
			r[i] = r[i].add(scaleIv(w, t[i]))
			if we > 0 {
				m := we * math.Max(math.Abs(t[i].lo), math.Abs(t[i].hi))
				r[i] = r[i].add(interval{-m, m})
			}
		}
	}
	a, inf := pr.alpha, math.Inf(1)
	ie := math.Exp(-pr.logE)
	k1, k2 := pr.k1*ie, pr.k2*ie
	s1, s2, r1, r2 := bx[0], bx[1], bx[2], bx[3]
	for _, sg := range [2]float64{1, -1} {
		g := pieceDerivs(inf, inf, sg, a, bx)
		// The least x or y over the box, with the rounding of s + r.
		xlo := math.Min(math.Min(sg*s1, sg*s2), math.Min(sg*(s1+r1), sg*(s2+r2)))
		xlo -= 4 * eps64 * (math.Abs(s1) + math.Abs(s2) + math.Abs(r1) + math.Abs(r2))
		b, be := -k1, 4*eps64*k1 // G's weight and its error
		group := func(w, we, l1, l2 float64) {
			if l1+xlo >= diffFrom {
				b += w
				be += we + eps64*(math.Abs(b)+w)
				acc(w, we, diffThird(l1, l2, sg, a, bx, g))
				return
			}
			acc(w, we, pieceThird(l1, l2, sg, a, bx))
		}
		far := bd.far(xlo)
		for i := far; i < len(bd.fl); i++ {
			group(bd.fw[i], bd.fe[i], bd.fl[i][0], bd.fl[i][1])
		}
		if w := bd.fwSum[far] + bd.gW; w > 0 {
			l := bd.gL
			if far > 0 {
				l = bd.fl[far-1][0]
			}
			group(w, bd.feSum[far]+bd.gWe+eps64*w, l, inf)
		}
		if bd.fTailW > 0 {
			group(bd.fTailW, 0, 0, inf) // fTailW is padded
		}
		acc(b, be, [4]interval{g[d30], g[d21], g[d12], g[d03]})
		acc(-k2, 4*eps64*k2, pieceThird(inf, inf, sg, 1-a, bx))
	}
	for i := range r {
		r[i] = outward(r[i])
		if !finiteAll(r[i].lo, r[i].hi) {
			return r, false
		}
	}
	return r, true
}

// far returns how many groups of F's terms (from the first: l decreases
// along fl) are bounded with G's far terms as one group in a box whose
// least x or y is xlo: those with l + xlo >= bandMerge.
func (bd *band) far(xlo float64) int {
	if testNoMerge {
		return 0
	}
	return sort.Search(len(bd.fl), func(i int) bool { return bd.fl[i][0]+xlo < bandMerge })
}

// diagTaylor bounds psi over the (s, r) box bx = [s1, s2] x [r1, r2] by
// the Taylor form of order 3 in (s, r) (top of the file); cs, cr are the
// shares of each side's width in the bound (for the split), t3 the third
// derivatives' ranges it used. With from (the ranges over a box that
// holds bx, its parent's), the form is first closed with those: they
// bound the third derivatives over bx too, and where the bound is below
// l0 + tau bx's own ranges (thirdRange, about half a band box's cost at
// (10^4, 0.495, 20, 1e-3)) are not formed. false when a term overflows.
func (pr *problem) diagTaylor(bd *band, bx [4]float64, from *[4]interval) (ub, cs, cr float64, t3 *[4]interval, ok bool) {
	s1, s2, r1, r2 := bx[0], bx[1], bx[2], bx[3]
	sm := mid(s1, s2)
	tm := sm + mid(r1, r2)
	rc := tm - sm // the center's r, exact up to the pad below
	mp, mq := fromLogit(sm), fromLogit(tm)
	c := pr.m.eval(mp, mq, 2, true)
	pr.evals++
	psi, okv := pr.value(c)
	if !okv {
		return 0, 0, 0, nil, false
	}
	if psi.v-psi.err > pr.l0+pr.tau {
		return math.Inf(1), 0, 0, nil, true // a point above the target: the band cannot close
	}
	var d [6]val
	for k := 1; k < 6; k++ {
		d[k] = pr.deriv(c, k, [2]float64{})
		if !finiteAll(d[k].v, d[k].err) {
			return 0, 0, 0, nil, false
		}
	}
	g, ge := chainST(mp, mq, d)
	ps := 4 * eps64 * (math.Abs(s1) + math.Abs(s2) + math.Abs(sm))
	pt := 4 * eps64 * (math.Abs(r1) + math.Abs(r2) + math.Abs(tm) + math.Abs(sm))
	ds := interval{s1 - sm - ps, s2 - sm + ps}
	dr := interval{r1 - rc - pt, r2 - rc + pt}
	es, er := math.Max(-ds.lo, ds.hi), math.Max(-dr.lo, dr.hi)
	quad := quadMax2(g[0], g[1], g[2], g[3], g[4], ds, dr)
	quad += ge[0]*es + ge[1]*er + (ge[2]*es*es+ge[4]*er*er)/2 + ge[3]*es*er
	xs := quadMax(g[0], ge[0], g[2]+ge[2], ds.lo, ds.hi)
	xr := quadMax(g[1], ge[1], g[4]+ge[4], dr.lo, dr.hi)
	// form adds the remainder with the ranges t3.
	form := func(t3 *[4]interval) (ub, cs, cr float64, ok bool) {
		ub = psi.v + psi.err + quad
		cs, cr = xs, xr
		for i, r := range t3 {
			ni, nj := 3-i, i
			x := maxProd(r, mono(ds, dr, ni, nj)) / (fact(ni) * fact(nj))
			ub += x
			cs += math.Max(x, 0) * float64(ni) / 3
			cr += math.Max(x, 0) * float64(nj) / 3
		}
		ub += termUlps * eps64 * (math.Abs(psi.v) + math.Abs(quad) + math.Abs(ub))
		return ub, cs, cr, finiteAll(ub)
	}
	if from != nil && !testOwnThird {
		if ub, cs, cr, ok := form(from); ok && ub <= pr.l0+pr.tau {
			return ub, cs, cr, from, true
		}
	}
	bd.thirds++
	own, ok3 := pr.thirdRange(bd, bx)
	if !ok3 {
		return 0, 0, 0, nil, false
	}
	ub, cs, cr, ok = form(&own)
	if !ok {
		return 0, 0, 0, nil, false
	}
	return ub, cs, cr, &own, true
}

// testOwnThird makes diagTaylor form every box's own third-derivative
// ranges (before/after, and the tests of the inherited ones).
var testOwnThird bool

// chainST returns the gradient (psi_s, psi_r) and Hessian (psi_ss, psi_sr,
// psi_rr) in (s, r) at (p, q), from the (p, q) derivatives d[1..5] (kinds
// (1,0), (0,1), (2,0), (1,1), (0,2)), with error bounds: with p' = p(1-p),
// p2 = p'(1-2p) (the second derivative) and likewise for q,
//
//	psi_s = p' psi_p + q' psi_q,  psi_r = q' psi_q,
//	psi_ss = p'^2 psi_pp + 2 p' q' psi_pq + q'^2 psi_qq + p'' psi_p + q'' psi_q,
//	psi_sr = p' q' psi_pq + q'^2 psi_qq + q'' psi_q,  psi_rr = q'^2 psi_qq + q'' psi_q.
func chainST(p, q coord, d [6]val) (g, ge [5]float64) {
	p1, q1 := math.Exp(p.l+p.l1), math.Exp(q.l+q.l1)
	p2 := p1 * (math.Exp(p.l1) - math.Exp(p.l))
	q2 := q1 * (math.Exp(q.l1) - math.Exp(q.l))
	// p', p'' within a few ulps of |log p| + |log(1-p)| (their logs'
	// errors), likewise for q.
	rel := 16 * eps64 * (math.Abs(p.l) + math.Abs(p.l1) + math.Abs(q.l) + math.Abs(q.l1) + 4)
	type term struct {
		c float64
		k int
	}
	rows := [5][]term{
		{{p1, 1}, {q1, 2}},
		{{q1, 2}},
		{{p1 * p1, 3}, {2 * p1 * q1, 4}, {q1 * q1, 5}, {p2, 1}, {q2, 2}},
		{{p1 * q1, 4}, {q1 * q1, 5}, {q2, 2}},
		{{q1 * q1, 5}, {q2, 2}},
	}
	for i, row := range rows {
		var mag float64
		for _, t := range row {
			g[i] += t.c * d[t.k].v
			ge[i] += math.Abs(t.c) * d[t.k].err
			mag += math.Abs(t.c * d[t.k].v)
		}
		ge[i] += (rel + 8*eps64) * mag
	}
	return g, ge
}

// boundBand sets b.ub for a box of the band search, whose t1, t2 hold
// its range of r (the box is [s1, s2] x [t1, t2] in (s, r)): the least of
// the Taylor form in (s, r) and the monotone and paired bounds of its
// bounding rectangle in (s, t).
func (pr *problem) boundBand(bd *band, b *box) {
	b.ub = math.Inf(1)
	bx := [4]float64{b.s1, b.s2, b.t1, b.t2}
	s1, s2, r1, r2 := bx[0], bx[1], bx[2], bx[3]
	t1 := math.Nextafter(math.Nextafter(s1+r1, math.Inf(-1)), math.Inf(-1))
	t2 := math.Nextafter(math.Nextafter(s2+r2, math.Inf(1)), math.Inf(1))
	// Data processing first, on the bounding rectangle: it evaluates nothing.
	if !noProcessed {
		if u := pr.processed(&box{s1: s1, s2: s2, t1: t1, t2: t2}); u <= pr.l0+pr.tau {
			b.ub, b.cs, b.ct = u, b.s2-b.s1, pr.alpha*(b.t2-b.t1)
			return
		}
	}
	if u, cs, cr, t3, ok := pr.diagTaylor(bd, bx, b.third); ok && math.IsInf(u, 1) {
		bd.above = true
		return
	} else if ok {
		b.ub, b.cs, b.ct, b.third = u, cs, cr, t3
	} else {
		b.third = nil
		b.cs, b.ct = b.s2-b.s1, pr.alpha*(b.t2-b.t1)
	}
	if b.ub <= pr.l0+pr.tau {
		return
	}
	pts := []*point{pr.m.eval(fromLogit(s1), fromLogit(t2), 0, true), pr.m.eval(fromLogit(s2), fromLogit(t1), 0, true)}
	pr.evals += 2
	if u := math.Min(pr.monotone(pts, cornerTail(pts, kVal)), pr.paired(pts)); u < b.ub {
		b.ub = u
	}
	if math.IsNaN(b.ub) {
		b.ub = math.Inf(1)
	}
}

// bandSlabs are the band's slabs in s, searched one by one from s = 0
// outwards: their ends are split points of the (s, t) search (mid), so
// that its boxes near the diagonal lie in one slab.
var bandSlabs = [][2]float64{{-1, 0}, {-2, -1}, {-4, -2}, {-8, -4}, {-16, -8}, {-32, -16}}

// searchBand runs the band's branch and bound slab by slab, with at most
// maxBoxes boxes in all (each slab gets an equal share of what is left);
// a slab is proved when every box of it closes below l0 + tau.
func (pr *problem) searchBand(ctx context.Context, maxBoxes int) *band {
	bd := pr.newBand()
	for i, sl := range bandSlabs {
		budget := bd.boxes + min(bandSlabMax, (maxBoxes-bd.boxes)/(len(bandSlabs)-i))
		if !pr.searchSlab(ctx, bd, sl, budget) {
			break // the next slabs are seldom easier (measured at n = 15, c = 0.1)
		}
		bd.slabs = append(bd.slabs, sl)
		bd.ok = true
		if bd.above || ctx.Err() != nil {
			bd.ok = false
			return bd
		}
	}
	return bd
}

// searchSlab proves psi <= l0 + tau on {s in sl, |r| <= beta}, or returns
// false when the budget (bd.boxes up to maxBoxes) ends first.
func (pr *problem) searchSlab(ctx context.Context, bd *band, sl [2]float64, maxBoxes int) bool {
	h, seq := &boxHeap{}, 0
	var tiles []Tile // the closed boxes (with problem.tiling)
	keep := func(b *box) {
		if pr.tiling {
			tiles = append(tiles, Tile{b.s1, b.s2, b.t1, b.t2})
		}
	}
	push := func(b *box) { seq++; b.seq = seq; heap.Push(h, b) }
	target := pr.l0 + pr.tau
	root := &box{s1: sl[0], s2: sl[1], t1: -bd.beta, t2: bd.beta} // t: r
	pr.boundBand(bd, root)
	bd.boxes++
	if bd.above {
		return false
	}
	push(root)
	for h.Len() > 0 && (*h)[0].ub > target {
		if bd.boxes >= maxBoxes || ctx.Err() != nil {
			return false
		}
		b := heap.Pop(h).(*box)
		s1, s2, r1, r2 := b.s1, b.s2, b.t1, b.t2
		alongS := b.cs >= b.ct
		ms, mr := mid(s1, s2), mid(r1, r2)
		thinS := !(ms > s1 && ms < s2) || s2-s1 <= 1e-9
		thinR := !(mr > r1 && mr < r2) || r2-r1 <= 1e-9/pr.alpha
		if thinS && thinR {
			return false // too thin to split: not proved
		}
		if alongS && thinS || !alongS && thinR {
			alongS = !alongS
		}
		x, y := &box{s1: s1, s2: s2, t1: r1, t2: r2, third: b.third}, &box{s1: s1, s2: s2, t1: r1, t2: r2, third: b.third}
		if alongS {
			x.s2, y.s1 = ms, ms
		} else {
			x.t2, y.t1 = mr, mr
		}
		for _, k := range [2]*box{x, y} {
			pr.boundBand(bd, k)
			bd.boxes++
			if bd.above {
				return false
			}
			if k.ub > target {
				push(k)
			} else {
				keep(k)
			}
		}
	}
	for _, b := range *h {
		keep(b) // ub <= target
	}
	bd.tiles = append(bd.tiles, tiles...)
	return true
}

// diagonal runs the band search where it applies (alpha >= bandFrom, eps
// < bandEps, a binomial model) and returns the band if proved.
func (pr *problem) diagonal(ctx context.Context, maxBoxes int) *band {
	if diagOff || pr.alpha < bandFrom || !pr.m.binom || pr.m.lerr != nil {
		return nil
	}
	if pr.logE >= bandEps*(pr.alpha-1) {
		return nil
	}
	return pr.searchBand(ctx, maxBoxes/bandShare)
}

// export returns the band's boxes for a certificate file and its extent:
// beta and the least s of its proved slabs (the greatest is 0); nil for no
// band.
func (bd *band) export() *Band {
	if bd == nil || !bd.ok || len(bd.tiles) == 0 {
		return nil
	}
	return &Band{Beta: bd.beta, S1: bd.slabs[len(bd.slabs)-1][0], S2: bd.slabs[0][1], Boxes: bd.tiles}
}

// count returns the boxes the band search bounded (0 for nil).
func (bd *band) count() int {
	if bd == nil {
		return 0
	}
	return bd.boxes
}
