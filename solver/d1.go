package solver

import (
	"container/heap"
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/bernamp/bernamp/bounds"
	"github.com/bernamp/bernamp/check"
	"github.com/bernamp/bernamp/internal/floatbits"
	"github.com/bernamp/bernamp/internal/logspace"
)

// MethodClosedForm and MethodPolygonBB name the proofs of Upper for d = 1.
const (
	MethodClosedForm = "closed-form" // LB and min(eps, d k r_alpha(c)) already within Tol
	MethodPolygonBB  = "polygon-b&b" // 2-D branch and bound, tangent-cut polygons
)

// Padding of the rounding model (docs/certificates.md): the final bound is
// raised by relPad relative plus absPad nats to cover the float64 error of
// evaluating log F at a polygon vertex (a log-sum-exp of k+1 terms, each a
// few ulps).
const (
	relPad = 1e-12
	absPad = 1e-15
)

// One solves the d = 1 program of Algorithm 1 for k samples:
//
//	Post = log max F(x, y) / (alpha-1),   F = sum_{m=0..k} u_m^alpha v_m^(1-alpha),
//	u_m = x b(m) + (1-x) b(k-m),  v_m = y b(m) + (1-y) b(k-m),  b = Binomial(k, c) pmf,
//	subject to  g(x, y) <= E,  g(y, x) <= E,  E = exp((alpha-1) eps),
//	g(x, y) = x^alpha y^(1-alpha) + (1-x)^alpha (1-y)^(1-alpha),
//
// where x and y are the masses P and Q put on the corner theta = c. It
// returns a verified witness and an upper bound proved by branch and bound
// (see MethodPolygonBB in docs/certificates.md), Certified when they are
// within Settings.Tol. A cancelled ctx or the box limit ends the search
// early with Status Witness and the bound proved so far.
func One(ctx context.Context, k int, c, alpha, eps float64, s *Settings) (*Result, error) {
	pt, err := check.NewValidPoint(1, k, c, alpha, eps)
	if err != nil {
		return nil, fmt.Errorf("solver.One: %w: %w", ErrInput, err)
	}
	if s != nil && !(s.Tol >= 0) {
		return nil, fmt.Errorf("solver.One: %w: tol is %v, must be >= 0", ErrInput, s.Tol)
	}
	return solveOne(ctx, pt, s)
}

