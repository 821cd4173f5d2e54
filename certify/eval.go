package certify

import (
	"math"

	"github.com/bernamp/bernamp/internal/logspace"
)

// coord is one coordinate of a point of the unit square, kept as the pair
// (log x, log(1-x)) so that x near 0 and near 1 are both exact to relative
// precision. It is made from the logit s = log(x/(1-x)), which may be ±Inf.
type coord struct{ l, l1 float64 }

func fromLogit(s float64) coord {
	return coord{l: -logspace.Softplus(-s), l1: -logspace.Softplus(s)}
}

// value returns x.
func (x coord) value() float64 {
	if x.l < -math.Ln2 {
		return math.Exp(x.l)
	}
	return -math.Expm1(x.l1)
}

// model holds F_n written as a mixture of smoothed two-point terms,
//
//	F_n(p, q) = sum_j w_j [ g(p + (1-p) e_j, q + (1-q) e_j) + g(1-p + p e_j, 1-q + q e_j) ],
//
// over j = 0..floor(n/2), where w_j = C(n, j) c^j (1-c)^(n-j) is the
// Binomial(n, c) probability of j, e_j = (c/(1-c))^(n-2j) <= 1 and
// g(u, v) = u^alpha v^(1-alpha). It is the pairing of the terms j and n-j of
// the sum over j = 0..n (w_j e_j is the probability of n-j); the middle term
// of an even n is counted once, through the weight w_j / 2.
//
// For n >= windowFrom each evaluation sums only a window of j around the
// largest term of each half and bounds the rest by ratio tests (window.go,
// docs/reach.md): O(sqrt(n)) terms at any c.
type model struct {
	n     int
	alpha float64
	lw    []float64 // log w_j
	le    []float64 // log e_j = -(n - 2j) log((1-c)/c)
	lom   []float64 // log(1 - e_j) (-Inf at j = n/2)
	// lerr bounds the error of log w_j and of the logs formed from log e_j
	// beyond the few ulps eval assumes (nil: none); the group model's sums
	// of several logs need it.
	lerr []float64
	// binom: the terms are those of one Binomial(n, c) (e_(j+1) = e_j /
	// kappa, kappa = (c/(1-c))^2), so that the ratio tests of window.go
	// hold; lam = log((1-c)/c) > 0, sd = sqrt(n c (1-c)).
	binom   bool
	c       float64
	lam, sd float64
	// ej, om: e_j and 1 - e_j as floats (binomial models), for the
	// windowed sums' shared factors (window.go, addShared).
	ej, om []float64
	// coords holds the windowed sums' u_j and log u_j by coordinate
	// (coordLogs), coordsN entries in all.
	coords  map[[2]float64]*coordLogs
	coordsN int
}

// windowFrom is the smallest n whose sums are windowed.
const windowFrom = 400

func newModel(n int, c, alpha float64) *model {
	m := &model{n: n, alpha: alpha, binom: true, c: c, lam: logspace.LogOdds(c), sd: math.Sqrt(float64(n) * c * (1 - c))}
	lam := logspace.LogOdds(c)
	for j := 0; 2*j <= n; j++ {
		lw := logspace.BinomPMF(j, n, c, 1-c)
		if 2*j == n {
			lw -= math.Ln2
		}
		le := -float64(n-2*j) * lam
		m.lw = append(m.lw, lw)
		m.le = append(m.le, le)
		m.lom = append(m.lom, math.Log(-math.Expm1(le)))
		m.ej, m.om = append(m.ej, math.Exp(le)), append(m.om, -math.Expm1(le))
	}
	return m
}

// mixed returns log(x + (1-x) e) as base + corr, where base is the larger of
// log x and log(1-x) + log e and corr = log(1 + e^(smaller - larger)) is in
// [0, log 2]; top says whether base is log x. Keeping the two parts apart
// lets a difference of two such logs with the same kind of base cancel the
// large common part (log e) exactly.
func mixed(x coord, le float64) (base, corr float64, top bool) {
	a, b := x.l, x.l1+le
	if a >= b {
		return a, logspace.Softplus(b - a), true
	}
	return b, logspace.Softplus(a - b), false
}

