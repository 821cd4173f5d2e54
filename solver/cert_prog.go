package solver

import (
	"math"
	"slices"

	"github.com/bernamp/bernamp/corner"
	"github.com/bernamp/bernamp/internal/logspace"
)

// certProgram is the full corner program of one point, prepared for the
// branch and bound over the output likelihood ratios t_m = (Kx)_m / (Ky)_m
// (math.md section 5). The LP of a box has 4n variables, n = 2^d:
//
//	x_z (P), y_z (Q), s_z, s2_z (tangent-cut slacks, scaled by 1/Ê)   in [0, 1],
//
// plus one variable q_m in [0, qmax_m] per output of the box's list of
// data-processing rows (certBox.dpi), and maximizes the chord bound on F/S
// less sum q over
//
//	sum x = sum y = 1,
//	box rows      (Kx)_m <= th_m (Ky)_m,  tl_m (Ky)_m <= (Kx)_m,
//	symmetry      x_z <= x_0 for every z,  x_{e_l} sorted (the weight-one corners),
//	budgets       sum s <= 1, sum s2 <= 1,
//	tangent cuts  a(t) x_z - b(t) y_z <= s_z and a(t) y_z - b(t) x_z <= s2_z,
//	              a(t) = alpha t^(alpha-1) / Ê, b(t) = (alpha-1) t^alpha / Ê,
//	output data processing  chord_m(x, y) - (Ê/S) sum_z K[m, z] s_z <= q_m,
//
// where Ê >= E = exp((alpha-1) eps) and S = exp(logS) is the closing level.
// It is read-only once built and shared by the workers.
type certProgram struct {
	d, k, n, M int
	alpha      float64
	logE       float64   // log Ê, rounded up
	logS       float64   // objective scale: F is bounded in units of e^logS
	lK         []float64 // M*n: log K[m, z]
	lKmax      []float64 // M: max_z log K[m, z]
	lKsum      []float64 // M: log sum_z K[m, z]
	lKabs      float64   // max |log K[m, z]|
	kh         []float64 // M*n: K[m, z] / max_z K[m, z]
	dpiK       []float64 // M*n: K[m, z] Ê / e^logS, rounded up (output data-processing rows)
	rootLo     []float64 // M: log tl_m of the root box, widened
	rootHi     []float64
	sym        [][2]int // rows x_a - x_b <= 0
}

// certCutMax caps the ratio of a tangent cut: log t in [-certCutMax,
// certCutMax], t in 1e-6..1e6 (math.md: huge-ratio cut rows made the
// prototype's LPs unreliable). Any ratio gives a valid cut.
const certCutMax = 13.815510557964274 // log(1e6)