// solveOne is One at the point pt (pt.D() is 1); s.Tol is >= 0.
func solveOne(ctx context.Context, pt check.ValidPoint, s *Settings) (*Result, error) {
	k, c, alpha, eps := pt.K(), pt.C(), pt.Alpha(), pt.Eps()
	if k > OneMaxK {
		return nil, fmt.Errorf("solver.One: %w: k = %d, more than %d", ErrTooLarge, k, OneMaxK)
	}
	start := time.Now()
	tol := s.tol()
	ub := bounds.UpperAt(pt).Value()
	if NearOne(alpha, tol) {
		return nearOne(&Result{Upper: ub, Method: MethodClosedForm}, pt, tol, start), nil
	}
	p := newOne(k, c, alpha, eps)

	// The Theorem 4 pair in the (xb, y) chart is (p, p).
	pp := bounds.PAt(pt)
	res := &Result{Upper: ub, Method: MethodClosedForm}
	best := point{pp, pp}
	// bestLog is on the low side of log F at the witness (f - e), so that
	// Lower is the value of a feasible point rounded down.
	f, e := p.logF(pp, pp)
	bestLog := f - e
	if lb := lowerLB(bounds.LowerAt(pt)); lb*(alpha-1) > bestLog {
		bestLog = lb * (alpha - 1)
	}
	finish := func() (*Result, error) {
		res.Lower = math.Min(bestLog/(alpha-1)*(1-4*u), res.Upper)
		res.Corners = []string{"0", "1"}
		res.P = []float64{1 - best.xb, best.xb}
		res.Q = []float64{best.y, 1 - best.y}
		res.DivPQ = p.logG1(best.xb, best.y) / (alpha - 1)
		res.DivQP = p.logG2(best.xb, best.y) / (alpha - 1)
		res.Status = Witness
		if res.Upper-res.Lower <= tol {
			res.Status = Certified
		}
		res.Stats.Evals = p.evals
		res.Stats.Runtime = time.Since(start)
		return res, nil
	}
	if ub-bestLog/(alpha-1) <= tol || eps == 0 {
		res.Stats.Complete = true
		return finish()
	}
	if NearOne(alpha, tol) {
		return nearOne(res, pt, tol, start), nil
	}

	res.Method = MethodPolygonBB
	// Close when the padded bound (see relPad) is within tol of the
	// witness: top/(a-1) (1+relPad) + absPad - best/(a-1) <= tol.
	target := func() float64 { return (bestLog + (alpha-1)*(tol-absPad)) / (1 + relPad) }
	// The boxes carry their cuts: OneBoxBytes each at most, by estimate.
	maxBoxes := int(min(int64(s.maxBoxes()), s.maxMemory()/OneBoxBytes))
	var q boxHeap
	// The Theorem 4 pair sits where both constraints are active (a kink of
	// the feasible set); tangent cuts there give its exact cone, which every
	// box inherits.
	rootBox := &box{x0: 0, x1: 1, y0: 0, y1: 1, cuts: []cut{p.tangent(1, pp, pp), p.tangent(2, pp, pp)}}
	root := p.bound(rootBox, &best, &bestLog)
	heap.Push(&q, root)
	res.Stats.Boxes = 1
	for q.Len() > 0 && q[0].bound > target() {
		if res.Stats.Boxes >= maxBoxes || ctx.Err() != nil {
			break
		}
		b := heap.Pop(&q).(*box)
		for _, ch := range b.split() {
			p.bound(ch, &best, &bestLog)
			res.Stats.Boxes++
			if !math.IsInf(ch.bound, -1) {
				heap.Push(&q, ch)
			}
		}
	}
	topLog := bestLog
	if q.Len() > 0 && q[0].bound > topLog {
		topLog = q[0].bound
	}
	for _, b := range q {
		if b.bound > target() {
			res.Stats.Open++
		}
	}
	res.Stats.Complete = res.Stats.Open == 0
	res.Stats.Cuts = p.cuts
	if res.Stats.Open > 0 {
		res.Stats.OpenBound = q[0].bound / (alpha - 1)
	}
	u := topLog/(alpha-1)*(1+relPad) + absPad
	res.Upper = math.Min(res.Upper, u)
	return finish()
}

// OneBoxBytes is an upper estimate of the memory one box of One's branch
// and bound holds (the box, its share of the heap and up to 16 inherited and
// new cuts of 40 bytes, with slice growth): One stops at Settings.MaxMemory
// / OneBoxBytes boxes. OneMaxK is the largest k One accepts: each
// evaluation of F costs k+1 terms, and the branch and bound needs up to
// millions of them.
const (
	OneBoxBytes = 4096
	OneMaxK     = 100_000
)

// nearOne completes res with the closed forms where NearOne(alpha, tol):
// Lower is the Theorem 4 bound (bounds.Lower, accurate to a few ulps
// relative at any alpha > 1) with its pair as the witness, Upper stays the
// closed form min(eps, d k r_alpha(c)), and Status is Bounds (Certified when
// they are within tol). No search runs: its float64 evaluations of (alpha-1)
// R_alpha cannot resolve tol there.
func nearOne(res *Result, pt check.ValidPoint, tol float64, start time.Time) *Result {
	res.Lower = math.Min(lowerLB(bounds.LowerAt(pt)), res.Upper)
	// Where p* underflows, the exact pair has r_alpha(p*) <= eps (PairAt).
	pp, div := bounds.PairAt(pt)
	res.Corners = []string{ConstCorner(0, pt.D()), ConstCorner(1, pt.D())}
	res.P, res.Q = []float64{pp, 1 - pp}, []float64{1 - pp, pp}
	res.DivPQ, res.DivQP = div, div
	res.Method = MethodClosedForm
	res.Status = Bounds
	if res.Upper-res.Lower <= tol {
		res.Status = Certified
	}
	res.Stats.Complete = res.Status == Certified
	res.Stats.Runtime = time.Since(start)
	return res
}

