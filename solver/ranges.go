package solver

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/bernamp/bernamp/bounds"
	"github.com/bernamp/bernamp/corner"
)

// MethodRangeSearch names the witness search of MaximizeRanges; its Upper is
// the closed-form bound min(eps, U_inf) of bounds.RangeUpperBound.
const MethodRangeSearch = "closed-form (witness: support search over range corners)"

// MaxRangeDim is the largest dimension MaximizeRanges searches, and
// MaxRangeWork the largest number of output evaluations its search may be
// estimated to need (rangeSearch.work: each support's outputs times the
// objective evaluations of its screening, the deep searches on the largest
// supports and the final polishes). Without the flip symmetry of [c, 1-c]^d
// every support of 4 of the 2^d corners is its own program: C(2^d, 4) of
// them (70 at d = 3, 1820 at d = 4, 35960 at d = 5, 635376 at d = 6), fewer
// when coordinates share a range (permuting them is a symmetry). Measured
// on 2 shared cores (estimate in parentheses): d = 3 with distinct ranges
// 0.3 s at k = 1 (3e6), 1.3 s at k = 4 (5e7); d = 4 with distinct ranges
// 4.5 s at k = 1 (8e7), 11 s at k = 2 (4e8); d = 5 with two distinct ranges
// 12 s at k = 1 (3.5e8); d = 1 2.7 s at k = 10^4 (3e8); d = 2 6.5 s at k =
// 100 (3e8), while k = 300 (3e9, one support searched by one worker) took
// 59 s and is over the cap, as is d = 5 with distinct ranges (3e9).
const (
	MaxRangeDim  = 5
	MaxRangeWork = 5e8
)

// MaximizeRanges returns a verified witness for the amplified level when
// theta_l ranges over [Lo_l, Hi_l] (the paper's Lemma 1 allows any product of
// intervals: an optimal pair lives on the corners prod_l {Lo_l, Hi_l}). It is
// Maximize without the symmetry reduction: for each support of at most 4
// corners, a local search over the masses on the support's reduced program,
// whose outputs are the counts of ones per group of coordinates sharing a
// range and a bit pattern across the 4 points. Supports are the 4-subsets
// of the 2^d corners (d = 1: both corners, each carried by two points), one
// per orbit of permutations of coordinates with equal ranges. The local
// search is Maximize's (vertexSearch and patternSearch over the per-point
// ratios) from the Theorem 4 masses on the pairs of points farthest apart,
// in both orientations; the supports searched deeply, the Theorem 4 pair
// itself and the final best are then polished by a boundary-following
// search in mass space (polish), which the asymmetric optima need: the
// masses (p, 1-p) of the Theorem 4 pair are then often not the best on its
// corners.
//
// Lower is the best of the Theorem 4 pair of bounds.RangeLower and the
// search's best witness, whose masses are merged by corner and whose
// divergences R_alpha(P||Q), R_alpha(Q||P) <= eps (1e-12 relative slack) and
// objective are recomputed on the full channel (corner.FullRanges) before it
// is accepted. Upper is min(eps, U_inf), bounds.RangeUpperBound; Status is
// Certified only when that bound is within Tol of Lower. The search is a
// heuristic: Lower is a proved lower bound, not a proof of optimality.
//
// A support is pruned when min(eps, h) <= LB + Tol, h the largest
// divergence k sum_l R_alpha(Bern(theta_il) || Bern(theta_jl)) between the
// outputs of two of its points i, j: by joint quasi-convexity (see
// bounds.RangeAsymptote) no pair on the support exceeds h.
//
// Settings.Method is ignored. workers <= 0 means runtime.GOMAXPROCS(0). A
// cancelled ctx stops the search: the Result keeps the best witness found
// and Search.Complete is false. Corners in the Result are bit strings, bit l
// = 0 meaning theta_l = Lo_l. MaximizeRanges returns an error for invalid
// input, d > MaxRangeDim, (k+1)^d > 2^20 or a search estimated at more than
// MaxRangeWork output evaluations.
func MaximizeRanges(ctx context.Context, ranges []bounds.Range, k int, alpha, eps float64, workers int, s *Settings) (*Result, *Search, error) {
	rp, err := bounds.NewRangePoint(ranges, k, alpha, eps)
	if err != nil {
		return nil, nil, fmt.Errorf("solver.MaximizeRanges: %w: %w", ErrInput, err)
	}
	return MaximizeRangesAt(ctx, rp, workers, s)
}

