package solver

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sort"
	"time"

	"github.com/bernamp/bernamp/bounds"
	"github.com/bernamp/bernamp/check"
	"github.com/bernamp/bernamp/corner"
	"golang.org/x/sync/errgroup"
)

// MethodConfigSearch names the witness search of Maximize for d >= 2; its
// Upper is the closed-form bound.
const MethodConfigSearch = "closed-form (witness: configuration search)"

// Search records the configuration search of Maximize.
type Search struct {
	Configs  int  // support configurations up to relabeling of the points (corner.Orbits)
	Searched int  // configurations screened (stage 1)
	Deep     int  // configurations searched deeply (stage 2)
	Pruned   int  // configurations whose proved bound cannot beat LB + Tol
	Complete bool // every configuration screened or pruned, and stage 2 done
}

// Search budgets, in vertex enumerations (each evaluates F at up to 15
// vertices). Stage 1 screens every configuration with a short pattern
// search from two starts; stage 2 gives the best-screened configurations
// (ranked by how far they rose above their start) a long search from every
// start. Chosen so that the complete search of d = 12, k = 1 and d = 6, k = 4
// takes about 4 s on 2 cores (BenchmarkMaximize), under the 10 s target.
const (
	screenBudget = 30
	deepBudget   = 200
	deepMin      = 16  // at least this many configurations go to stage 2
	deepFrac     = 0.1 // and this fraction of those screened
)

// Maximize returns a verified witness for Post_{alpha,k}(eps) at any d and
// k: the best of the Theorem 4 pair and a local search in every support
// configuration of at most 4 corners (math.md section 3), one per orbit of
// relabelings of the points (the C(d+6, 6) configurations fall into about
// 24 times fewer orbits, each one program), that is not pruned by a proved
// bound. For d = 1 it returns One's certified answer.
//
// For d >= 2, Upper is the closed-form bound min(eps, d k r_alpha(c)) and
// Status is Certified only when that bound is within Tol of the witness.
//
// A configuration is pruned when min(eps, h k r_alpha(c)) <= LB + Tol, h the
// largest Hamming distance between its points: writing P and Q as mixtures
// over a coupling of their masses, joint quasi-convexity of the Rényi
// divergence bounds R_alpha(B_k(P) || B_k(Q)) by the largest divergence
// between two point outputs, h k r_alpha(c). Pruning against LB rather than
// the best witness so far keeps the result independent of the number of
// workers.
//
// workers <= 0 means runtime.GOMAXPROCS(0). A cancelled ctx stops the
// search: the Result keeps the best witness found and Search.Complete is
// false.
func Maximize(ctx context.Context, d, k int, c, alpha, eps float64, workers int, s *Settings) (*Result, *Search, error) {
	pt, err := check.NewValidPoint(d, k, c, alpha, eps)
	if err != nil {
		return nil, nil, fmt.Errorf("solver.Maximize: %w: %w", ErrInput, err)
	}
	return MaximizeAt(ctx, pt, workers, s)
}