// lbPad is the relative amount by which One and nearOne lower the Theorem 4
// bound (bounds.Lower, documented accurate to a few ulps relative; measured
// within 10 ulps, 2e-15, of 60-digit references near alpha = 1,
// one_near_one.csv) before reporting it as Lower, so that Lower stays below
// the true LB; 8e-15 keeps Lower within 1e-14 of LB.
const lbPad = 8e-15

func lowerLB(lb float64) float64 { return lb * (1 - lbPad) }

// MaxCornerName is the largest d whose constant corners ConstCorner
// spells out bit by bit.
const MaxCornerName = 4096

// ConstCorner names the corner whose d bits all equal bit (0 or 1): the
// bit string, as corner.Name writes it, for d <= MaxCornerName, and
// "0^d" or "1^d" beyond, where the string would take d bytes (10^12 at the
// largest d the closed forms accept).
func ConstCorner(bit, d int) string {
	if d > MaxCornerName {
		return fmt.Sprintf("%d^%d", bit, d)
	}
	return strings.Repeat(strconv.Itoa(bit), d)
}

// one holds the d = 1 program in the chart (xb, y), xb = 1 - x: P = (1-xb,
// xb) and Q = (y, 1-y) on the corners (c, 1-c). Swapping the corners maps
// the program to itself, so the search keeps x >= y, that is xb + y <= 1,
// where the optimum sits near the origin and float64 keeps its precision.
type one struct {
	k     int
	a     float64 // alpha
	logE  float64 // (alpha-1) eps
	lb    []float64
	terms []float64
	errs  []float64 // scratch: the error bounds e_m of the terms (logF)
	fs    []float64 // scratch: log F at polygon vertices, high side
	es    []float64 // scratch: their error bounds
	evals int
	cuts  int
}

func newOne(k int, c, alpha, eps float64) *one {
	p := &one{k: k, a: alpha, logE: (alpha - 1) * eps, lb: make([]float64, k+1), terms: make([]float64, k+1), errs: make([]float64, k+1)}
	for m := range p.lb {
		p.lb[m] = logspace.BinomPMF(m, k, c, 1-c)
	}
	return p
}

type point struct{ xb, y float64 }

// logs returns log x, log xb, log y, log(1-y).
func logs(xb, y float64) (lx, lxb, ly, l1y float64) {
	return math.Log1p(-xb), math.Log(xb), math.Log(y), math.Log1p(-y)
}

// u is the unit roundoff of float64, 2^-53: a correctly rounded operation
// (and Go's log, log1p and exp, within 1 ulp) errs by at most 2u relative.
const u = 0x1p-53