func newCertProgram(d, k int, c, alpha, eps, logS float64) *certProgram {
	ch := corner.Full(d, k, c)
	n, M := ch.Inputs(), ch.Outputs()
	// Ê: (alpha-1) eps takes two roundings (at most 4.5e-16 relative);
	// raising it by 1e-15 relative plus a tiny absolute amount keeps Ê >= E.
	logE := (alpha-1)*eps*(1+1e-15) + 1e-300
	p := &certProgram{d: d, k: k, n: n, M: M, alpha: alpha, logE: logE, logS: logS,
		lK: make([]float64, M*n), lKmax: make([]float64, M), lKsum: make([]float64, M), kh: make([]float64, M*n), dpiK: make([]float64, M*n),
		rootLo: make([]float64, M), rootHi: make([]float64, M)}
	col := make([]float64, M)
	for z := range n {
		ch.LogColumn(col, z)
		for m, v := range col {
			p.lK[m*n+z] = v
		}
	}
	memo := make(map[[3]float64]float64)
	for m := range M {
		row := p.lK[m*n : m*n+n]
		lo, hi := row[0], row[0]
		for _, v := range row {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		p.lKmax[m] = hi
		p.lKabs = math.Max(p.lKabs, math.Max(math.Abs(lo), math.Abs(hi)))
		p.lKsum[m] = logspace.Sum(row)
		for z, v := range row {
			p.kh[m*n+z] = math.Exp(v - hi)
			// exp of a float accurate to a few ulps of |log K| plus
			// |logE - logS|: 1e-13 plus four times that bounds the
			// relative error of the product.
			p.dpiK[m*n+z] = math.Exp(v+logE-logS) * (1 + 1e-13 + 4e-16*(math.Abs(v)+math.Abs(logE-logS)+8))
		}
		// t_m = sum_z K x / sum_z K y lies between min_z K / max_z K and its
		// inverse. LogColumn is accurate to a few ulps of |log K|; the root
		// is widened by 1e-12 relative in t plus ten times that error.
		w := hi - lo + 1e-12 + 1e-14*(math.Abs(hi)+math.Abs(lo))
		// Data processing: R_alpha(Kx || Ky) <= eps, so every output's
		// term u_m^alpha v_m^(1-alpha) = t_m^(alpha-1) u_m <= E, and u_m >=
		// min_z K[m, z]; the same for Q || P. Hence
		//	|log t_m| <= (log E - min_z log K[m, z]) / (alpha-1),
		// widened like the root (logE is Ê, already rounded up).
		dp := (logE - lo) / (alpha - 1)
		dp += 1e-12 + 1e-14*(math.Abs(dp)+math.Abs(logE)+math.Abs(lo))
		w = math.Min(w, dp)
		// Bernoulli data processing on the symmetry domain (certRootRow).
		bl, bh := certRootRow(alpha, logE, row, memo)
		p.rootLo[m], p.rootHi[m] = math.Max(-w, bl), math.Min(w, bh)
	}
	// Symmetry domain (docs/certificates.md): x_0 >= x_z, and the
	// weight-one corners sorted by index, x_1 >= x_2 >= x_4 >= ... (d = 2:
	// x_01 >= x_10).
	for z := 1; z < n; z++ {
		p.sym = append(p.sym, [2]int{z, 0})
	}
	for l := 0; l+1 < d; l++ {
		p.sym = append(p.sym, [2]int{1 << (l + 1), 1 << l})
	}
	return p
}

// certRootRow returns lower and upper bounds on log t_m = log(u/v),
// u = (Kx)_m and v = (Ky)_m, over the feasible pairs (x, y) with x in the
// symmetry domain, for the row lK = log K[m, .] (docs/certificates.md, "Root
// box: Bernoulli data processing"). With lo <= min K[m, .] < max K[m, .] <=
// hi and w_z = (K[m, z] - lo)/(hi - lo) in [0, 1], u = lo + (hi - lo) X for
// X = w'x, v = lo + (hi - lo) Y for Y = w'y, so t_m = (L + X)/(L + Y) with
// L = lo/(hi - lo), and the channel z -> Bernoulli(w_z) gives, by data
// processing, D(X, Y) <= E and D(Y, X) <= E for
//
//	D(X, Y) = X^alpha Y^(1-alpha) + (1-X)^alpha (1-Y)^(1-alpha).
//
// The symmetry rows x_z <= x_0 put X in [Xlo, Xhi], the least and largest
// mean of w over the sets of corners that contain 0 (every such x is a
// convex combination of the uniform distributions on its superlevel sets,
// which contain 0). y is free. So log t_m <= certRootRatio(.., L, Xhi, 0)
// and log t_m >= -certRootRatio(.., L, 1, Xlo) (the set is symmetric in
// (X, Y)). A row with lo = hi gives (-Inf, Inf): the caller's bound holds.
// memo holds the values of certRootRatio by (L, xcap, yfloor).
func certRootRow(alpha, logE float64, lK []float64, memo map[[3]float64]float64) (lower, upper float64) {
	llo, lhi := lK[0], lK[0]
	for _, v := range lK {
		llo, lhi = math.Min(llo, v), math.Max(lhi, v)
	}
	// LogColumn is accurate to a few ulps of |log K|: widen the range by
	// ten times that.
	llo -= 1e-13 + 1e-14*math.Abs(llo)
	lhi += 1e-13 + 1e-14*math.Abs(lhi)
	s := lhi - llo
	// L = 1/expm1(s), to a few ulps times (1 + s) (the rounding of s),
	// rounded down: (L + X)/(L + Y) decreases with L for X > Y.
	L := 1 / math.Expm1(s) * (1 - 1e-15*(8+s))
	if !(L > 0) || math.IsInf(L, 1) {
		return math.Inf(-1), math.Inf(1)
	}
	// w_z = L expm1(log K - lo): its absolute error is below (1 + L) times
	// the relative error of K (ten ulps of |log K|) plus a few ulps of s
	// times w; wpad covers it and the rounding of the means below.
	wpad := 1e-13 * (1 + L) * (8 + s + math.Abs(llo) + math.Abs(lhi))
	w0 := L * math.Expm1(lK[0]-llo)
	var rest []float64
	for _, v := range lK[1:] {
		rest = append(rest, L*math.Expm1(v-llo))
	}
	slices.Sort(rest)
	xlo, xhi := w0, w0
	sum := w0
	for j, v := range rest { // corner 0 and the j+1 smallest w
		sum += v
		xlo = math.Min(xlo, sum/float64(j+2))
	}
	sum = w0
	for j := range rest { // corner 0 and the j+1 largest w
		sum += rest[len(rest)-1-j]
		xhi = math.Max(xhi, sum/float64(j+2))
	}
	xlo, xhi = math.Max(0, xlo-wpad), math.Min(1, xhi+wpad)
	ratio := func(xcap, yfloor float64) float64 {
		key := [3]float64{L, xcap, yfloor}
		r, ok := memo[key]
		if !ok {
			r = certRootRatio(alpha, logE, L, xcap, yfloor)
			memo[key] = r
		}
		return r
	}
	return -ratio(1, xlo), ratio(xhi, 0)
}

// certRootTol is the slack allowed in a root bound, in log t.
const certRootTol = 1e-3

// certRootRatio returns an upper bound on log((L + X)/(L + Y)) over the
// (X, Y) in [0, 1]^2 with D(X, Y) <= E, D(Y, X) <= E (certRootRow), X <=
// xcap and Y >= yfloor, L > 0; at least 0 (X = Y is feasible).
//
// f(Y) = min(xcap, Xmax(Y)), Xmax(Y) the largest feasible X given Y, is
// concave (the feasible set is convex: D is jointly convex) and does not
// decrease (for X >= Y both D(X, Y) and D(Y, X) grow with X and fall with
// Y). At points Y_i, a bisection with an outward-rounded test gives up_i >=
// f(Y_i) (a point proved infeasible) and lo_i <= f(Y_i) (one proved
// feasible). On a cell [Y_i, Y_i+1], f is at most up_i+1 (monotone) and, by
// concavity, the chord through (Y_i-1, lo_i-1), (Y_i, up_i) extended to the
// right, and the chord through (Y_i+1, up_i+1), (Y_i+2, lo_i+2) extended to
// the left. (L + l(Y))/(L + Y) is monotone for a line l, so on any
// subinterval the ratio is at most the least over these lines of the larger
// end value; each cell is cut where the two chords cross. Cells, first a
// geometric grid in L + Y, are split where the bound is largest until it is
// within certRootTol of a proved feasible ratio (at most 256 splits).
func certRootRatio(alpha, logE, L, xcap, yfloor float64) float64 {
	if yfloor >= 1 {
		return 0
	}
	type point struct{ y, up, lo float64 }
	// at returns the point at y: up >= f(y) >= lo.
	at := func(y float64) point {
		if y <= 0 { // D(X, 0) = +Inf for X > 0
			return point{0, 0, 0}
		}
		if y >= 1 {
			return point{1, math.Min(1, xcap), math.Min(1, xcap)}
		}
		ly, l1y := math.Log(y), math.Log1p(-y)
		// test returns +1 when (x, y) violates a constraint, -1 when it
		// satisfies both, 0 when log D is within the error of its evaluation
		// (a few ulps of the largest term, alpha (|log x| + ...)) of log Ê.
		// At x = 1 > y, D(y, x) is +Inf.
		test := func(x float64) int {
			if x >= 1 {
				return 1
			}
			lx, l1x := math.Log(x), math.Log1p(-x)
			err := 1e-13 + 1e-15*(alpha*(math.Abs(lx)+math.Abs(ly)+math.Abs(l1x)+math.Abs(l1y))+8)
			g := math.Max(logspace.Add(alpha*lx+(1-alpha)*ly, alpha*l1x+(1-alpha)*l1y),
				logspace.Add(alpha*ly+(1-alpha)*lx, alpha*l1y+(1-alpha)*l1x))
			switch {
			case g-err > logE:
				return 1
			case g+err <= logE:
				return -1
			}
			return 0
		}
		// Bisection in log x from x = y (feasible: D = 1) to x = 1
		// (infeasible), to 1e-6 relative or until the test cannot decide.
		l, h := ly, 0.0
		p := point{y: y, up: 1, lo: y}
	bisect:
		for h-l > 1e-6 {
			mid := (l + h) / 2
			x := math.Exp(mid)
			switch test(x) {
			case 1:
				h, p.up = mid, x
			case -1:
				l, p.lo = mid, x
			default:
				break bisect
			}
		}
		p.up, p.lo = math.Min(p.up, xcap), math.Min(p.lo, xcap)
		return p
	}
	// ratio returns log((L + l)/(L + y)) rounded up for an upper bound l on
	// f(y) that was formed with absolute error below e.
	ratio := func(l, e, y float64) float64 {
		lu, ly := math.Log(L+math.Max(0, l+e)), math.Log(L+y)
		// The sums and logs are within 2 ulps each.
		return lu - ly + 1e-12 + 1e-15*(math.Abs(lu)+math.Abs(ly))
	}
	// line is the upper bound y0 + s (y - x0) on f, with its error.
	type line struct{ x0, y0, s float64 }
	eval := func(ln line, y float64) float64 {
		d := ln.s * (y - ln.x0)
		return ratio(ln.y0+d, 1e-14*(math.Abs(ln.y0)+math.Abs(d)), y)
	}
	pts := []point{at(yfloor)}
	// cell returns the bound on cell i, [pts[i].y, pts[i+1].y].
	cell := func(i int) float64 {
		a, b := pts[i].y, pts[i+1].y
		lines := []line{{b, pts[i+1].up, 0}}
		if i >= 1 {
			p, q := pts[i-1], pts[i]
			lines = append(lines, line{q.y, q.up, (q.up - p.lo) / (q.y - p.y)})
		}
		if i+2 < len(pts) {
			r, t := pts[i+1], pts[i+2]
			lines = append(lines, line{r.y, r.up, (t.lo - r.up) / (t.y - r.y)})
		}
		cut := []float64{a}
		if len(lines) == 3 && lines[1].s != lines[2].s {
			// Where the chords cross: any cut point is valid.
			if c := (lines[2].y0 - lines[1].y0 + lines[1].s*lines[1].x0 - lines[2].s*lines[2].x0) / (lines[1].s - lines[2].s); c > a && c < b {
				cut = append(cut, c)
			}
		}
		cut = append(cut, b)
		r := math.Inf(-1)
		for k := 0; k+1 < len(cut); k++ {
			best := math.Inf(1)
			for _, ln := range lines {
				best = math.Min(best, math.Max(eval(ln, cut[k]), eval(ln, cut[k+1])))
			}
			r = math.Max(r, best)
		}
		return r
	}
	// Initial points: L + Y in a geometric grid from L + yfloor to 1 + L,
	// ratio about 2 (at most 64 cells).
	bot, top := math.Log(L+yfloor), math.Log1p(L)
	nc := max(1, int(math.Min(64, math.Ceil((top-bot)/math.Ln2))))
	for i := 1; i <= nc; i++ {
		y := 1.0
		if i < nc {
			y = math.Min(1, math.Exp(bot+(top-bot)*float64(i)/float64(nc))-L)
		}
		if y > pts[len(pts)-1].y {
			pts = append(pts, at(y))
		}
	}
	// feas is a proved feasible log ratio (P = Q gives 0).
	feas := 0.0
	for _, p := range pts {
		feas = math.Max(feas, math.Log(L+p.lo)-math.Log(L+p.y))
	}
	ub := make([]float64, len(pts)-1)
	for i := range ub {
		ub[i] = cell(i)
	}
	for range 256 {
		worst := 0
		for i := range ub {
			if ub[i] > ub[worst] {
				worst = i
			}
		}
		a, b := pts[worst].y, pts[worst+1].y
		// Split at the geometric midpoint of L + Y.
		y := math.Exp((math.Log(L+a)+math.Log(L+b))/2) - L
		if ub[worst]-feas <= certRootTol || !(y > a && y < b) {
			break
		}
		p := at(y)
		feas = math.Max(feas, math.Log(L+p.lo)-math.Log(L+p.y))
		j := worst + 1
		pts = slices.Insert(pts, j, p)
		ub = slices.Insert(ub, j, 0)
		// Cell i depends on points i-1 .. i+2.
		for i := max(0, j-2); i <= min(len(ub)-1, j+1); i++ {
			ub[i] = cell(i)
		}
	}
	return math.Max(0, slices.Max(ub))
}

// certCut is a tangent cut at ratio e^lt on corner z: of the P||Q
// constraint (x_z, y_z, s_z) or, with swap, of the Q||P one (y_z, x_z, s2_z).
type certCut struct {
	z    int
	swap bool
	lt   float64
}

// certBox is a node: the box prod_m [e^lo_m, e^hi_m] of output ratios, the
// cuts it inherited, and the bound proved for it.
type certBox struct {
	lo, hi []float64
	cuts   []certCut
	bound  float64 // proved bound on log F over the feasible points of the box; -Inf: none
	split  int     // ratio to split next
	dpi    []int   // outputs given a data-processing row (and a variable q_m)
	seq    int64   // creation order, for a deterministic queue
}

// certWork is one worker's scratch.
type certWork struct {
	p       *certProgram
	lp      certLP
	sx      certSimplex
	lB, lA  []float64 // per output: log B_m and log |A_m| of the chord
	eb, ea  []float64 // per output: B_m and |A_m| times max_z K[m, z] / e^logS, rounded up and down
	objEta  float64   // relative error bound of the objective's coefficients
	dpiRow0 int       // row of the first data-processing row of the last LP
	eta     []float64 // per output: error bound of lB and lA
	lam, mu []float64
	r       []float64
	cutIdx  []int // row of each cut of the last LP, -1 if dropped
	lps     int
	// onLP, when set (tests), is called after every LP of eval with its
	// round, status and padded bound; w.lp and w.sx hold the LP.
	onLP func(round int, st certStatus, ub float64)
}

func newCertWork(p *certProgram) *certWork {
	return &certWork{p: p, lB: make([]float64, p.M), lA: make([]float64, p.M), eta: make([]float64, p.M),
		eb: make([]float64, p.M), ea: make([]float64, p.M)}
}

// certChord returns log B and log |A| of the chord A + B t of t^alpha on
// [e^lo, e^hi] (A <= 0 <= B),
//
//	B = (b^alpha - a^alpha) / (b - a) = b^(alpha-1) (1 - r^alpha) / (1 - r),
//	|A| = a b (b^(alpha-1) - a^(alpha-1)) / (b - a) = a b^(alpha-1) (1 - r^(alpha-1)) / (1 - r),
//
// r = a/b = e^(lo-hi), each formed in log space with log(1 - e^x) from
// logspace.OneMinusExp (no overflow, no cancellation), and eta, a bound on
// the absolute error of either log: raising log B and lowering log |A| by
// eta keeps A + B t >= t^alpha on the interval for the float64 values. At
// lo = hi the chord is the tangent alpha a^(alpha-1) t - (alpha-1) a^alpha.
func certChord(alpha, lo, hi float64) (lB, lA, eta float64) {
	r := lo - hi
	if r >= 0 {
		lB = math.Log(alpha) + (alpha-1)*hi
		lA = math.Log(alpha-1) + alpha*hi
	} else {
		den := logspace.OneMinusExp(r)
		lB = (alpha-1)*hi + logspace.OneMinusExp(alpha*r) - den
		lA = lo + (alpha-1)*hi + logspace.OneMinusExp((alpha-1)*r) - den
	}
	// The logs carry an absolute error of a few ulps of the largest term,
	// alpha (|lo| + |hi|); 1e-13 plus four times that covers it.
	return lB, lA, 1e-13 + 4e-16*(alpha*(math.Abs(lo)+math.Abs(hi))+8)
}

// objective fills lp.c with the chord bound sum_m (A_m (Ky)_m + B_m (Kx)_m)
// in units of e^logS, rounded up (so c'z over-estimates the exact chord
// bound for every z >= 0), and returns the largest log of a chord term
// B_m max_z K[m, z] / e^logS. When that exceeds certSkipLog, lp.c is not
// written.
func (w *certWork) objective(b *certBox) float64 {
	p := w.p
	n, M, a := p.n, p.M, p.alpha
	big, arg := math.Inf(-1), 0.0
	for m := range M {
		lb, la, eta := certChord(a, b.lo[m], b.hi[m])
		w.lB[m], w.lA[m], w.eta[m] = lb, la, eta
		big = math.Max(big, lb+eta+p.lKmax[m]-p.logS)
		arg = math.Max(arg, math.Max(math.Abs(lb), math.Abs(la))+math.Abs(p.lKmax[m]-p.logS))
	}
	if big > certSkipLog {
		return big
	}
	cx, cy := w.lp.c[:n], w.lp.c[n:2*n]
	clear(cx)
	clear(cy)
	for m := range M {
		// B_m max_z K[m, z] / e^logS rounded up, |A_m| max_z K[m, z] / e^logS down.
		eb := math.Exp(w.lB[m] + w.eta[m] + p.lKmax[m] - p.logS)
		ea := math.Exp(w.lA[m] - w.eta[m] + p.lKmax[m] - p.logS)
		w.eb[m], w.ea[m] = eb, ea
		for z, k := range p.kh[m*n : m*n+n] {
			cx[z] += eb * k
			cy[z] += ea * k
		}
	}
	// Each coefficient is a sum of M products of an exp (relative error
	// about 2 ulps of its argument) and a K ratio (a few ulps of the log K
	// values): eta bounds the relative error of the sum; 1e-300 covers
	// terms that underflowed.
	eta := 1e-13 + 4e-16*(arg+p.lKabs+float64(M))
	for z := range n {
		cx[z] = cx[z]*(1+eta) + 1e-300
		cy[z] = -cy[z] * (1 - eta)
	}
	w.objEta = eta
	return big
}

// build fills w.lp with the LP of box b (objective set by objective).
func (w *certWork) build(b *certBox, cuts []certCut) {
	p := w.p
	n, M := p.n, p.M
	lp := &w.lp
	lp.reset(4*n + len(b.dpi)) // keeps the objective written by objective
	for j := 2 * n; j < 4*n; j++ {
		lp.c[j] = 0
	}
	for j := range lp.lo {
		lp.lo[j], lp.up[j] = 0, 1
	}
	for i, m := range b.dpi {
		// q_m <= chord_m(x, y) <= B_m max_z K[m, z] / e^logS.
		lp.c[4*n+i] = -1
		lp.up[4*n+i] = w.eb[m] * (1 + w.objEta) * (1 + 1e-12)
	}
	// Box rows, each scaled to max |coefficient| = 1, with the ends
	// widened by 1e-12 relative (this absorbs the ~1e-15 relative error of
	// the float64 K entries, so the float rows hold at every exact point).
	for m := range M {
		kh := p.kh[m*n : m*n+n]
		hi := b.hi[m] + 1e-12
		lo := b.lo[m] - 1e-12
		// (Kx)_m - th (Ky)_m <= 0, divided by max(1, th).
		fx, fy := math.Exp(-math.Max(0, hi)), math.Exp(hi-math.Max(0, hi))
		row := lp.row(0)
		for z, k := range kh {
			row[z], row[n+z] = fx*k, -fy*k
		}
		// tl (Ky)_m - (Kx)_m <= 0, divided by max(1, tl).
		fx, fy = math.Exp(-math.Max(0, lo)), math.Exp(lo-math.Max(0, lo))
		row = lp.row(0)
		for z, k := range kh {
			row[z], row[n+z] = -fx*k, fy*k
		}
	}
	for _, s := range p.sym {
		row := lp.row(0)
		row[s[0]], row[s[1]] = 1, -1
	}
	row := lp.row(1)
	for z := range n {
		row[2*n+z] = 1
	}
	row = lp.row(1)
	for z := range n {
		row[3*n+z] = 1
	}
	w.dpiRow0 = len(lp.b)
	for i, m := range b.dpi {
		w.dpiRow(m, 4*n+i)
	}
	w.cutIdx = w.cutIdx[:0]
	for _, ct := range cuts {
		w.cutIdx = append(w.cutIdx, w.cutRow(ct))
	}
	row = lp.eqRow(1)
	for z := range n {
		row[z] = 1
	}
	row = lp.eqRow(1)
	for z := range n {
		row[n+z] = 1
	}
}

// dpiRow appends the output data-processing row of output m with excess
// variable q (column jq),
//
//	chord_m(x, y) - (Ê/S) sum_z K[m, z] s_z - q_m <= 0,
//
// chord_m(x, y) = (B_m (Kx)_m + A_m (Ky)_m)/S with the objective's rounding.
// It holds at every feasible point of the box with s_z = x_z^alpha
// y_z^(1-alpha) / Ê and q_m = max(0, chord_m - (Ê/S) sum_z K[m, z] s_z), and
// there the objective sum_m chord_m - sum q is sum_m min(chord_m, (Ê/S)
// sum_z K[m, z] s_z) >= sum_m u_m^alpha v_m^(1-alpha) / S = F/S: the output's
// term is at most its chord and, by data processing (the perspective is
// jointly convex and u_m, v_m are K-mixtures), at most sum_z K[m, z]
// x_z^alpha y_z^(1-alpha). The row is divided by its largest coefficient.
func (w *certWork) dpiRow(m, jq int) {
	p := w.p
	n := p.n
	eta := w.objEta
	row := w.lp.row(0)
	big := 1.0
	for z, k := range p.kh[m*n : m*n+n] {
		row[z] = w.eb[m] * k * (1 + eta)
		row[n+z] = -w.ea[m] * k * (1 - eta)
		row[2*n+z] = -p.dpiK[m*n+z]
		big = math.Max(big, math.Max(row[z], -row[2*n+z]))
	}
	row[jq] = -1
	for j := range row {
		row[j] /= big
	}
}

// dpiViolated appends to dst the outputs not in have whose data-processing
// row the LP point violates (with q_m = 0), in output order.
func (w *certWork) dpiViolated(have, dst []int) []int {
	p := w.p
	n := p.n
	z := w.sx.z
	for m := range p.M {
		if slices.Contains(have, m) {
			continue
		}
		var v, mag float64
		for c, k := range p.kh[m*n : m*n+n] {
			a, b := w.eb[m]*k*z[c], w.ea[m]*k*z[n+c]
			d := p.dpiK[m*n+c] * z[2*n+c]
			v += a - b - d
			mag += a + b + d
		}
		if v > 1e-9*mag {
			dst = append(dst, m)
		}
	}
	return dst
}

// cutRow appends the tangent cut ct. For any t > 0 and u, v >= 0,
//
//	u^alpha v^(1-alpha) >= alpha t^(alpha-1) u - (alpha-1) t^alpha v
//
// (the tangent of the convex, 1-homogeneous perspective at ratio t), so
// with s_z = x_z^alpha y_z^(1-alpha) / Ê every feasible point satisfies the
// row. The coefficients are formed in log space, the row is divided by
// max(a, b, 1), and each coefficient is rounded outward (a down, b and the
// slack's coefficient up in magnitude) by more than its rounding error.
// Rows that would read only "s_z >= ~0" are dropped. cutRow returns the
// index of the row, or -1 when it was dropped.
func (w *certWork) cutRow(ct certCut) int {
	p := w.p
	n, a := p.n, p.alpha
	la := math.Log(a) + (a-1)*ct.lt - p.logE
	lb := math.Log(a-1) + a*ct.lt - p.logE
	sc := math.Max(0, math.Max(la, lb))
	if sc-la > 700 && sc-lb > 700 {
		return -1
	}
	eta := 1e-13 + 4e-16*(a*math.Abs(ct.lt)+math.Abs(p.logE)+sc+8)
	iu, iv, is := ct.z, n+ct.z, 2*n+ct.z
	if ct.swap {
		iu, iv, is = n+ct.z, ct.z, 3*n+ct.z
	}
	row := w.lp.row(0)
	row[iu] = math.Exp(la-sc) * (1 - eta)
	row[iv] = -math.Exp(lb-sc) * (1 + eta)
	row[is] = -math.Exp(-sc) * (1 + eta)
	return len(w.lp.b) - 1
}

// certCutTol is the violation (in units of Ê) above which a tangent cut is
// added at an LP point.
const certCutTol = 1e-11

// certMaxIter caps the dual simplex iterations of one box (measured at
// d = 2, k <= 3 and d = 3, k = 1: 20 to 60 on average over a box's rounds,
// at most 180).
const certMaxIter = 5000

// certRounds is the number of LP solves per box: cuts are added at the
// LP optimum's ratios between them. math.md suggests up to ~6; measured,
// 3 needs at most 5% more boxes than 6 with 40% fewer LPs and 25-40% less
// time, 2 is about as fast as 3, and 1 stalls (d = 2, k = 1, c = 0.01,
// alpha = 5, eps = 0.5).
const certRounds = 3

// certSkipLog: when an objective coefficient exceeds e^certSkipLog (in
// units of the closing level) the LP is not built (its coefficients would
// overflow and its padded bound could not close anything); the box keeps
// its parent's bound and is split by wideSplit.
const certSkipLog = 600

// eval bounds box b, whose parent's bound is parent (log F), setting
// b.bound, b.split and the cuts the children inherit. close is the closing
// level of log F; the search stops improving a box once it is reached.
//
// Up to certRounds LPs are solved: after each, tangent cuts at the
// optimum's ratios are appended and the dual simplex continues from the
// optimal basis (still dual feasible). Every bound is the padded
// weak-duality bound of the multipliers, so the box's bound is the
// smallest of them, of the parent's and of Ê. An LP the solver calls
// infeasible prunes the box only when its Farkas ray proves it; an LP that
// fails with inherited cuts is retried once without them.
func (w *certWork) eval(b *certBox, parent, close float64) {
	p := w.p
	n := p.n
	b.bound = math.Min(parent, p.logE)
	w.lp.c = certGrow(w.lp.c, 4*n+len(b.dpi))
	w.r = certGrow(w.r, 2*(4*n+len(b.dpi)))
	if w.objective(b) > certSkipLog {
		b.split = w.wideSplit(b)
		return
	}
	// The objective is in units of e^logS: the box closes at bound
	// exp(close - logS); the dual value is checked against it (less a
	// margin for the padding) while iterating.
	closeLP := math.Exp(close - p.logS)
	stop := closeLP * (1 - 1e-9)
	cuts := b.cuts
	w.build(b, cuts)
	w.sx.start(&w.lp)
	retried, solved := false, false
	for round := 0; round < certRounds; {
		st := w.sx.run(&w.lp, stop, certMaxIter)
		mi, me := len(w.lp.b), len(w.lp.beq)
		w.lam = certGrow(w.lam, mi)
		w.mu = certGrow(w.mu, me)
		if st == certStopped {
			w.sx.duals(w.lam, w.mu)
			if ub := w.lp.dualBound(w.lam, w.mu, w.r); ub <= closeLP {
				w.lps++
				if ub <= 0 { // see below
					b.bound = math.Inf(-1)
					return
				}
				b.bound = math.Min(b.bound, p.logS+math.Log(ub))
				break
			}
			st = w.sx.run(&w.lp, math.Inf(-1), certMaxIter)
		}
		w.lps++
		proved := false
		if st == certInfeasible {
			w.sx.rayDuals(w.lam, w.mu)
			proved = w.lp.farkas(w.lam, w.mu, w.r)
		}
		var ub float64
		if proved {
			ub = 0
		} else {
			w.sx.duals(w.lam, w.mu)
			ub = w.lp.dualBound(w.lam, w.mu, w.r)
		}
		if w.onLP != nil {
			w.onLP(round, st, ub)
		}
		if ub <= 0 {
			// Proved empty, or F <= 0 on the box: F >= 1 at every pair of
			// probability vectors (Jensen), so the box holds no feasible
			// point.
			b.bound = math.Inf(-1)
			return
		}
		b.bound = math.Min(b.bound, p.logS+math.Log(ub))
		if b.bound <= close {
			break
		}
		if st == certInfeasible || st == certIterLimit {
			if retried || len(cuts) == 0 {
				break
			}
			// Retry once without the inherited cuts.
			retried, cuts = true, nil
			w.build(b, cuts)
			w.sx.start(&w.lp)
			continue
		}
		solved = true
		round++
		if round == certRounds {
			break
		}
		added := w.violated(cuts, nil)
		if len(added) == 0 {
			break
		}
		for _, ct := range added {
			w.cutIdx = append(w.cutIdx, w.cutRow(ct))
		}
		cuts = append(cuts[:len(cuts):len(cuts)], added...)
		w.sx.extend(&w.lp)
	}
	if math.IsNaN(b.bound) { // never expected: fall back to the parent's bound
		b.bound = math.Min(parent, p.logE)
	}
	if b.bound <= close {
		b.cuts = nil
		return
	}
	if !solved {
		b.split = w.wideSplit(b)
		b.cuts = cuts
		return
	}
	b.split = w.gapSplit(b)
	// Children inherit the cuts active at the last optimum and the cuts
	// that optimum violates.
	var keep []certCut
	for i, ct := range cuts {
		if r := w.cutIdx[i]; r >= 0 && w.lam[r] > 0 {
			keep = append(keep, ct)
		}
	}
	b.cuts = w.violated(keep, keep)
	// and the data-processing rows active there or violated by it.
	var dpi []int
	for i, m := range b.dpi {
		if w.lam[w.dpiRow0+i] > 0 {
			dpi = append(dpi, m)
		}
	}
	b.dpi = w.dpiViolated(b.dpi, dpi)
	slices.Sort(b.dpi)
}

// violated appends to dst the cuts at the LP point's ratios x_z / y_z (and
// y_z / x_z) whose constraint term exceeds its slack there.
func (w *certWork) violated(have []certCut, dst []certCut) []certCut {
	p := w.p
	n, a := p.n, p.alpha
	z := w.sx.z
	for c := range n {
		x, y := math.Max(z[c], 0), math.Max(z[n+c], 0)
		for _, sw := range [2]bool{false, true} {
			u, v, s := x, y, z[2*n+c]
			if sw {
				u, v, s = y, x, z[3*n+c]
			}
			if u <= 1e-12 {
				continue
			}
			lu, lv := math.Log(u), math.Log(v)
			// The cut is worth adding when the term exceeds the slack by
			// more than the LP's feasibility tolerance.
			if term := math.Exp(a*lu + (1-a)*lv - p.logE); !(term-s > certCutTol*(1+math.Abs(s))) {
				continue
			}
			// Cut at the point's ratio (the most violated tangent) and,
			// when that ratio lies beyond the boundary, also at the
			// boundary ratio for this mass, (Ê/u)^(1/(alpha-1)) (the
			// whole budget on this corner) and between the two: for large
			// alpha a tangent far outside the feasible set is nearly
			// homogeneous and only cuts the ratio by a factor alpha/(alpha-1).
			lt0 := lu - lv
			lt1 := (p.logE - lu) / (a - 1)
			lts := [3]float64{lt0, math.NaN(), math.NaN()}
			if lt1 < lt0-1e-3 {
				lts[1], lts[2] = lt1, (lt0+lt1)/2
			}
			for _, lt := range lts {
				if math.IsNaN(lt) {
					continue
				}
				lt = math.Max(-certCutMax, math.Min(certCutMax, lt))
				dup := false
				for _, h := range have {
					if h.z == c && h.swap == sw && math.Abs(h.lt-lt) < 1e-9 {
						dup = true
						break
					}
				}
				for _, h := range dst {
					if h.z == c && h.swap == sw && math.Abs(h.lt-lt) < 1e-9 {
						dup = true
						break
					}
				}
				if !dup {
					dst = append(dst, certCut{z: c, swap: sw, lt: lt})
				}
			}
		}
	}
	return dst
}

// gapSplit returns the output whose bound is loosest at the LP point:
// v_m (A_m + B_m t_m - t_m^alpha) less (1 - certGapKeep) q_m, q_m the part
// of the chord its data-processing row removed (splitting the ratio cannot
// shrink what is left of a term the row bounds), or wideSplit's choice when
// no chord is loose there by more than the cancellation in that difference.
func (w *certWork) gapSplit(b *certBox) int {
	p := w.p
	n, a := p.n, p.alpha
	z := w.sx.z
	best, arg := 0.0, -1
	for m := range p.M {
		var u, v float64
		kh := p.kh[m*n : m*n+n]
		for c, k := range kh {
			u += k * math.Max(z[c], 0)
			v += k * math.Max(z[n+c], 0)
		}
		if !(v > 0) || !(u > 0) || b.hi[m]-b.lo[m] < certMinWidth {
			continue
		}
		lu, lv := math.Log(u)+p.lKmax[m]-p.logS, math.Log(v)+p.lKmax[m]-p.logS
		// All three terms in units of e^logS.
		cb := math.Exp(w.lB[m] + lu)
		g := cb - math.Exp(w.lA[m]+lv) - math.Exp(a*lu+(1-a)*lv)
		if i := slices.Index(b.dpi, m); i >= 0 {
			g -= (1 - certGapKeep) * z[4*n+i] // the data-processing row cut the chord by q_m
		}
		if g > best && g > 1e-12*cb {
			best, arg = g, m
		}
	}
	if arg < 0 {
		return w.wideSplit(b)
	}
	return arg
}

// certGapKeep is the share of an output's chord gap that gapSplit keeps
// when the output's data-processing row removes all of it: the chord is
// still what splitting the ratio shrinks, and an output whose row nearly
// cancels its gap must not be starved of splits (with the whole q_m
// subtracted, d = 2, k = 4, c = 0.1, alpha = 5, eps = 1 stalled at 10^6
// boxes; with 3% kept it certifies in 31k boxes; keeping 10% or 20% cost
// 7-50% more boxes at d = 2, k <= 3 and d = 3).
const certGapKeep = 0.03

// certMinWidth is the log-width below which a ratio is split only when no
// other is wider: the chord error of such a ratio is below 1e-16 relative.
const certMinWidth = 1e-9

// wideSplit picks the ratio with the largest chord coefficients, B_m + |A_m|
// times the mass sum_z K[m, z]: the ratio that dominates the magnitudes in
// the LP's padding and that most limits the chord bound far from the LP
// point. Ratios narrower than certMinWidth are split only if all are.
func (w *certWork) wideSplit(b *certBox) int {
	p := w.p
	arg, best := -1, math.Inf(-1)
	for m := range p.M {
		if b.hi[m]-b.lo[m] < certMinWidth {
			continue
		}
		if s := logspace.Add(w.lB[m], w.lA[m]) + p.lKsum[m]; s > best {
			arg, best = m, s
		}
	}
	if arg < 0 {
		return widest(b)
	}
	return arg
}

func widest(b *certBox) int {
	arg := 0
	for m := range b.lo {
		if b.hi[m]-b.lo[m] > b.hi[arg]-b.lo[arg] {
			arg = m
		}
	}
	return arg
}

// children splits b at the geometric midpoint of ratio b.split. The two
// boxes share the midpoint, so they cover b exactly.
func (b *certBox) children() [2]*certBox {
	m := b.split
	mid := b.lo[m] + (b.hi[m]-b.lo[m])/2
	var ch [2]*certBox
	M := len(b.lo)
	for i := range ch {
		lohi := make([]float64, 2*M)
		c := &certBox{lo: lohi[:M:M], hi: lohi[M:], cuts: b.cuts, dpi: b.dpi}
		copy(c.lo, b.lo)
		copy(c.hi, b.hi)
		if i == 0 {
			c.hi[m] = mid
		} else {
			c.lo[m] = mid
		}
		ch[i] = c
	}
	return ch
}