// MaximizeRangesAt is MaximizeRanges at the point rp, valid by
// construction: it checks only the settings and the sizes.
func MaximizeRangesAt(ctx context.Context, rp bounds.RangePoint, workers int, s *Settings) (*Result, *Search, error) {
	if rp.IsZero() {
		panic("solver.MaximizeRangesAt: the zero bounds.RangePoint is not a point")
	}
	k, eps := rp.K(), rp.Eps()
	if s != nil && !(s.Tol >= 0) {
		return nil, nil, fmt.Errorf("solver.MaximizeRanges: %w: tol is %v, must be >= 0", ErrInput, s.Tol)
	}
	d := rp.D()
	if d > MaxRangeDim {
		return nil, nil, fmt.Errorf("solver.MaximizeRanges: %w: %d coordinates, at most %d can be searched", ErrInput, d, MaxRangeDim)
	}
	if !FullFits(d, k) {
		return nil, nil, fmt.Errorf("solver.MaximizeRanges: %w: (k+1)^d = %.3g outputs, more than 2^20", ErrInput, math.Pow(float64(k+1), float64(d)))
	}
	start := time.Now()
	tol := s.tol()
	ub := rp.Upper().Value()
	lb, aHi, err := rp.Lower()
	if err != nil {
		return nil, nil, fmt.Errorf("solver.MaximizeRanges: %w", err)
	}

	rs := newRangeSearch(rp)
	if w := rs.work(); w > MaxRangeWork {
		return nil, nil, fmt.Errorf("solver.MaximizeRanges: %w: %d supports, about %.2g output evaluations to search, more than %.2g (bounds.RangeBounds still applies)", ErrInput, len(rs.supports), w, float64(MaxRangeWork))
	}
	rec := &Search{Configs: len(rs.supports)}
	// The Theorem 4 pair: P puts p on a and 1-p on its antipode b.
	za := 0
	for l, h := range aHi {
		if h {
			za |= 1 << (d - 1 - l)
		}
	}
	zb := za ^ (1<<d - 1)
	p, div := rp.Pair()
	best := rangeFound{logF: math.Inf(-1), idx: -1}
	if ub-lb > tol && eps > 0 {
		best = rs.run(ctx, lb+tol, workers, rec, za, zb, p)
	}
	rec.Complete = rec.Complete || ub-lb <= tol || eps == 0

	res := &Result{Upper: ub, Lower: lb, Method: MethodClosedForm}
	res.Corners = []string{corner.Name(za, d), corner.Name(zb, d)}
	res.P, res.Q = []float64{p, 1 - p}, []float64{1 - p, p}
	if p > 0 { // p underflows only where UB - LB <= Tol already
		res.DivPQ, res.DivQP = div, div
	}
	if best.idx >= 0 {
		// The search's witness replaces the pair only when clearly better
		// (it often finds the same pair, up to rounding).
		if v, ok := rs.verify(best.sup, best.x, best.y); ok && v.value > res.Lower*(1+rangeTieRel) {
			res.adopt(v, MethodRangeSearch)
		}
	}
	res.settle(tol, rec, start)
	return res, rec, nil
}

// rangeTieRel is the relative margin by which the search's witness must beat
// the Theorem 4 pair to be reported instead: above the rounding of either
// and above what the 1e-12 relative slack in the witness's constraints can
// add to its value.
const rangeTieRel = 1e-11