// MaximizeAt is Maximize at the point pt, valid by construction: it checks
// only the settings.
func MaximizeAt(ctx context.Context, pt check.ValidPoint, workers int, s *Settings) (*Result, *Search, error) {
	if pt.IsZero() {
		panic("solver.MaximizeAt: the zero check.ValidPoint is not a point")
	}
	d, k, c, alpha, eps := pt.D(), pt.K(), pt.C(), pt.Alpha(), pt.Eps()
	if s != nil && !(s.Tol >= 0) {
		return nil, nil, fmt.Errorf("solver.Maximize: %w: tol is %v, must be >= 0", ErrInput, s.Tol)
	}
	method := s.method()
	if method != MethodReduced && method != MethodFull {
		return nil, nil, fmt.Errorf("solver.Maximize: %w: method is %q, must be %q or %q", ErrInput, method, MethodReduced, MethodFull)
	}
	if method == MethodFull && !FullFits(d, k) {
		return nil, nil, fmt.Errorf("solver.Maximize: %w: the full program has (k+1)^d = %.3g outputs, more than 2^20: use %q", ErrInput, math.Pow(float64(k+1), float64(d)), MethodReduced)
	}
	if d == 1 {
		r, err := solveOne(ctx, pt, s)
		return r, nil, err
	}
	start := time.Now()
	tol := s.tol()
	ub := bounds.UpperAt(pt).Value()
	if NearOne(alpha, tol) {
		return nearOne(&Result{Upper: ub}, pt, tol, start), &Search{}, nil
	}
	if err := SearchFits(d, k, workers, s.maxMemory()); err != nil {
		return nil, nil, fmt.Errorf("solver.Maximize: %w", err)
	}
	lb := bounds.LowerAt(pt)
	D := bounds.LogitAt(pt)

	configs := corner.Orbits(d)
	rec := &Search{Configs: len(configs)}
	type found struct {
		logF   float64
		x, y   []float64
		config int
	}
	best := found{logF: math.Inf(-1), config: -1}
	deepDone := true // stage 2 ran on every configuration chosen for it
	if ub-lb > tol && eps > 0 {
		rc := bounds.RenyiAt(pt)
		var todo []int
		for i, cf := range configs {
			h := 0
			for a := range corner.Points {
				for b := a + 1; b < corner.Points; b++ {
					h = max(h, cf.Hamming(a, b))
				}
			}
			if math.Min(eps, float64(h*k)*rc) <= lb+tol {
				rec.Pruned++
				continue
			}
			todo = append(todo, i)
		}
		slots, searched, deep, done := stagedSearch(ctx, len(configs), todo, workers,
			func(ctx context.Context, i int, deep bool) (f, rise float64, x, y []float64) {
				return searchConfig(ctx, configs[i], d, k, c, alpha, eps, D, deep, method)
			})
		rec.Searched, rec.Deep, deepDone = searched, deep, done
		if i := bestSlot(slots, todo); i >= 0 {
			best = found{slots[i].f, slots[i].x, slots[i].y, i}
		}
	}
	rec.Complete = rec.Searched+rec.Pruned == rec.Configs && deepDone || ub-lb <= tol || eps == 0

	res := &Result{Upper: ub, Method: MethodClosedForm}
	// The Theorem 4 pair is always a candidate: post >= LB by construction.
	full := FullFits(d, k)
	res.Lower = lb
	res.Corners = []string{corner.Name(0, d), corner.Name(1<<d-1, d)}
	p, div := bounds.PairAt(pt)
	res.P, res.Q = []float64{p, 1 - p}, []float64{1 - p, p}
	if p > 0 { // p underflows only where UB - LB <= Tol already
		res.DivPQ, res.DivQP = div, div
	}
	if best.config >= 0 {
		if v, ok := verifyWitness(configs[best.config], d, k, c, alpha, eps, best.x, best.y, full); ok && v.value > res.Lower {
			res.adopt(v, MethodConfigSearch)
		}
	}
	res.settle(tol, rec, start)
	return res, rec, nil
}

// Reach of the configuration search of Maximize, by estimate (SearchSize):
// at most MaxSearchWork output evaluations per pass (about 15 µs each on
// 2 shared cores with the default budgets, so about an hour; d = 25 at
// k = 1, d = 8 at k = 4), and SearchBytesPerConfig bytes per configuration
// (the list of C(d+6, 6) configurations, their orbits and result slots) plus
// SearchBytesPerOutput per output of the largest configuration's program on
// each worker.
const (
	MaxSearchWork        = 2.4e8
	SearchBytesPerConfig = 128
	SearchBytesPerOutput = 128
)

// SearchSize returns estimates of what Maximize's search at (d, k) needs:
// work, the outputs evaluated in one pass over the orbits,
//
//	sum over compositions n_1 + ... + n_7 = d of prod_t (k n_t + 1), over 24
//	= [x^d] ((1 + (k-1) x)/(1-x)^2)^7 / 24 = sum_(j=0..7) C(7,j) (k-1)^j C(d-j+13, 13) / 24,
//
// (the 24 relabelings of the 4 support points; the bench's measured counts
// are within 1.5x of it), and the bytes held: SearchBytesPerConfig per
// configuration, C(d+6, 6) of them, plus SearchBytesPerOutput times the
// largest configuration's outputs, at most (k d/7 + 1)^7, per worker. Both
// are float64 and saturate at +Inf, never overflow.
func SearchSize(d, k, workers int) (work, bytes float64) {
	for j := 0; j <= corner.Patterns && j <= d; j++ {
		work += binom(corner.Patterns, j) * math.Pow(float64(k-1), float64(j)) * binom(d-j+13, 13)
	}
	work /= 24
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	outs := math.Pow(float64(k)*float64(d)/corner.Patterns+1, corner.Patterns)
	bytes = SearchBytesPerConfig*binom(d+6, 6) + SearchBytesPerOutput*outs*float64(workers)
	return work, bytes
}