// logF returns log F at (xb, y) as computed in float64, and e >= 0, a bound
// on its absolute error (the true log F is within [f - e, f + e]), from the
// rounding model of docs/certificates.md ("d = 1"):
//
//   - log x, log xb, log y, log(1-y): 1 ulp, at most 2u |.|;
//   - lb[m] (logspace.BinomPMF): a few ulps of its size, taken as 16u (|lb| + 1);
//   - lu = log(x b(m) + xb b(k-m)) by logspace.Add, 1-Lipschitz in its inputs
//     plus 4u (|lu| + 1) of its own; the same for lv; so
//     |err lu| <= 20u S_u,  S_u = |log x| + |log xb| + |lb[m]| + |lb[k-m]| + |lu| + 4;
//   - t_m = a lu + (1-a) lv: |err t_m| <= e_m = 20u (a S_u + (a-1) S_v) + u |t_m|;
//   - log-sum-exp, M = max t_m, s = sum exp(t_m - M): the term errors move the
//     result by at most log sum w_m e^(e_m) <= sum w_m e_m (1 + e_m), w_m the
//     weights exp(t_m - M)/s (doubled below for their own rounding and the
//     e_m^2 term, e_m < 1e-6 always); the exps, the sum of k+1 terms and the
//     final log and add err by (k + 4) u + u (|t_m - M| weighted, |log s|, |M|, |f|).
//
// That error is about 1e-15 to 1e-14 absolute: small in log F, but One
// divides log F by alpha - 1, so at alpha = 1.01 it is 1e-12 nats, more than
// the relative padding (relPad) covers at a small Post. Components that are
// -Inf (a zero mass) contribute exactly 0 and are skipped.
func (p *one) logF(xb, y float64) (f, e float64) {
	p.evals++
	lx, lxb, ly, l1y := logs(xb, y)
	ax, ay := fin(lx)+fin(lxb), fin(ly)+fin(l1y)
	mx := math.Inf(-1)
	for m := 0; m <= p.k; m++ {
		lu := logspace.Add(lx+p.lb[m], lxb+p.lb[p.k-m])
		lv := logspace.Add(ly+p.lb[m], l1y+p.lb[p.k-m])
		t := p.a*lu + (1-p.a)*lv
		p.terms[m] = t
		lbs := fin(p.lb[m]) + fin(p.lb[p.k-m])
		su := ax + lbs + fin(lu) + 4
		sv := ay + lbs + fin(lv) + 4
		p.errs[m] = 20*u*(p.a*su+(p.a-1)*sv) + u*fin(t)
		mx = max(mx, t)
	}
	if math.IsInf(mx, 0) {
		return mx, 0 // every term is 0 (never at a point of the square), or F = +Inf
	}
	var s, we float64
	for m, t := range p.terms {
		if w := math.Exp(t - mx); w > 0 {
			s += w
			we += w * (p.errs[m] + u*(mx-t))
		}
	}
	f = mx + math.Log(s)
	e = 2*we/s + u*(float64(p.k+4)+math.Abs(math.Log(s))+math.Abs(mx)+math.Abs(f))
	return f, e
}

// fin returns |x| for finite x and 0 for +-Inf (a term that is exactly 0 or
// whose rounding does not matter).
func fin(x float64) float64 {
	if math.IsInf(x, 0) {
		return 0
	}
	return math.Abs(x)
}

// powTerm returns log(u^a v^(1-a)) from log u and log v, with 0^a v^(1-a) = 0
// and u^a 0^(1-a) = +Inf for u > 0.
func powTerm(a, lu, lv float64) float64 {
	if math.IsInf(lu, -1) {
		return lu
	}
	if math.IsInf(lv, -1) {
		return math.Inf(1)
	}
	return a*lu + (1-a)*lv
}

// logG1 and logG2 return (alpha-1) R_alpha(P||Q) and (alpha-1) R_alpha(Q||P).
func (p *one) logG1(xb, y float64) float64 {
	lx, lxb, ly, l1y := logs(xb, y)
	return logspace.Add(powTerm(p.a, lx, ly), powTerm(p.a, lxb, l1y))
}

func (p *one) logG2(xb, y float64) float64 {
	lx, lxb, ly, l1y := logs(xb, y)
	return logspace.Add(powTerm(p.a, ly, lx), powTerm(p.a, l1y, lxb))
}

func (p *one) feasible(xb, y float64) bool {
	return p.logG1(xb, y) <= p.logE && p.logG2(xb, y) <= p.logE
}

// cut is a linear inequality w . (x, xb, y, 1-y) <= rhs valid for every
// feasible point (the basis functions are nonnegative on the square, which
// keeps the rounding of each product one-sided and small).
type cut struct {
	w   [4]float64
	rhs float64
}

func (ct *cut) slack(xb, y float64) (val, scale float64) {
	e := [4]float64{1 - xb, xb, y, 1 - y}
	for i, w := range ct.w {
		val += w * e[i]
		scale += math.Abs(w * e[i])
	}
	return val - ct.rhs, scale + math.Abs(ct.rhs)
}