// rangeSearch holds the supports of a ranges problem and what their
// searches share.
type rangeSearch struct {
	d, k       int
	alpha, eps float64
	D          float64      // logit of the Theorem 4 mass
	group      []int        // group[l]: index of the distinct range of coordinate l
	div        [][2]float64 // div[l][b]: k R_alpha(point with bit b || point with bit 1-b) on coordinate l
	lo, hi     []float64
	supports   [][corner.Points]int
}

// rangeFound is the best witness of a search: log F, masses on the points
// of sup, and an index for ties (the support's, or len(supports) for the
// polished Theorem 4 pair); idx < 0 means none.
type rangeFound struct {
	logF float64
	x, y []float64
	sup  [corner.Points]int
	idx  int
}

func newRangeSearch(rp bounds.RangePoint) *rangeSearch {
	ranges, d, k := rp.Ranges(), rp.D(), rp.K()
	rs := &rangeSearch{d: d, k: k, alpha: rp.Alpha(), eps: rp.Eps(), D: rp.Logit(),
		group: make([]int, d), div: make([][2]float64, d), lo: make([]float64, d), hi: make([]float64, d)}
	idx := map[bounds.Range]int{}
	for l, r := range ranges {
		g, ok := idx[r]
		if !ok {
			g = len(idx)
			idx[r] = g
		}
		rs.group[l] = g
		rs.lo[l], rs.hi[l] = r.Lo, r.Hi
		rs.div[l][0], rs.div[l][1] = rp.Coin(l)
	}
	rs.supports = rs.enumerate()
	return rs
}

// enumerate returns the supports: for d = 1 the two corners, each carried
// by two points (the vertex search needs 4); for d >= 2 every 4-subset of
// the corners (sorted) that is the smallest of its images under the
// permutations of coordinates sharing a range, in lexicographic order.
func (rs *rangeSearch) enumerate() [][corner.Points]int {
	d := rs.d
	if d == 1 {
		return [][corner.Points]int{{0, 1, 0, 1}}
	}
	perms := rs.permutations()
	n := 1 << d
	var out [][corner.Points]int
	var img [corner.Points]int
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			for c := b + 1; c < n; c++ {
				for e := c + 1; e < n; e++ {
					sup := [corner.Points]int{a, b, c, e}
					canonical := true
					for _, pi := range perms {
						for j, z := range sup {
							img[j] = permuteCorner(z, pi, d)
						}
						slices.Sort(img[:])
						if slices.Compare(img[:], sup[:]) < 0 {
							canonical = false
							break
						}
					}
					if canonical {
						out = append(out, sup)
					}
				}
			}
		}
	}
	return out
}

// permutations returns every permutation of the coordinates that maps each
// coordinate to one with the same range (identity first).
func (rs *rangeSearch) permutations() [][]int {
	d := rs.d
	var out [][]int
	cur := make([]int, d)
	used := make([]bool, d)
	var rec func(l int)
	rec = func(l int) {
		if l == d {
			out = append(out, slices.Clone(cur))
			return
		}
		for m := range d {
			if !used[m] && rs.group[m] == rs.group[l] {
				used[m], cur[l] = true, m
				rec(l + 1)
				used[m] = false
			}
		}
	}
	rec(0)
	return out
}

// permuteCorner returns the corner whose coordinate pi[l] carries bit l of
// z (bit l of a corner sits at position d-1-l).
func permuteCorner(z int, pi []int, d int) int {
	out := 0
	for l := range d {
		if z>>(d-1-l)&1 == 1 {
			out |= 1 << (d - 1 - pi[l])
		}
	}
	return out
}

// pairBound returns k sum_l R_alpha(Bern(theta_il) || Bern(theta_jl)) for
// corners zi and zj, the divergence between their outputs.
func (rs *rangeSearch) pairBound(zi, zj int) float64 {
	var h float64
	for l := range rs.d {
		bi, bj := zi>>(rs.d-1-l)&1, zj>>(rs.d-1-l)&1
		if bi != bj {
			h += rs.div[l][bi]
		}
	}
	return h
}

