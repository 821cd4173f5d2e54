package pld

import (
	"context"
	"fmt"
	"math"

	"github.com/bernamp/bernamp/internal/floatbits"
	"github.com/bernamp/bernamp/parallel"
)

// Step is one kind of step of a composition: Steps adaptive releases of n
// = N Bernoulli samples (d k) of a parameter in [C, 1-C]^d computed by a
// mechanism with profile Mechanism. C = 0 means no amplification: the
// mechanism's own output is released.
type Step struct {
	Mechanism Profile
	N         int
	C         float64
	Steps     int
}

// Options are the numerical settings of an Account.
type Options struct {
	Grid
	// Truncation is the tail mass an FFT composition may cut (added to
	// the infinity mass): dp_accounting's tail_mass_truncation, 1e-15 by
	// default.
	Truncation float64
	Workers    int // goroutines for the profiles' grids; results do not depend on it
}

// DefaultOptions are dp_accounting's PLD accountant's settings:
// discretization 1e-4 and tail truncation 1e-15; the profile's grid stops
// where it falls below 1e-22 (dp_accounting's Gaussian stops at e^-50).
func DefaultOptions() Options {
	return Options{Grid: Grid{H: 1e-4, Tail: 1e-22}, Truncation: 1e-15, Workers: 1}
}

// Account is the pessimistic PLD of a composition of steps, both
// directions, and what its lower side needs.
type Account struct {
	steps []Step
	opt   Options
	// fwd and rev are the composed pessimistic PLDs; rev is nil when every
	// step is symmetric.
	fwd, rev *PLD
	// one is the amplified profile when the composition is a single step:
	// its answers come from the profile itself, without discretization.
	one *Profile
	// step is the discretized PLD of one step of each kind (forward,
	// reverse; reverse nil for a symmetric kind): what a profile
	// certificate holds.
	step [][2]*PLD
	// counts caches the binomial terms of the lower side, by step kind.
	counts map[int]*counts
}

// countsOf returns the binomial terms of step kind i (computed once; not
// safe for concurrent use until every kind is in the cache, which
// lowerSearch fills first).
func (a *Account) countsOf(i int) *counts {
	if a.counts == nil {
		a.counts = map[int]*counts{}
	}
	cs, ok := a.counts[i]
	if !ok {
		cs = newCounts(a.steps[i].N, a.steps[i].C)
		a.counts[i] = cs
	}
	return cs
}

// NewAccount discretizes each step kind's amplified profile (Amplify, then
// Discretize) and composes them (SelfCompose, Compose) in both directions.
// Errors: an empty list, a step with Steps < 1, an invalid N or C, an
// invalid grid, a result over MaxPoints, ctx.Err().
func NewAccount(ctx context.Context, steps []Step, opt Options) (*Account, error) {
	if len(steps) == 0 {
		return nil, fmt.Errorf("pld: no steps")
	}
	if !(opt.Truncation > 0 && opt.Truncation < 1) {
		return nil, fmt.Errorf("pld: truncation is %v, must be in (0, 1)", opt.Truncation)
	}
	symmetric := true
	for _, s := range steps {
		if s.Steps < 1 {
			return nil, fmt.Errorf("pld: steps is %d, must be >= 1", s.Steps)
		}
		symmetric = symmetric && s.Mechanism.Symmetric()
	}
	if opt.H == 0 {
		h, err := autoH(ctx, steps, opt)
		if err != nil {
			return nil, err
		}
		opt.H = h
	}
	if err := opt.Grid.Check(); err != nil {
		return nil, err
	}
	a := &Account{steps: steps, opt: opt, step: make([][2]*PLD, len(steps))}
	if len(steps) == 1 && steps[0].Steps == 1 {
		p, err := steps[0].profile()
		if err != nil {
			return nil, err
		}
		a.one = &p
	}
	dirs := []bool{false}
	if !symmetric {
		dirs = append(dirs, true)
	}
	for _, reverse := range dirs {
		var total *PLD
		for i, s := range steps {
			p, err := s.profile()
			if err != nil {
				return nil, err
			}
			if reverse {
				p = p.Rev()
			}
			d, err := Discretize(ctx, p, opt.Grid, opt.Workers)
			if err != nil {
				return nil, err
			}
			if !reverse || !s.Mechanism.Symmetric() {
				a.step[i][b2i(reverse)] = d
			}
			if d, err = d.SelfCompose(s.Steps, opt.Truncation); err != nil {
				return nil, err
			}
			if total == nil {
				total = d
			} else if total, err = Compose(total, d, opt.Truncation); err != nil {
				return nil, err
			}
		}
		if reverse {
			a.rev = total
		} else {
			a.fwd = total
		}
	}
	return a, nil
}