// logRatio returns log(u/v) for u = x + (1-x) e and v = y + (1-y) e, with
// the common log e cancelled exactly where both are dominated by it.
func logRatio(x, y coord, le float64) (lu, lv, d float64) {
	bu, cu, tu := mixed(x, le)
	bv, cv, tv := mixed(y, le)
	lu, lv = bu+cu, bv+cv
	switch {
	case tu && tv:
		d = (x.l - y.l) + (cu - cv)
	case !tu && !tv:
		d = (x.l1 - y.l1) + (cu - cv)
	default:
		d = lu - lv
	}
	return lu, lv, d
}

// sum accumulates a sum of positive terms given by their logs: a reference
// level top, Neumaier's compensated sum relative to it, and err, the sum of
// each term times a bound on its relative error (from the logs that form
// it). The level moves only when a term exceeds it by e^30, so the
// rescalings (one rounding each) stay few and are counted.
type sum struct {
	top, s, comp, err float64
	rescales          int
}

func newSum() sum { return sum{top: math.Inf(-1)} }

// add adds e^x, whose relative error is at most r, and returns the value
// added, e^(x - top) (0 for x = -Inf).
func (a *sum) add(x, r float64) float64 {
	if math.IsInf(x, -1) {
		return 0
	}
	if x > a.top+30 || math.IsInf(x, 1) {
		if !math.IsInf(a.top, -1) {
			f := math.Exp(a.top - x)
			a.s *= f
			a.comp *= f
			a.err *= f
			a.rescales++
		}
		a.top = x
	}
	t := 1.0 // e^0, as exp gives it: a sum's first term sets its level
	if x != a.top {
		t = math.Exp(x - a.top)
	}
	a.addScaled(t, r)
	return t
}

// addScaled adds t = e^(x - top) for a term e^x with x <= top + 30 (a.top
// finite, as add leaves it), computed by the caller, whose relative error
// (its log's and the caller's arithmetic's) is at most r.
func (a *sum) addScaled(t, r float64) {
	v := a.s + t
	if math.Abs(a.s) >= t {
		a.comp += (a.s - v) + t
	} else {
		a.comp += (t - v) + a.s
	}
	a.s = v
	a.err += t * r
}

// log returns the log of the sum.
func (a *sum) log() float64 {
	if math.IsInf(a.top, -1) {
		return a.top
	}
	return a.top + math.Log(a.s+a.comp)
}

// relErr bounds the relative error of the sum: the terms' own errors, two
// roundings per rescaling and the compensated sum's (2 ulps, plus the
// second-order term that a few ulps more cover for the sums here).
func (a *sum) relErr() float64 {
	if a.s == 0 {
		return 0
	}
	return a.err/a.s + (float64(2*a.rescales)+sumUlps)*eps64
}

// scaled returns the sum times e^-ref (+Inf when it overflows) and a bound
// on its absolute error.
func (a *sum) scaled(ref float64) (v, err float64) {
	if math.IsInf(a.top, -1) {
		return 0, 0
	}
	v = math.Exp(a.top-ref) * (a.s + a.comp)
	// exp adds an error of ulps of its argument's size.
	return v, v * (a.relErr() + expUlps*eps64*(math.Abs(a.top)+math.Abs(ref)+1))
}

// Kinds of sums kept per half of F: the term g(u, v) divided by u^i v^j,
// times (1-e_j)^(i+j) (the chain rule's factor), for i + j <= maxOrder.
// With (a)_i the falling factorial, the (i, j)-th partial derivative of a
// half in (p, q) is (a)_i (1-a)_j (+-1)^(i+j) times its (i, j) sum. Kinds
// are ordered by degree: kindIJ[k] is (i, j), kindsUpTo[d] counts those of
// degree <= d.
const maxOrder = 3

var kindIJ = [...][2]int{{0, 0}, {1, 0}, {0, 1}, {2, 0}, {1, 1}, {0, 2}, {3, 0}, {2, 1}, {1, 2}, {0, 3}}

var kindsUpTo = [maxOrder + 1]int{1, 3, 6, 10}

// orderAll asks eval for every kind, those of degree 1 and 2 included (a
// box's Taylor center, which its grandchildren may take as a corner).
const orderAll = maxOrder + 1

const (
	kVal   = 0
	kU     = 1
	kV     = 2
	kPP    = 3 // (2, 0)
	kQQ    = 5 // (0, 2)
	kPPP   = 6 // (3, 0), the first of degree 3
	nKinds = len(kindIJ)
)