// work returns an estimate of the output evaluations of the search: per
// support its outputs times the objective evaluations of a screening (2
// starts, screenBudget vertex searches of up to 15 vertices); for the
// supports searched deeply, taken as the largest, times those of a deep
// search (2 rangeDeepStarts starts, deepBudget vertex searches and
// rangeDeepPolish polish steps); and two final polishes of the largest.
func (rs *rangeSearch) work() float64 {
	const vertices = 15
	outs := make([]float64, len(rs.supports))
	for i, sup := range rs.supports {
		sizes, _, _, _ := rs.groups(sup[:])
		o := 1.0
		for _, n := range sizes {
			o *= float64(rs.k*n + 1)
		}
		outs[i] = o
	}
	slices.Sort(outs)
	slices.Reverse(outs)
	nDeep := min(len(outs), max(deepMin, int(deepFrac*float64(len(outs)))))
	screen := float64(2 * rangeScreenStarts * (screenBudget*vertices + rangeScreenPolish))
	deep := float64(2 * rangeDeepStarts * (deepBudget*vertices + rangeDeepPolish))
	var w float64
	for i, o := range outs {
		w += screen * o
		if i < nDeep {
			w += deep * o
		}
	}
	return w + 2*rangeFinalPolish*outs[0]
}

// groups returns the coordinate groups of a support's reduced program:
// coordinates grouped by (range, bit pattern across the points of sup),
// constant patterns dropped (their draws do not depend on the point).
// pats[g] has bit j set when point j reads Hi on group g.
func (rs *rangeSearch) groups(sup []int) (sizes []int, lo, hi []float64, pats []int) {
	d := rs.d
	type key struct{ group, pattern int }
	idx := map[key]int{}
	for l := range d {
		pat := 0
		for j, z := range sup {
			pat |= (z >> (d - 1 - l) & 1) << j
		}
		if pat == 0 || pat == 1<<len(sup)-1 {
			continue
		}
		kk := key{rs.group[l], pat}
		g, ok := idx[kk]
		if !ok {
			g = len(sizes)
			idx[kk] = g
			sizes = append(sizes, 0)
			lo, hi = append(lo, rs.lo[l]), append(hi, rs.hi[l])
			pats = append(pats, pat)
		}
		sizes[g]++
	}
	return sizes, lo, hi, pats
}

// program returns the reduced program of a support (groups), one
// Binomial(k n_g, .) count per group.
func (rs *rangeSearch) program(sup [corner.Points]int) *Program {
	return rs.programOn(sup[:])
}

// programOn is program for any list of corners.
func (rs *rangeSearch) programOn(sup []int) *Program {
	sizes, lo, hi, pats := rs.groups(sup)
	ch := corner.NewRanges(rs.k, sizes, lo, hi)
	cols := make([][]float64, len(sup))
	for j := range cols {
		z := 0
		for _, pat := range pats {
			z = z<<1 | pat>>j&1
		}
		cols[j] = ch.LogColumn(make([]float64, ch.Outputs()), z)
	}
	return NewProgram(rs.alpha, cols)
}

// startPairs returns the ordered pairs (a, b) of support points to start
// from: the n unordered pairs of points on distinct corners (one pair per
// pair of corners) with the largest max(pairBound(a, b), pairBound(b, a)),
// ties by index, each in both orientations (which point gets P's mass p
// matters: the ranges need not be symmetric). The Theorem 4 masses put p on
// a and 1-p on b.
func (rs *rangeSearch) startPairs(sup [corner.Points]int, n int) [][2]int {
	type cand struct {
		a, b int
		h    float64
	}
	var cs []cand
	seen := map[[2]int]bool{}
	for a := range corner.Points {
		for b := a + 1; b < corner.Points; b++ {
			za, zb := min(sup[a], sup[b]), max(sup[a], sup[b])
			if za == zb || seen[[2]int{za, zb}] {
				continue
			}
			seen[[2]int{za, zb}] = true
			cs = append(cs, cand{a, b, math.Max(rs.pairBound(sup[a], sup[b]), rs.pairBound(sup[b], sup[a]))})
		}
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].h > cs[j].h })
	var out [][2]int
	for _, c := range cs[:min(n, len(cs))] {
		out = append(out, [2]int{c.a, c.b}, [2]int{c.b, c.a})
	}
	return out
}