// tangent returns the cut that the tangent planes of the two terms of a
// constraint at the point give. Each term u^a v^(1-a) (a > 1) is convex and
// 1-homogeneous, so for every tau > 0
//
//	u^a v^(1-a) >= a tau^(a-1) u - (a-1) tau^a v,
//
// and summing over both terms and dividing by E gives a valid cut for any
// tau; tau = u/v at the point makes it tight there. The coefficients are
// formed in log space (no overflow) and rounded outward by more than the
// error of that formation, so the float64 cut is implied by the exact one
// for the tau actually used.
func (p *one) tangent(constraint int, xb, y float64) cut {
	lx, lxb, ly, l1y := logs(xb, y)
	// (u, v) basis indices into (x, xb, y, 1-y) and their logs.
	type term struct {
		ui, vi int
		lu, lv float64
	}
	terms := [2]term{{0, 2, lx, ly}, {1, 3, lxb, l1y}}
	if constraint == 2 {
		terms = [2]term{{2, 0, ly, lx}, {3, 1, l1y, lxb}}
	}
	var ct cut
	a := p.a
	for _, t := range terms {
		if math.IsInf(t.lu, -1) {
			continue // u = 0: the term's tangent at tau = 0 is 0
		}
		lt := t.lu - t.lv
		la := math.Log(a) + (a-1)*lt - p.logE
		lb := math.Log(a-1) + a*lt - p.logE
		err := 4e-16 * (a*math.Abs(lt) + math.Abs(p.logE) + 8)
		ct.w[t.ui] += math.Exp(la) * (1 - err)
		ct.w[t.vi] -= math.Exp(lb) * (1 + err)
	}
	// E_true / exp(logE) <= 1 + the rounding of logE.
	ct.rhs = 1 + 4e-16*(math.Abs(p.logE)+1)
	p.cuts++
	return ct
}

// project returns the feasible point nearest to v along the ray v + lambda
// (1, 1) toward the diagonal xb + y = 1 (every diagonal point, P = Q, is
// feasible), by bisection on the float64 bits of lambda, which keeps the
// relative precision of tiny coordinates.
func (p *one) project(v point) (pt point, ok bool) {
	delta := (1 - v.xb - v.y) / 2
	if !(delta > 0) {
		return v, false
	}
	at := func(l float64) point { return point{v.xb + l*delta, v.y + l*delta} }
	feasible := func(l float64) bool { q := at(l); return p.feasible(q.xb, q.y) }
	if !feasible(1) || feasible(0) {
		return v, false
	}
	_, l := floatbits.Bisect(0, 1, feasible)
	return at(l), true
}

type box struct {
	x0, x1, y0, y1 float64
	cuts           []cut
	bound          float64 // log F bound, -Inf when the box holds no feasible point
}

func (b *box) split() [2]*box {
	l, r := *b, *b
	// Children inherit only the cuts that bind somewhere in this box: a cut
	// that holds at the 4 corners holds on the whole box (it is linear in
	// (xb, y)).
	var keep []cut
	for i := range b.cuts {
		ct := &b.cuts[i]
		for _, v := range [4]point{{b.x0, b.y0}, {b.x1, b.y0}, {b.x1, b.y1}, {b.x0, b.y1}} {
			if s, _ := ct.slack(v.xb, v.y); s > 0 {
				keep = append(keep, *ct)
				break
			}
		}
	}
	l.cuts = keep[:len(keep):len(keep)] // children append to copies
	r.cuts = l.cuts
	if b.x1-b.x0 >= b.y1-b.y0 {
		m := b.x0 + (b.x1-b.x0)/2
		l.x1, r.x0 = m, m
	} else {
		m := b.y0 + (b.y1-b.y0)/2
		l.y1, r.y0 = m, m
	}
	return [2]*box{&l, &r}
}

// maxRounds is the number of cut-and-clip rounds per box: each round cuts
// at the projection of the polygon's best vertex; measured, more rounds
// cost more than the extra splits they save.
const maxRounds = 4