// point is F_n, G and G^T at one point (p, q). The halves of each function
// (the terms in p and in 1-p) are kept apart: they are monotone in p and q
// in opposite directions, and a box takes each at its own corner.
type point struct {
	p, q coord
	at   [2]float64 // the logits (s, t) it was made from, when a box corner
	// f[h][kind]: sums over j of w_j (1-e_j)^order kind-term of half h,
	// half 0 with u = p + (1-p) e_j, v = q + (1-q) e_j, half 1 with
	// u = 1-p + p e_j, v = 1-q + q e_j.
	f [2][nKinds]sum
	// kinds computed: kindsUpTo[order]; at order maxOrder (the corners of
	// a box, which the enclosures use for the value and the third-degree
	// ranges only) the kinds of degree 1 and 2 are skipped (see has).
	kinds  int
	corner bool
	// logTail[h][k] bounds the omitted terms of kind k of half h (-Inf
	// when every j was summed); win[h] is half h's window [lo, hi).
	logTail [2][nKinds]float64
	win     [2][2]int
	// valTail[h][s] bounds the omitted value terms of half h beyond side s
	// of its window (their sum is logTail[h][kVal]): splitPaired takes
	// only the side it needs.
	valTail [2][2]float64
	// log g(p, q), log g(1-p, 1-q) (the halves of G), log g(q, p),
	// log g(1-q, 1-p) (the halves of G^T).
	lg1, lg2, lh1, lh2 float64
	// grel[i] is gRel of ghalf(i): the relative error of its value.
	grel [4]float64
	// thirds holds the pieces of the third-degree kinds, formed on first
	// use (problem.cornerPieces): a corner serves the Taylor remainders of
	// the boxes that meet there and of their parents.
	thirds *cornerThirds
	// vt[h] holds half h's value terms over its window (valueTerms): those
	// of a full sum as eval adds them, a window's on first use by
	// splitPaired.
	vt [2]valueTerms
}

// valueTerms are the value terms (log, error bound in log units, lerr
// included) of a half for j from lo on (nil: none kept), and how the
// others are formed: through sh as the windowed sums add them
// (sharedValue), or through the logs as addTerm does (sh nil).
type valueTerms struct {
	lo int
	tr [][2]float64
	sh *shared
}

// vtMax is the most terms a half keeps in point.vt: at n = 10^4 a window
// holds hundreds, and a point's terms would outweigh the rest of it.
const vtMax = 64

// valueTerms returns half h's value terms at t (arguments xy), kept on t
// when its window holds at most vtMax.
func (m *model) valueTerms(t *point, h int, xy [2]coord) valueTerms {
	lo, hi := t.win[h][0], t.win[h][1]
	if t.vt[h].tr != nil {
		return t.vt[h]
	}
	v := valueTerms{}
	if m.windowed() && m.lerr == nil {
		v.sh = m.windowShared(xy)
	}
	if hi-lo > vtMax || testNoValueTerms {
		return v
	}
	v.lo, v.tr = lo, make([][2]float64, hi-lo)
	for j := lo; j < hi; j++ {
		v.tr[j-lo][0], v.tr[j-lo][1] = v.form(m, j, xy)
	}
	t.vt[h] = v
	return v
}

// at returns the value term j (log, error bound), kept or formed anew.
func (v valueTerms) at(m *model, j int, xy [2]coord) (t, r float64) {
	if i := j - v.lo; i >= 0 && i < len(v.tr) {
		x := v.tr[i]
		return x[0], x[1]
	}
	return v.form(m, j, xy)
}

// form returns the value term j formed anew, as the sums formed it.
func (v valueTerms) form(m *model, j int, xy [2]coord) (t, r float64) {
	if v.sh != nil {
		t, r, _, _, _, _, _ = m.sharedValue(xy, j, v.sh)
		return t, r
	}
	return m.valueTerm(xy, j)
}

// valueTerm returns the value term j of a half with arguments xy: its log
// and error bound (lerr included), as addTerm adds it.
func (m *model) valueTerm(xy [2]coord, j int) (t, r float64) {
	t, r, _, _ = m.termLog(xy, j, nil)
	if m.lerr != nil {
		r += m.lerr[j]
	}
	return t, r
}

// testNoValueTerms turns point.vt off (before/after; the sums are the same
// bit for bit).
var testNoValueTerms = false

// cornerThirds are a point's pieces (problem.pieces, unscaled, its own
// tails) of the kinds kPPP.. nKinds-1; bit k-kPPP of have marks those formed.
type cornerThirds struct {
	v    [nKinds - kPPP][6]val
	have uint8
}