// Start pairs per support (each tried in both orientations): screening
// tries the pair of corners with the largest bound, the deep search the 3
// largest. After the search over ratios (screenBudget or deepBudget calls of
// the vertex search), the deep search polishes each result with
// rangeDeepPolish evaluations, and the best witness of all gets
// rangeFinalPolish more. (Polishing while screening made d = 4 ten times
// slower.)
const (
	rangeScreenStarts = 1
	rangeDeepStarts   = 3
	rangeScreenPolish = 0
	rangeDeepPolish   = 400
	rangeFinalPolish  = 5000
)

// searchSupport runs the local search of one support from its start pairs
// and returns the best log F, its rise above the best start, and the masses.
func (rs *rangeSearch) searchSupport(ctx context.Context, sup [corner.Points]int, deep bool) (best, rise float64, bx, by []float64) {
	vs := newVertexSearch(rs.program(sup), rs.alpha, rs.eps)
	var uprog *Program
	if deep {
		uprog = rs.programOn(distinct(sup))
	}
	budget, pbudget, starts := screenBudget, rangeScreenPolish, rangeScreenStarts
	if deep {
		budget, pbudget, starts = deepBudget, rangeDeepPolish, rangeDeepStarts
	}
	best, rise = math.Inf(-1), math.Inf(-1)
	bx, by = make([]float64, corner.Points), make([]float64, corner.Points)
	x, y := make([]float64, corner.Points), make([]float64, corner.Points)
	theta := make([]float64, corner.Points)
	for _, o := range rs.startPairs(sup, starts) {
		if ctx.Err() != nil {
			break
		}
		clear(theta)
		theta[o[0]], theta[o[1]] = -rs.D, rs.D // r = p on a (P's mass p), 1-p on b
		f0 := vs.best(theta, x, y)
		f := vs.patternSearch(theta, x, y, budget)
		if pbudget > 0 && !math.IsInf(f, -1) {
			f = rs.polishSupport(uprog, sup, x, y, pbudget)
		}
		if f > best {
			best, rise = f, f-f0
			copy(bx, x)
			copy(by, y)
		}
	}
	return best, rise, bx, by
}

// distinct returns the distinct corners of a support, in order of first
// appearance.
func distinct(sup [corner.Points]int) []int {
	var u []int
	for _, z := range sup {
		if !slices.Contains(u, z) {
			u = append(u, z)
		}
	}
	return u
}

// polishSupport runs polish on the distinct corners of sup (prog is their
// program, programOn(distinct(sup))): splitting a corner's mass between two
// points only tightens the constraints. The masses x, y on the points are
// merged by corner, polished, and written back on the first point of each
// corner (0 on the others). It returns the polished log F.
func (rs *rangeSearch) polishSupport(prog *Program, sup [corner.Points]int, x, y []float64, budget int) float64 {
	u := distinct(sup)
	ux, uy := make([]float64, len(u)), make([]float64, len(u))
	for j, z := range sup {
		i := slices.Index(u, z)
		ux[i] += x[j]
		uy[i] += y[j]
	}
	f := polish(prog, rs.alpha, rs.eps, ux, uy, budget)
	clear(x)
	clear(y)
	for i, z := range u {
		j := slices.Index(sup[:], z)
		x[j], y[j] = ux[i], uy[i]
	}
	return f
}