// SearchFits returns nil when Maximize's search at (d, k) on workers
// goroutines is within its reach (MaxSearchWork) and within maxMemory
// bytes, by SearchSize; otherwise an error wrapping ErrTooLarge that says
// which.
func SearchFits(d, k, workers int, maxMemory int64) error {
	work, bytes := SearchSize(d, k, workers)
	switch {
	case work > MaxSearchWork:
		return fmt.Errorf("%w: the configuration search at d = %d, k = %d needs about %.2g output evaluations, more than %.2g (hours)", ErrTooLarge, d, k, work, float64(MaxSearchWork))
	case bytes > float64(maxMemory):
		return fmt.Errorf("%w: the configuration search at d = %d, k = %d needs about %.2g bytes, more than the cap of %d", ErrTooLarge, d, k, bytes, maxMemory)
	}
	return nil
}

// binom returns C(n, j) as a float64 (+Inf past the range), 0 unless 0 <=
// j <= n.
func binom(n, j int) float64 {
	if j < 0 || j > n {
		return 0
	}
	lg := func(x int) float64 { v, _ := math.Lgamma(float64(x) + 1); return v }
	if n < 60 {
		v := 1.0
		for i := 1; i <= j; i++ {
			v = v * float64(n-j+i) / float64(i)
		}
		return math.Round(v)
	}
	return math.Exp(lg(n) - lg(j) - lg(n-j))
}

// adopt makes the verified witness v, found by method, the result's.
func (r *Result) adopt(v verified, method string) {
	r.Lower = v.value
	r.Corners, r.P, r.Q = v.corners, v.p, v.q
	r.DivPQ, r.DivQP = v.divPQ, v.divQP
	r.Method = method
}

// settle ends a search: Lower no higher than Upper, the status for tol and
// the search's completeness and time.
func (r *Result) settle(tol float64, rec *Search, start time.Time) {
	r.Lower = math.Min(r.Lower, r.Upper)
	r.Status = Witness
	if r.Upper-r.Lower <= tol {
		r.Status = Certified
	}
	r.Stats.Complete = rec.Complete
	r.Stats.Runtime = time.Since(start)
}

// searchConfig runs the local search of one configuration and returns its
// best log F, how far that rose above the best start, and the masses. The
// starts put the Theorem 4 masses on an ordered pair of points at the
// largest Hamming distance: the first such pair in both orientations when
// screening, every such pair when deep.
func searchConfig(ctx context.Context, cf corner.Config, d, k int, c, alpha, eps, D float64, deep bool, method string) (best, rise float64, bx, by []float64) {
	var prog Objective
	if method == MethodFull {
		prog = NewFullProgram(cf, d, k, c, alpha)
	} else {
		prog = ConfigProgram(cf, k, c, alpha)
	}
	vs := newVertexSearch(prog, alpha, eps)
	h := 0
	for a := range corner.Points {
		for b := a + 1; b < corner.Points; b++ {
			h = max(h, cf.Hamming(a, b))
		}
	}
	budget, starts := screenBudget, 2
	if deep {
		budget, starts = deepBudget, corner.Points*corner.Points
	}
	best, rise = math.Inf(-1), math.Inf(-1)
	bx, by = make([]float64, corner.Points), make([]float64, corner.Points)
	x, y := make([]float64, corner.Points), make([]float64, corner.Points)
	theta := make([]float64, corner.Points)
	for a := range corner.Points {
		for b := a + 1; b < corner.Points; b++ {
			if cf.Hamming(a, b) != h || starts == 0 || ctx.Err() != nil {
				continue
			}
			for _, o := range [2][2]int{{a, b}, {b, a}} {
				starts--
				clear(theta)
				theta[o[0]], theta[o[1]] = -D, D // r = p and 1-p
				f0 := vs.best(theta, x, y)
				if f := vs.patternSearch(theta, x, y, budget); f > best {
					best, rise = f, f-f0
					copy(bx, x)
					copy(by, y)
				}
			}
		}
	}
	return best, rise, bx, by
}

// FullFits reports whether the full corner program of (d, k) is small
// enough to evaluate: (k+1)^d outputs, at most 2^20. Witnesses are verified
// on it when it fits, and MethodFull is accepted only then.
func FullFits(d, k int) bool {
	return float64(d)*math.Log2(float64(k+1)) <= 20 && d <= 20
}

type verified struct {
	value, divPQ, divQP float64
	corners             []string
	idx                 []int // corner index of each entry of p and q
	p, q                []float64
}