// eval computes F_n, G and G^T at (p, q); order (0..maxOrder, or
// orderAll) says how many derivatives of F's terms to sum.
//
// With window set (and a binomial model with n >= windowFrom), each half
// sums a window of j and logTail bounds the rest (window.go); otherwise
// every j is summed.
func (m *model) eval(p, q coord, order int, window bool) *point {
	a := m.alpha
	pt := &point{p: p, q: q, kinds: kindsUpTo[min(order, maxOrder)], corner: order == maxOrder}
	for h := range pt.f {
		for k := range pt.f[h] {
			pt.f[h][k] = newSum()
		}
	}
	for h := range pt.logTail {
		for k := range pt.logTail[h] {
			pt.logTail[h][k] = math.Inf(-1)
		}
		pt.valTail[h] = [2]float64{math.Inf(-1), math.Inf(-1)}
	}
	pb, qb := coord{p.l1, p.l}, coord{q.l1, q.l} // 1-p, 1-q
	for h, xy := range [2][2]coord{{p, q}, {pb, qb}} {
		if window && m.windowed() {
			m.sumWindow(pt, h, xy)
			continue
		}
		if len(m.lw) <= vtMax && !testNoValueTerms {
			pt.vt[h] = valueTerms{lo: 0, tr: make([][2]float64, len(m.lw))}
		}
		var lv levels
		for j := range m.lw {
			m.addTerm(pt, h, xy, j, &lv)
		}
		pt.win[h] = [2]int{0, len(m.lw)}
	}
	pt.lg1, pt.lg2 = logG(p.l, q.l, a), logG(p.l1, q.l1, a)
	pt.lh1, pt.lh2 = logG(q.l, p.l, a), logG(q.l1, p.l1, a)
	for i := range pt.grel {
		g := pt.ghalf(i)
		pt.grel[i] = gRel(g[0], g[1], a)
	}
	return pt
}

// ghalf returns, for i = 0, 1 the halves of G and for i = 2, 3 those of
// G^T, the logs (log u, log v) of its arguments and its log value.
func (t *point) ghalf(i int) [3]float64 {
	p, q := t.p, t.q
	switch i {
	case 0:
		return [3]float64{p.l, q.l, t.lg1} // g(p, q)
	case 1:
		return [3]float64{p.l1, q.l1, t.lg2} // g(1-p, 1-q)
	case 2:
		return [3]float64{q.l, p.l, t.lh1} // g(q, p)
	}
	return [3]float64{q.l1, p.l1, t.lh2} // g(1-q, 1-p)
}

// levels is a half's state while its terms are added: dtop[k] is top_0 -
// top_k of its sums when rtop[k] = e^dtop was last formed (rtop 0: not
// yet).
type levels struct{ dtop, rtop [nKinds]float64 }

// addTerm adds term j of half h (arguments xy: (p, q) or (1-p, 1-q)) to
// each kind's sum of pt; lev is the half's levels.
func (m *model) addTerm(pt *point, h int, xy [2]coord, j int, lev *levels) {
	t, r, lu, lv := m.termLog(xy, j, nil)
	if m.lerr != nil {
		r += m.lerr[j]
	}
	if v := pt.vt[h]; v.tr != nil {
		v.tr[j-v.lo] = [2]float64{t, r}
	}
	f := &pt.f[h]
	t0 := f[kVal].add(t, r)
	lo := m.lom[j]
	if pt.kinds == 1 || math.IsInf(lo, -1) {
		return
	}
	k0 := 1
	if pt.corner {
		k0 = kindsUpTo[2]
	}
	// Kind (i, jj)'s term is e^(t + i a + jj b), a = log((1-e_j)/u), b =
	// log((1-e_j)/v): the value's term times (e^a)^i (e^b)^jj. Where the
	// sum of the logs' sizes (mag) is <= 600, so that every partial
	// product is a normal float, and the term is <= e^30 times its sum's
	// level (no rescaling), it is formed from t0 = e^(t - top_0) (the
	// value's, as added), e^a, e^b and e^(top_0 - top_k): two exps for all
	// kinds instead of one each. Its relative error is rk (forming a log
	// of the term, as on the direct path) plus sharedErr (the chain).
	a, b := lo-lu, lo-lv
	var ea, eb float64
	top0 := f[kVal].top
	ok := t0 > 0 && math.Abs(a) <= 600 && math.Abs(b) <= 600
	if ok {
		ea, eb = math.Exp(a), math.Exp(b)
	}
	for k := k0; k < pt.kinds; k++ {
		i, jj := float64(kindIJ[k][0]), float64(kindIJ[k][1])
		rk := r + termUlps*eps64*(i+jj)*(math.Abs(lo)+math.Abs(lu)+math.Abs(lv)+1)
		x := t + i*a + jj*b
		fk := &f[k]
		dt := top0 - fk.top
		mag := math.Abs(t-top0) + math.Abs(dt) + i*math.Abs(a) + jj*math.Abs(b)
		if ok && x <= fk.top+30 && mag <= 600 {
			if dt != lev.dtop[k] || lev.rtop[k] == 0 {
				lev.dtop[k], lev.rtop[k] = dt, math.Exp(dt)
			}
			v := sharedTerm(t0, lev.rtop[k], ea, eb, kindIJ[k][0], kindIJ[k][1])
			fk.addScaled(v, rk+sharedErr(mag, kindIJ[k][0], kindIJ[k][1]))
			continue
		}
		fk.add(t-i*lu-jj*lv+(i+jj)*lo, rk)
	}
}