// run screens every support not pruned against target (in nats), searches
// the most promising deeply, polishes the Theorem 4 pair (p on corner za,
// 1-p on zb) on its two corners, and returns the best, chosen by (value,
// index) so that it does not depend on workers, after a last polish.
func (rs *rangeSearch) run(ctx context.Context, target float64, workers int, rec *Search, za, zb int, p float64) rangeFound {
	var todo []int
	for i, sup := range rs.supports {
		h := 0.0
		for _, a := range sup {
			for _, b := range sup {
				h = math.Max(h, rs.pairBound(a, b))
			}
		}
		// 1e-12 relative covers the rounding of the bound.
		if math.Min(rs.eps, h*(1+1e-12)) <= target {
			rec.Pruned++
			continue
		}
		todo = append(todo, i)
	}
	slots, searched, deep, deepDone := stagedSearch(ctx, len(rs.supports), todo, workers,
		func(ctx context.Context, i int, deep bool) (f, rise float64, x, y []float64) {
			return rs.searchSupport(ctx, rs.supports[i], deep)
		})
	rec.Searched, rec.Deep = searched, deep
	rec.Complete = rec.Searched+rec.Pruned == rec.Configs && deepDone
	best := rangeFound{logF: math.Inf(-1), idx: -1}
	if i := bestSlot(slots, todo); i >= 0 {
		best = rangeFound{slots[i].f, slots[i].x, slots[i].y, rs.supports[i], i}
	}
	if ctx.Err() != nil {
		return best
	}
	// With asymmetric ranges the best masses on the pair's corners often
	// differ from (p, 1-p): polish them there (the pair's constraints are
	// both tight, a kink that the search over ratios rarely leaves).
	pair := rangeFound{x: []float64{p, 1 - p, 0, 0}, y: []float64{1 - p, p, 0, 0}, sup: [corner.Points]int{za, zb, za, zb}, idx: len(rs.supports)}
	pair.logF = rs.polishSupport(rs.programOn([]int{za, zb}), pair.sup, pair.x, pair.y, rangeFinalPolish)
	if pair.logF > best.logF {
		return pair
	}
	if best.idx >= 0 {
		best.logF = rs.polishSupport(rs.programOn(distinct(best.sup)), best.sup, best.x, best.y, rangeFinalPolish)
	}
	return best
}

// verify merges the witness's masses by corner, recomputes both
// divergences and rejects the witness if either exceeds eps by more than
// 1e-12 relative, then recomputes the objective on the full channel
// corner.FullRanges (all 2^d corners, (k+1)^d outputs).
func (rs *rangeSearch) verify(sup [corner.Points]int, x, y []float64) (verified, bool) {
	v, ok := mergeWitness(sup, rs.d, rs.alpha, rs.eps, x, y)
	if !ok {
		return v, false
	}
	ch := corner.FullRanges(rs.k, rs.lo, rs.hi)
	X, Y := v.spread(ch.Inputs())
	v.value = FullLogF(ch, rs.alpha, X, Y) / (rs.alpha - 1)
	return v, !math.IsNaN(v.value) && !math.IsInf(v.value, 0)
}

// polish improves a feasible pair (x, y) on the support's points by moves in
// mass space that follow the boundary of the feasible set, where the
// maximum of the convex objective lies. Two kinds of moves, each followed by
// a retraction: a move that leaves the feasible set is pulled back toward
// the pair's midpoint m = (x'+y')/2 (P = Q, always feasible) to the last
// feasible point of the segment, found by bisection (both constraints are
// convex along it and hold at m).
//   - Gradient moves (an active-set projected gradient): the gradient of log
//     F, projected on the simplices' tangent space, with the component along
//     the gradient of none, one or both constraints removed; the step adapts
//     (doubled after a success, halved after a failure).
//   - Transfer moves, when the gradient moves stall: a fraction h of one
//     point's mass moves to another, in P, in Q, or in both (same or
//     opposite way); h is halved when no move helps.
//
// Where one constraint binds and the maximum lies along it (asymmetric
// ranges), this follows the boundary where moves of the ratios alone stall.
// It returns the best log F and leaves its pair in x, y; budget caps the
// evaluations of log F.
// The retraction in polish stops when its bracket is narrower than
// retractWidth (relative to the segment) or after retractSteps steps; the
// pair returned is on the feasible side.
const (
	retractSteps = 60
	retractWidth = 1e-13
)