// verifyWitness recomputes the witness's objective and both constraints
// from its masses: on the full corner program (masses of coinciding corners
// merged) when full is set, otherwise on the reduced program of its
// configuration. A witness whose constraints exceed eps by more than 1e-12
// relative is rejected.
func verifyWitness(cf corner.Config, d, k int, c, alpha, eps float64, x, y []float64, full bool) (verified, bool) {
	v, ok := mergeWitness(cf.Corners(), d, alpha, eps, x, y)
	if !ok {
		return v, false
	}
	var logF float64
	if full {
		ch := corner.Full(d, k, c)
		X, Y := v.spread(ch.Inputs())
		logF = FullLogF(ch, alpha, X, Y)
	} else {
		logF = ConfigProgram(cf, k, c, alpha).LogF(x, y)
	}
	v.value = logF / (alpha - 1)
	return v, !math.IsNaN(v.value) && !math.IsInf(v.value, 0)
}

// mergeWitness returns the witness of masses x, y on the support points
// pts (corner indices, coinciding corners merged, zero pairs dropped) with
// both divergences, and false if either exceeds eps by more than 1e-12
// relative. The value is left to the caller.
func mergeWitness(pts [corner.Points]int, d int, alpha, eps float64, x, y []float64) (verified, bool) {
	var v verified
	mx, my := map[int]float64{}, map[int]float64{}
	for j, z := range pts {
		if x[j] == 0 && y[j] == 0 {
			continue
		}
		if _, ok := mx[z]; !ok {
			v.idx = append(v.idx, z)
		}
		mx[z] += x[j]
		my[z] += y[j]
	}
	for _, z := range v.idx {
		v.corners = append(v.corners, corner.Name(z, d))
		v.p = append(v.p, mx[z])
		v.q = append(v.q, my[z])
	}
	v.divPQ = logDiv(alpha, v.p, v.q) / (alpha - 1)
	v.divQP = logDiv(alpha, v.q, v.p) / (alpha - 1)
	return v, v.divPQ <= eps*(1+1e-12) && v.divQP <= eps*(1+1e-12)
}

// spread returns the witness's masses on all n corners.
func (v *verified) spread(n int) (X, Y []float64) {
	X, Y = make([]float64, n), make([]float64, n)
	for i, z := range v.idx {
		X[z], Y[z] = v.p[i], v.q[i]
	}
	return X, Y
}

// slot is the best pair one search of stagedSearch found on one support.
type slot struct {
	f, rise float64 // log F of the pair, and how far the search raised it
	x, y    []float64
	done    bool // the search finished (was not cut short)
}

// stagedSearch runs the two stages of the configuration search over the
// indices todo of n supports, on at most workers goroutines (<= 0: GOMAXPROCS):
// stage 1 screens every index, search(ctx, i, false); stage 2 searches
// deeply, search(ctx, i, true), the deepFrac of them (at least deepMin)
// whose screening rose most, keeping the better of the two pairs. Each
// search writes only its own slot, so the slots do not depend on workers;
// a search cut short by ctx does not count. It returns the slots (indexed
// 0..n-1), the numbers of indices screened and searched deeply, and whether
// stage 2 finished on every index chosen for it.
func stagedSearch(ctx context.Context, n int, todo []int, workers int,
	search func(ctx context.Context, i int, deep bool) (f, rise float64, x, y []float64)) (slots []slot, searched, deep int, deepDone bool) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	slots = make([]slot, n)
	run := func(list []int, deep bool) {
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(workers)
		for _, i := range list {
			if gctx.Err() != nil {
				break
			}
			g.Go(func() error {
				if gctx.Err() != nil {
					return nil
				}
				f, rise, x, y := search(gctx, i, deep)
				if gctx.Err() == nil { // a search cut short does not count
					if !deep || f > slots[i].f {
						slots[i] = slot{f, rise, x, y, true}
					}
					slots[i].done = true
				}
				return nil
			})
		}
		g.Wait()
	}
	run(todo, false)
	for _, i := range todo {
		if slots[i].done {
			searched++
		}
	}
	chosen := append([]int(nil), todo...)
	sort.SliceStable(chosen, func(a, b int) bool { return slots[chosen[a]].rise > slots[chosen[b]].rise })
	chosen = chosen[:min(len(chosen), max(deepMin, int(deepFrac*float64(len(todo)))))]
	for _, i := range chosen {
		slots[i].done = false
	}
	run(chosen, true)
	for _, i := range chosen {
		if slots[i].done {
			deep++
		}
	}
	return slots, searched, deep, deep == len(chosen)
}

// bestSlot returns the index of todo whose slot holds the largest log F,
// ties to the smaller index so that it does not depend on workers, or -1
// when no slot holds a pair.
func bestSlot(slots []slot, todo []int) int {
	best, bestF := -1, math.Inf(-1)
	for _, i := range todo {
		if sl := slots[i]; sl.x != nil && (sl.f > bestF || sl.f == bestF && i < best) {
			best, bestF = i, sl.f
		}
	}
	return best
}