// AutoPoints is the size of the composed PLD that an automatic
// discretization (Options.H = 0) aims at: the FFT's cost (about 0.1 s for a
// transform of 2^19 points here) then stays under a second whatever T.
const AutoPoints = 1 << 19

// MinAutoH is the automatic discretization's finest step: dp_accounting's
// default value_discretization_interval.
const MinAutoH = 1e-4

// autoH returns the discretization of Options.H = 0: MinAutoH unless the
// composed PLD would have more than AutoPoints points, then the step that
// gives about AutoPoints (the range of losses measured on the profiles'
// PLDs at a probe step of 1e-2, with the Chernoff bounds of SelfCompose).
// The pessimistic connect-the-dots PLD is second-order accurate in the step:
// Gaussian sigma 2, c 0.1, T 1000: eps 105.343774 at 1e-4, 105.343913 at
// 1e-3.
func autoH(ctx context.Context, steps []Step, opt Options) (float64, error) {
	const probe = 1e-2
	g := Grid{H: probe, Tail: opt.Tail}
	total := 0.0 // the kinds' spans add up in their convolution
	for _, s := range steps {
		p, err := s.profile()
		if err != nil {
			return 0, err
		}
		span := 0.0 // the wider direction's
		for _, q := range []Profile{p, p.Rev()} {
			d, err := Discretize(ctx, q, g, opt.Workers)
			if err != nil {
				return 0, err
			}
			lo, hi := selfConvolveBounds(d.Probs, s.Steps, opt.Truncation)
			span = math.Max(span, float64(hi-lo+1)*probe)
			if p.Symmetric() {
				break
			}
		}
		total += span
	}
	h := total / AutoPoints
	if h <= MinAutoH {
		return MinAutoH, nil
	}
	// A round step (1, 2 or 5 times a power of 10), for readable output.
	e := math.Pow(10, math.Floor(math.Log10(h)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*e >= h {
			return math.Min(m*e, 1), nil
		}
	}
	return math.Min(10*e, 1), nil
}

// H returns the discretization in use (chosen by NewAccount when
// Options.H was 0).
func (a *Account) H() float64 { return a.opt.H }

// profile returns the step's amplified profile (its mechanism's when C is 0).
func (s Step) profile() (Profile, error) {
	if s.C == 0 {
		return s.Mechanism, nil
	}
	return Amplify(s.Mechanism, s.N, s.C)
}

// StepPLDs returns the discretized pessimistic PLD of one step, forward
// and reverse (nil when symmetric), that the account composed; both nil
// when it has several step kinds (KindPLDs).
func (a *Account) StepPLDs() (fwd, rev *PLD) {
	if len(a.step) != 1 {
		return nil, nil
	}
	return a.step[0][0], a.step[0][1]
}

// KindPLDs returns the discretized pessimistic PLD of one step of kind i
// (the i-th Step of NewAccount), forward and reverse (nil when the kind's
// mechanism is symmetric: its forward PLD serves both), all on the grid H.
func (a *Account) KindPLDs(i int) (fwd, rev *PLD) { return a.step[i][0], a.step[i][1] }

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// PLDs returns the composed pessimistic PLDs: forward (remove) and
// reverse (add; nil when every step is symmetric).
func (a *Account) PLDs() (fwd, rev *PLD) { return a.fwd, a.rev }

// EpsUpper returns an upper bound on the smallest eps at which the
// composition is (eps, delta)-DP in both directions (+Inf when none is
// finite): the claim.
func (a *Account) EpsUpper(delta float64) float64 {
	if a.one != nil {
		return rootUp(a.one.both, delta, a.one.Upper)
	}
	e := a.fwd.Eps(delta)
	if a.rev != nil {
		e = math.Max(e, a.rev.Eps(delta))
	}
	return e
}

// DeltaUpper returns an upper bound on the composition's delta at eps.
func (a *Account) DeltaUpper(eps float64) float64 {
	if a.one != nil {
		return a.one.both(eps)
	}
	d := a.fwd.Delta(eps)
	if a.rev != nil {
		d = math.Max(d, a.rev.Delta(eps))
	}
	return d
}

// HasLower reports whether every step has a lower side (an amplified
// mechanism with a known dominating pair).
func (a *Account) HasLower() bool {
	for _, s := range a.steps {
		if s.C == 0 || s.Mechanism.NP == nil {
			return false
		}
	}
	return true
}

// lowerAt returns the optimistic PLDs (both directions) of the composition
// of the attaining mechanisms at level eps0, on grid h.
func (a *Account) lowerAt(eps0, h float64, both bool) ([2]*PLD, error) {
	var out [2]*PLD
	dirs := 1
	if both {
		dirs = 2
	}
	// The two directions are independent: on two goroutines when asked.
	work := func(_ context.Context, dir int) (*PLD, error) {
		var total *PLD
		for i, s := range a.steps {
			d, err := attaining(s.Mechanism, a.countsOf(i), eps0, h, dir == 1)
			if err != nil {
				return nil, err
			}
			if d, err = d.SelfCompose(s.Steps, a.opt.Truncation); err != nil {
				return nil, err
			}
			if total == nil {
				total = d
			} else if total, err = Compose(total, d, a.opt.Truncation); err != nil {
				return nil, err
			}
		}
		return total, nil
	}
	err := parallel.Map(context.Background(), dirs, min(dirs, max(1, a.opt.Workers)), work, func(dir int, d *PLD) error { out[dir] = d; return nil })
	if err != nil {
		return out, err
	}
	if !both { // one direction: the score's max sees it twice
		out[1] = out[0]
	}
	return out, nil
}

// lowerSearch maximizes score(eps0) over the attaining mechanisms' level
// eps0 in [0, top]: a scan of 0 and top 2^-k (k = 0..6), then six steps of
// golden section between the best point's neighbours, on a grid of 2e-3
// (coarser for wide compositions) and the forward direction only, then the
// best level in both directions on the account's grid. Every value is a lower bound whatever
// eps0 is, so the search only has to be good, not exact.
func (a *Account) lowerSearch(ctx context.Context, top float64, score func([2]*PLD) float64) (float64, error) {
	for i := range a.steps { // fill the cache before the goroutines read it
		a.countsOf(i)
	}
	h := a.opt.H
	// The search's grid: 2e-3, or coarser where the composed losses span
	// more than 2^16 of its steps (the attaining mechanism's span is about
	// the amplified profile's, the account's own PLD).
	coarse := math.Max(h, math.Max(2e-3, float64(len(a.fwd.Probs))*h/(1<<16)))
	// The search scores the forward direction on the coarse grid; the
	// level found is then scored in both directions on the fine grid.
	eval := func(e0, hh float64) (float64, error) {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		p, err := a.lowerAt(e0, hh, hh == h)
		if err != nil {
			return 0, err
		}
		return score(p), nil
	}
	pts := []float64{0}
	for k := 5; k >= 0; k-- {
		pts = append(pts, top*math.Ldexp(1, -k))
	}
	// The scan's points are independent: on the workers (each value is
	// computed alone, so the result does not depend on their number).
	vals := make([]float64, len(pts))
	work := func(_ context.Context, i int) (float64, error) { return eval(pts[i], coarse) }
	if err := parallel.Map(ctx, len(pts), max(1, a.opt.Workers), work, func(i int, v float64) error { vals[i] = v; return nil }); err != nil {
		return 0, err
	}
	best := 0
	for i, v := range vals {
		if v > vals[best] {
			best = i
		}
	}
	l, r := pts[max(best-1, 0)], pts[min(best+1, len(pts)-1)]
	bestE := pts[best]
	phi := (math.Sqrt(5) - 1) / 2
	x1, x2 := r-phi*(r-l), l+phi*(r-l)
	var f [2]float64
	xs := [2]float64{x1, x2}
	work = func(_ context.Context, i int) (float64, error) { return eval(xs[i], coarse) }
	if err := parallel.Map(ctx, 2, max(1, a.opt.Workers), work, func(i int, v float64) error { f[i] = v; return nil }); err != nil {
		return 0, err
	}
	f1, f2 := f[0], f[1]
	var err error
	bestV := vals[best]
	for range 5 {
		if f1 > bestV {
			bestV, bestE = f1, x1
		}
		if f2 > bestV {
			bestV, bestE = f2, x2
		}
		if f1 >= f2 {
			r, x2, f2 = x2, x1, f1
			x1 = r - phi*(r-l)
			if f1, err = eval(x1, coarse); err != nil {
				return 0, err
			}
		} else {
			l, x1, f1 = x1, x2, f2
			x2 = l + phi*(r-l)
			if f2, err = eval(x2, coarse); err != nil {
				return 0, err
			}
		}
	}
	if h == coarse {
		p, err := a.lowerAt(bestE, h, true)
		if err != nil {
			return 0, err
		}
		return score(p), nil
	}
	return eval(bestE, h)
}

// EpsLower returns a lower bound on the smallest eps at which the
// composition is (eps, delta)-DP: the largest Eps(delta) of the composed
// attaining mechanisms over their level (one real mechanism per step kind,
// the same at every step, composed the optimistic way). NaN when a step
// has no lower side (HasLower).
func (a *Account) EpsLower(ctx context.Context, delta float64) (float64, error) {
	if !a.HasLower() {
		return math.NaN(), nil
	}
	if a.one != nil {
		s := a.steps[0]
		// At one step the attaining mechanism at level eps has exactly the
		// amplified delta' at eps: the root of its lower bound.
		cs := a.countsOf(0)
		f := func(e float64) float64 { return attainedDelta(s.Mechanism, cs, e) }
		return rootDown(f, delta, a.one.Upper), nil
	}
	top := a.levelScale(delta)
	return a.lowerSearch(ctx, top, func(p [2]*PLD) float64 {
		return math.Max(p[0].Eps(delta), p[1].Eps(delta))
	})
}

// DeltaLower returns a lower bound on the composition's delta at eps (NaN
// without a lower side), as EpsLower.
func (a *Account) DeltaLower(ctx context.Context, eps float64) (float64, error) {
	if !a.HasLower() {
		return math.NaN(), nil
	}
	if a.one != nil {
		return attainedDelta(a.steps[0].Mechanism, a.countsOf(0), eps), nil
	}
	top := a.levelScale(math.Max(a.DeltaUpper(eps), 1e-300))
	return a.lowerSearch(ctx, top, func(p [2]*PLD) float64 {
		return math.Max(p[0].Delta(eps), p[1].Delta(eps))
	})
}

// levelScale returns the top of the level search: twice the largest
// single-step eps of a step kind at delta/steps, at least 1e-3.
func (a *Account) levelScale(delta float64) float64 {
	top := 1e-3
	for _, s := range a.steps {
		p, err := s.profile()
		if err != nil {
			continue
		}
		target := delta / float64(s.Steps)
		// The profile is non-increasing: bisect for its eps at target.
		lo, hi := 0.0, math.Min(p.Upper, MaxEps)
		if p.Delta(lo) <= target {
			continue
		}
		for range 60 {
			mid := (lo + hi) / 2
			if p.Delta(mid) > target {
				lo = mid
			} else {
				hi = mid
			}
		}
		top = math.Max(top, 2*hi)
	}
	return top
}

// rootUp returns the smallest float eps >= 0 with f(eps) <= delta for a
// non-increasing f of upper bounds (adjacent floats bracket the switch):
// the upper side of the root; +Inf when f stays above delta up to MaxEps
// or up to upper, beyond which it is constant.
func rootUp(f func(float64) float64, delta, upper float64) float64 {
	if f(0) <= delta {
		return 0
	}
	hi := math.Min(MaxEps, upper)
	if f(hi) > delta {
		return math.Inf(1)
	}
	_, b := floatbits.Bisect(0, hi, func(e float64) bool { return f(e) <= delta })
	return b
}

// rootDown returns the largest float eps with f(eps) > delta for a
// non-increasing f of lower bounds (0 when f(0) <= delta; the end of the
// range when f stays above delta): below the smallest eps at which the
// exact function is <= delta.
func rootDown(f func(float64) float64, delta, upper float64) float64 {
	if f(0) <= delta {
		return 0
	}
	hi := math.Min(MaxEps, upper)
	if f(hi) > delta {
		return hi
	}
	a, _ := floatbits.Bisect(0, hi, func(e float64) bool { return f(e) <= delta })
	return a
}