// bound sets b.bound to an upper bound on log F over the feasible points of
// b with xb + y <= 1: F is convex, so its maximum over the polygon cut out of
// the box by valid linear inequalities is at a vertex. Feasible points met
// on the way improve the witness.
func (p *one) bound(b *box, best *point, bestLog *float64) *box {
	for round := 0; ; round++ {
		poly := []point{{b.x0, b.y0}, {b.x1, b.y0}, {b.x1, b.y1}, {b.x0, b.y1}}
		poly = clip(poly, &cut{w: [4]float64{-1, 0, 1, 0}, rhs: 0}) // xb + y <= 1
		for i := range b.cuts {
			poly = clip(poly, &b.cuts[i])
		}
		if len(poly) == 0 {
			b.bound = math.Inf(-1)
			return b
		}
		// The polygon holds every feasible point of the box: shrink the box
		// to its bounding box, so later splits work where the feasible
		// points are (near the origin, at scale e^-eps, for large eps).
		x0, x1, y0, y1 := poly[0].xb, poly[0].xb, poly[0].y, poly[0].y
		for _, v := range poly[1:] {
			x0, x1 = math.Min(x0, v.xb), math.Max(x1, v.xb)
			y0, y1 = math.Min(y0, v.y), math.Max(y1, v.y)
		}
		b.x0, b.x1 = math.Max(b.x0, x0), math.Min(b.x1, x1)
		b.y0, b.y1 = math.Max(b.y0, y0), math.Min(b.y1, y1)
		// The two best vertices: the top one bounds the box, and cutting at
		// the projections of both (when infeasible) tightens the polygon
		// on both sides of its best corner.
		top, second := -1, -1
		fs, es := p.fs[:0], p.es[:0]
		for i, v := range poly {
			f, e := p.logF(v.xb, v.y)
			fs = append(fs, f+e) // the high side: the box bound
			es = append(es, e)
			switch {
			case top < 0 || fs[i] > fs[top]:
				top, second = i, top
			case second < 0 || fs[i] > fs[second]:
				second = i
			}
		}
		p.fs, p.es = fs, es
		topLog := fs[top]
		b.bound = math.Min(topLog, p.logE)
		if p.feasible(poly[top].xb, poly[top].y) {
			p.offer(poly[top], topLog-2*es[top], best, bestLog)
			return b
		}
		if round == maxRounds {
			return b
		}
		cutAny := false
		for _, i := range [2]int{top, second} {
			if i < 0 || (i == second && p.feasible(poly[i].xb, poly[i].y)) {
				continue
			}
			q, ok := p.project(poly[i])
			if !ok {
				continue
			}
			cutAny = true
			f, e := p.logF(q.xb, q.y)
			p.offer(q, f-e, best, bestLog)
			for c := 1; c <= 2; c++ {
				b.cuts = append(b.cuts, p.tangent(c, q.xb, q.y))
			}
		}
		if !cutAny {
			return b
		}
	}
}

func (p *one) offer(v point, f float64, best *point, bestLog *float64) {
	if f > *bestLog {
		*best, *bestLog = v, f
	}
}

// clip returns the part of the convex polygon poly where ct holds
// (Sutherland-Hodgman against one half-plane). A vertex counts as inside
// when its slack is within 1e-13 of the magnitude of the terms summed, so
// float64 rounding never removes a feasible point.
func clip(poly []point, ct *cut) []point {
	if len(poly) == 0 {
		return poly
	}
	out := make([]point, 0, len(poly)+1)
	sl := make([]float64, len(poly))
	allIn := true
	for i, v := range poly {
		s, scale := ct.slack(v.xb, v.y)
		if s <= 1e-13*scale {
			s = math.Min(s, 0)
		} else {
			allIn = false
		}
		sl[i] = s
	}
	if allIn {
		return poly
	}
	for i, v := range poly {
		j := (i + 1) % len(poly)
		w := poly[j]
		if sl[i] <= 0 {
			out = append(out, v)
		}
		if (sl[i] <= 0) != (sl[j] <= 0) && sl[i] != sl[j] {
			t := sl[i] / (sl[i] - sl[j])
			out = append(out, point{v.xb + t*(w.xb-v.xb), v.y + t*(w.y-v.y)})
		}
	}
	return out
}

type boxHeap []*box

func (h boxHeap) Len() int           { return len(h) }
func (h boxHeap) Less(i, j int) bool { return h[i].bound > h[j].bound }
func (h boxHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *boxHeap) Push(x any)        { *h = append(*h, x.(*box)) }
func (h *boxHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