// sharedTerm returns t0 rtop ea^i eb^jj, a derivative kind's term scaled
// to its sum's level (addTerm), in this order of products.
func sharedTerm(t0, rtop, ea, eb float64, i, jj int) float64 {
	v := t0 * rtop
	for range i {
		v *= ea
	}
	for range jj {
		v *= eb
	}
	return v
}

// sharedErr bounds the relative error that sharedTerm and the exps of its
// factors add to the term e^(t - top_k + i a + jj b), where mag = |t -
// top_0| + |top_0 - top_k| + i |a| + jj |b| <= 600 and t0 = exp(t - top_0),
// rtop = exp(top_0 - top_k), ea = exp(a), eb = exp(b) with a = lo - lu, b
// = lo - lv as float64 differences (see addTerm): each difference's
// rounding (ulps of its size, which an exp turns into as much relative
// error, and a power multiplies), 2 ulps for each exp and one for each
// product, twice over.
func sharedErr(mag float64, i, jj int) float64 {
	return sharedUlps * eps64 * (mag + 3*float64(i+jj) + 8)
}

// has says whether kind k was summed at t.
func (t *point) has(k int) bool {
	return k < t.kinds && !(t.corner && k > kVal && k < kindsUpTo[2])
}

func finiteAll(xs ...float64) bool {
	for _, x := range xs {
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return false
		}
	}
	return true
}

// windowed says whether t's sums omit terms (a logTail finite).
func (t *point) windowed() bool {
	return !math.IsInf(t.logTail[0][kVal], -1) || !math.IsInf(t.logTail[1][kVal], -1)
}

// gRel bounds the relative error of g(u, v) computed by logG: the
// inputs' own errors (a few ulps of |log u| and |log v|, which move log g by
// alpha and |1-alpha| times as much) and the rounding of logG's formula.
func gRel(lu, lv, a float64) float64 {
	if math.IsInf(lu, 0) || math.IsInf(lv, 0) {
		return 0 // g is exactly 0 or +Inf
	}
	return termUlps * eps64 * (a*math.Abs(lu) + math.Abs(1-a)*math.Abs(lv) + logGErr(lu, lv, a) + 8)
}

// logGErr is the size of the terms that logG adds for (lu, lv): their
// rounding is a few ulps of it.
func logGErr(lu, lv, a float64) float64 {
	return math.Min(math.Abs(lv)+a*math.Abs(lu-lv), a*math.Abs(lu)+math.Abs(1-a)*math.Abs(lv))
}

// logG returns log g(u, v) = alpha log u + (1-alpha) log v, with g(0, v) = 0
// and g(u, 0) = +Inf for u > 0 (the perspective's limits). Of the two ways
// to form it, log v + alpha (log u - log v) and alpha log u + (1-alpha) log
// v, it takes the one with the smaller terms: the first where u and v are
// close and alpha is large, the second where log v is huge and alpha is
// near 1 (the first would cancel two numbers of the size of log v).
func logG(lu, lv, a float64) float64 {
	switch {
	case math.IsInf(lu, -1):
		return lu
	case math.IsInf(lv, -1):
		return math.Inf(1)
	}
	if math.Abs(lv)+a*math.Abs(lu-lv) <= a*math.Abs(lu)+math.Abs(1-a)*math.Abs(lv) {
		return lv + a*(lu-lv)
	}
	return a*lu + (1-a)*lv
}