func polish(prog *Program, alpha, eps float64, x, y []float64, budget int) float64 {
	n := len(x)
	logE := (alpha - 1) * eps
	tx, ty := make([]float64, n), make([]float64, n)
	mid, px, py := make([]float64, n), make([]float64, n), make([]float64, n)
	// retract pulls (tx, ty) back toward its midpoint until feasible: with
	// g(t) = max of the two log constraints at mid + t (pair - mid) minus log
	// E, increasing in t with g(0) = -log E < 0, it keeps a bracket [in,
	// out], g(in) <= 0 < g(out), narrowed by regula falsi with the Illinois
	// halving, and returns the pair at in.
	gAt := func(t float64) float64 {
		for k := range n {
			px[k] = mid[k] + t*(tx[k]-mid[k])
			py[k] = mid[k] + t*(ty[k]-mid[k])
		}
		return math.Max(logDiv(alpha, px, py), logDiv(alpha, py, px)) - logE
	}
	retract := func() {
		gout := math.Max(logDiv(alpha, tx, ty), logDiv(alpha, ty, tx)) - logE
		if gout <= 0 {
			return
		}
		for k := range n {
			mid[k] = (tx[k] + ty[k]) / 2
		}
		in, out, gin := 0.0, 1.0, -logE
		side := 0
		for range retractSteps {
			if out-in <= retractWidth {
				break
			}
			t := (in*gout - out*gin) / (gout - gin)
			if !(t > in && t < out) {
				t = in + (out-in)/2
			}
			if g := gAt(t); g <= 0 {
				in, gin = t, g
				if side == -1 {
					gout /= 2
				}
				side = -1
			} else {
				out, gout = t, g
				if side == 1 {
					gin /= 2
				}
				side = 1
			}
		}
		for k := range n {
			tx[k] = mid[k] + in*(tx[k]-mid[k])
			ty[k] = mid[k] + in*(ty[k]-mid[k])
		}
	}
	// The vertex search allows 1e-12 of slack: start from a strictly
	// feasible pair.
	copy(tx, x)
	copy(ty, y)
	retract()
	copy(x, tx)
	copy(y, ty)
	cur := prog.LogF(x, y)
	calls := 1
	accept := func() bool {
		retract()
		f := prog.LogF(tx, ty)
		calls++
		if f > cur {
			cur = f
			copy(x, tx)
			copy(y, ty)
			return true
		}
		return false
	}

	// Gradient moves. Vectors over (x, y) have length 2n.
	m := 2 * n
	g, n1, n2, dir := make([]float64, m), make([]float64, m), make([]float64, m), make([]float64, m)
	dot := func(a, b []float64) float64 {
		var s float64
		for i := range a {
			s += a[i] * b[i]
		}
		return s
	}
	// tangent projects v on sum dx = sum dy = 0.
	tangent := func(v []float64) {
		for _, part := range [2][]float64{v[:n], v[n:]} {
			var mean float64
			for _, e := range part {
				mean += e
			}
			mean /= float64(n)
			for i := range part {
				part[i] -= mean
			}
		}
	}
	// divGrad writes the gradient of log sum_j u_j^alpha v_j^(1-alpha)
	// with respect to (u, v) into dst (u = x, v = y, or swapped by swap).
	divGrad := func(dst []float64, swap bool) {
		u, v := x, y
		du, dv := dst[:n], dst[n:]
		if swap {
			u, v = y, x
			du, dv = dst[n:], dst[:n]
		}
		l := logDiv(alpha, u, v)
		for j := range n {
			du[j], dv[j] = 0, 0
			if u[j] > 0 && v[j] > 0 {
				lr := math.Log(u[j]) - math.Log(v[j])
				du[j] = alpha * math.Exp((alpha-1)*lr-l)
				dv[j] = (1 - alpha) * math.Exp(alpha*lr-l)
			}
		}
	}
	// bounded makes d a direction that keeps zero masses nonnegative: the
	// components that would push a zero mass below 0 are fixed at 0 and the
	// rest re-projected on the simplices' tangent space, until none is left.
	fixed := make([]bool, m)
	bounded := func(d []float64) {
		clear(fixed)
		for {
			more := false
			for i, dv := range d {
				z := x
				if i >= n {
					z = y
				}
				if !fixed[i] && z[i%n] == 0 && dv < 0 {
					fixed[i], more = true, true
				}
			}
			if !more {
				return
			}
			for b := 0; b < m; b += n {
				var mean float64
				free := 0
				for i := b; i < b+n; i++ {
					if !fixed[i] {
						mean += d[i]
						free++
					}
				}
				if free > 0 {
					mean /= float64(free)
				}
				for i := b; i < b+n; i++ {
					if fixed[i] {
						d[i] = 0
					} else {
						d[i] -= mean
					}
				}
			}
		}
	}
	// remove takes from d its component along a (if a is not 0).
	remove := func(d, a []float64) {
		if aa := dot(a, a); aa > 0 {
			f := dot(d, a) / aa
			for i := range d {
				d[i] -= f * a[i]
			}
		}
	}
	step := 0.05
	for calls < budget && step > 1e-12 {
		prog.LogFGrad(x, y, g[:n], g[n:])
		tangent(g)
		divGrad(n1, false)
		divGrad(n2, true)
		tangent(n1)
		tangent(n2)
		improved := false
		for mode := 0; mode < 4 && calls < budget && !improved; mode++ {
			copy(dir, g)
			switch mode {
			case 1:
				remove(dir, n1)
			case 2:
				remove(dir, n2)
			case 3:
				remove(dir, n1)
				o := slices.Clone(n2)
				remove(o, n1)
				remove(dir, o)
			}
			bounded(dir)
			norm := math.Sqrt(dot(dir, dir))
			if !(norm > 0) {
				continue
			}
			// Stay in the simplices: masses that would go negative are
			// clipped at 0 (then both sides renormalized).
			t := step
			for i := range n {
				tx[i] = math.Max(x[i]+t*dir[i]/norm, 0)
				ty[i] = math.Max(y[i]+t*dir[n+i]/norm, 0)
			}
			normalize(tx)
			normalize(ty)
			improved = accept()
		}
		if improved {
			step = math.Min(2*step, 0.5)
		} else {
			step /= 2
		}
	}

	// Transfer moves.
	move := func(i, j int, sx, sy, h float64) bool {
		copy(tx, x)
		copy(ty, y)
		shift := func(v []float64, s float64) {
			a, b := i, j
			if s < 0 {
				a, b = j, i
			}
			dm := h * v[a]
			v[a] -= dm
			v[b] += dm
		}
		if sx != 0 {
			shift(tx, sx)
		}
		if sy != 0 {
			shift(ty, sy)
		}
		return !slices.Equal(tx, x) || !slices.Equal(ty, y)
	}
	type transfer struct {
		i, j   int
		sx, sy float64
	}
	var moves []transfer
	for i := range n {
		for j := i + 1; j < n; j++ {
			for _, s := range [][2]float64{{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {-1, -1}, {1, -1}, {-1, 1}} {
				moves = append(moves, transfer{i, j, s[0], s[1]})
			}
		}
	}
	for h := 0.25; h >= 1e-9 && calls < budget; {
		improved := false
		for _, mv := range moves {
			if calls >= budget {
				break
			}
			if move(mv.i, mv.j, mv.sx, mv.sy, h) && accept() {
				improved = true
				break
			}
		}
		if !improved {
			h /= 2
		}
	}
	return cur
}
