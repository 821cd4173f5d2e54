package accountant

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/bernamp/bernamp"
	"github.com/bernamp/bernamp/rdp"
)

// Unknown names the parameter Calibrate solves for.
type Unknown int

const (
	// SolveC finds the smallest range constant c in (0, 1/2) that meets
	// the target. Privacy grows with c ([c', 1-c']^d is inside [c, 1-c]^d
	// for c' > c, so Post can only drop), and utility falls with it (theta
	// is clipped harder), so the smallest c is the useful end.
	SolveC Unknown = iota
	// SolveK finds the largest number of samples k >= 1 that meets the
	// target: Post grows with k (dropping a sample is post-processing).
	SolveK
	// SolveNoise finds the smallest noise parameter x > 0 (Gaussian sigma,
	// Laplace b) of Problem.Noise that meets the target: the mechanism's
	// curve drops as x grows.
	SolveNoise
)

// Target is an (Eps, Delta)-DP guarantee to reach after Steps releases.
type Target struct {
	Eps, Delta float64 // the target; Eps in nats, >= 0; 0 < Delta < 1
	Steps      int     // releases composed, >= 1
	Conversion rdp.Conversion
}

// Problem is a calibration: find the unknown whose proved amplified
// guarantee after Target.Steps releases meets Target.
type Problem struct {
	Target Target
	Solve  Unknown
	Kernel Kernel // the kernel; its field named by Solve is ignored
	// Curve is the mechanism's curve (SolveC, SolveK).
	Curve Curve
	// Noise returns the mechanism's curve at noise x > 0 (SolveNoise);
	// +Inf where a level overflows.
	Noise func(x float64) Curve
	// Resolution is the relative width at which the bisection stops
	// (SolveC, SolveNoise): the answer hi and a failing lo with hi - lo <=
	// Resolution hi. 0 means 1e-3.
	Resolution float64
	// MaxK bounds the search of SolveK; 0 means 1 << 14.
	MaxK     int
	Settings *bernamp.Settings // for bernamp.Post at each order
	Workers  int               // orders solved in parallel
}

// Answer is the result of Calibrate.
type Answer struct {
	// Value is the answer (c, k or the noise): at Value the proved
	// amplified guarantee after Steps releases is (Eps, Delta)-DP with Eps
	// <= the target. It is on the safe side of the exact boundary only as
	// far as the bounds go: every candidate is judged by proved upper
	// bounds, so the exact optimum may lie further out, never the other
	// way for Value itself.
	Value float64
	Eps   float64 // the proved eps at Value
	Order float64 // the order attaining Eps
	// Fail is the nearest value tried that did not meet the target by the
	// proved bounds (NaN when none was tried: the bracket's open end), and
	// FailEps its eps.
	Fail, FailEps float64
	// Any is true when every value of the unknown meets the target: the
	// mechanism alone (SolveC, SolveK) or the sampling alone, eps = inf at
	// every order (SolveNoise). Value is then 0 for c and the noise (any
	// value works) and MaxK for k.
	Any   bool
	Evals int // amplified curves computed
}

// Guarantee returns the (eps, delta) guarantee of t releases of the
// mechanism with curve c through the kernel: the amplified curve (Amplify)
// composed t times, converted at delta. It is an upper bound on the exact
// eps of the conversion.
func Guarantee(ctx context.Context, c Curve, k Kernel, tg Target, s *bernamp.Settings, workers int) (rdp.Approx, error) {
	amp, _, err := Amplify(ctx, c, k, s, workers)
	if err != nil {
		return rdp.Approx{}, err
	}
	return rdp.ToApprox(Compose(FromRDP(amp), tg.Steps).asRDP(), tg.Delta, tg.Conversion)
}

// asRDP returns a finite curve as an rdp.Curve.
func (c Curve) asRDP() rdp.Curve { return rdp.Curve{Orders: c.Orders, Eps: c.Eps} }

// MinEvals returns the fewest amplified curves Calibrate computes on p
// when its search runs to the end (no early answer: any, or an impossible
// target), from the bracket alone, for sizing the work before it starts.
// For SolveC the first try at c near 1/2 and then at least log2(1/res)
// halvings of [0, 1/2) before hi - lo <= res hi; for SolveNoise the
// sampling alone, the noise 1, one step of the bracket (a ratio of 2) and
// at least log2(ln 2 / -ln(1 - res)) halvings of log(hi/lo); for SolveK
// k = 1 and k = 2 (the doubling may stop at the first failure). The search
// may compute many more (SolveC: about log2(1/(2 c res)) halvings for an
// answer c; the doubling of the noise or of k).
func (p Problem) MinEvals() int {
	res := p.Resolution
	if res == 0 {
		res = 1e-3
	}
	if !(res > 0 && res < 1) {
		return 1
	}
	switch p.Solve {
	case SolveC:
		return 1 + int(math.Ceil(-math.Log2(res)))
	case SolveNoise:
		return 3 + max(0, int(math.Ceil(math.Log2(math.Ln2/-math.Log1p(-res)))))
	case SolveK:
		return 2
	}
	return 1
}

// Calibrate solves p by bisection on proved bounds: a candidate meets the
// target when Guarantee's eps is <= Target.Eps, and the answer is always a
// candidate that met it. The search assumes the guarantee is monotone in
// the unknown (true of the exact amplified level; the proved bounds follow
// it up to their tolerance), so Fail says where the search saw the target
// missed. It returns an error for invalid input or when no value of the
// unknown meets the target (the target is below what the conversion gives
// even for a perfectly private release at these orders).
func Calibrate(ctx context.Context, p Problem) (Answer, error) {
	tg := p.Target
	if !(tg.Eps >= 0) || math.IsInf(tg.Eps, 1) {
		return Answer{}, fmt.Errorf("accountant.Calibrate: target eps is %v, must be >= 0 and finite", tg.Eps)
	}
	if err := rdp.CheckDelta(tg.Delta); err != nil {
		return Answer{}, fmt.Errorf("accountant.Calibrate: %w", err)
	}
	if tg.Steps < 1 {
		return Answer{}, fmt.Errorf("accountant.Calibrate: steps is %d, must be >= 1", tg.Steps)
	}
	res := p.Resolution
	if res == 0 {
		res = 1e-3
	}
	if !(res > 0 && res < 1) {
		return Answer{}, fmt.Errorf("accountant.Calibrate: resolution is %v, must be in (0, 1)", res)
	}
	ans := Answer{Fail: math.NaN(), FailEps: math.NaN()}
	// try evaluates the guarantee at kernel k and curve c.
	try := func(k Kernel, c Curve) (rdp.Approx, error) {
		ans.Evals++
		return Guarantee(ctx, c, k, tg, p.Settings, p.Workers)
	}
	ok := func(a rdp.Approx) bool { return a.Eps <= tg.Eps }
	set := func(v float64, a rdp.Approx) { ans.Value, ans.Eps, ans.Order = v, a.Eps, a.Order }
	fail := func(v float64, a rdp.Approx) { ans.Fail, ans.FailEps = v, a.Eps }
	// judge tries the value x by at and records it as the answer (set)
	// or the nearest miss (fail); it reports whether x met the target.
	judge := func(x float64, at func(float64) (rdp.Approx, error)) (bool, error) {
		a, err := at(x)
		if err != nil {
			return false, err
		}
		if ok(a) {
			set(x, a)
			return true, nil
		}
		fail(x, a)
		return false, nil
	}
	// bisect narrows the bracket between good, a value that met the
	// target, and bad, one that missed it: until done(good, bad) it judges
	// mid(good, bad) and moves good or bad there.
	bisect := func(good, bad float64, mid func(good, bad float64) float64, done func(good, bad float64) bool, at func(float64) (rdp.Approx, error)) error {
		for !done(good, bad) {
			x := mid(good, bad)
			met, err := judge(x, at)
			if err != nil {
				return err
			}
			if met {
				good = x
			} else {
				bad = x
			}
		}
		return nil
	}
	// relative: the bracket is within res of its good end (c, the noise).
	relative := func(good, bad float64) bool { return !(math.Abs(good-bad) > res*good) }

	// alone reports whether the mechanism alone, composed, meets the target.
	alone := func(c Curve) (bool, error) {
		f, finite := Compose(c, tg.Steps).Finite()
		if !finite {
			return false, nil
		}
		a, err := rdp.ToApprox(f, tg.Delta, tg.Conversion)
		return err == nil && ok(a), err
	}

	switch p.Solve {
	case SolveC:
		k := p.Kernel
		k.C = 0.25 // placeholder for Validate
		if err := k.Validate(); err != nil {
			return Answer{}, fmt.Errorf("accountant.Calibrate: %w", err)
		}
		if err := p.Curve.Validate(); err != nil {
			return Answer{}, fmt.Errorf("accountant.Calibrate: %w", err)
		}
		if any, err := alone(p.Curve); err != nil || any {
			ans.Any = any
			return ans, err
		}
		// hi: the largest c tried, near 1/2; lo = 0 fails (as c -> 0 the
		// kernel releases theta itself and the mechanism alone misses).
		lo, hi := 0.0, 0.5-0x1p-30
		k.C = hi
		a, err := try(k, p.Curve)
		if err != nil {
			return Answer{}, err
		}
		if !ok(a) {
			return Answer{}, fmt.Errorf("accountant.Calibrate: no c in (0, 1/2) meets eps %v: even c = %v gives %v", tg.Eps, hi, a.Eps)
		}
		set(hi, a)
		arithmetic := func(good, bad float64) float64 { return (bad + good) / 2 }
		at := func(c float64) (rdp.Approx, error) { k.C = c; return try(k, p.Curve) }
		if err := bisect(hi, lo, arithmetic, relative, at); err != nil {
			return Answer{}, err
		}
		return ans, nil

	case SolveK:
		k := p.Kernel
		k.K = 1
		if err := k.Validate(); err != nil {
			return Answer{}, fmt.Errorf("accountant.Calibrate: %w", err)
		}
		if err := p.Curve.Validate(); err != nil {
			return Answer{}, fmt.Errorf("accountant.Calibrate: %w", err)
		}
		maxK := p.MaxK
		if maxK == 0 {
			maxK = 1 << 14
		}
		if any, err := alone(p.Curve); err != nil || any {
			ans.Any, ans.Value = any, float64(maxK)
			return ans, err
		}
		at := func(x float64) (rdp.Approx, error) { k.K = int(x); return try(k, p.Curve) }
		a, err := at(1)
		if err != nil {
			return Answer{}, err
		}
		if !ok(a) {
			return Answer{}, fmt.Errorf("accountant.Calibrate: no k >= 1 meets eps %v: k = 1 gives %v", tg.Eps, a.Eps)
		}
		set(1, a)
		good, bad := 1, 0 // bad = 0: none found yet
		for bad == 0 && good < maxK {
			next := min(2*good, maxK)
			met, err := judge(float64(next), at)
			if err != nil {
				return Answer{}, err
			}
			if met {
				good = next
			} else {
				bad = next
			}
		}
		if bad != 0 {
			// integers below 1 << 53: the float64 arithmetic is exact
			whole := func(good, bad float64) float64 { return good + math.Floor((bad-good)/2) }
			adjacent := func(good, bad float64) bool { return !(bad-good > 1) }
			if err := bisect(float64(good), float64(bad), whole, adjacent, at); err != nil {
				return Answer{}, err
			}
		}
		return ans, nil

	case SolveNoise:
		if p.Noise == nil {
			return Answer{}, errors.New("accountant.Calibrate: SolveNoise needs Problem.Noise")
		}
		k := p.Kernel
		if err := k.Validate(); err != nil {
			return Answer{}, fmt.Errorf("accountant.Calibrate: %w", err)
		}
		at := func(x float64) (rdp.Approx, error) {
			c := p.Noise(x)
			if err := c.Validate(); err != nil {
				return rdp.Approx{}, fmt.Errorf("accountant.Calibrate: noise %v: %w", x, err)
			}
			return try(k, c)
		}
		// The sampling alone: eps = inf at every order.
		orders := p.Noise(1).Orders
		inf := Curve{Orders: orders, Eps: make([]float64, len(orders))}
		for i := range inf.Eps {
			inf.Eps[i] = math.Inf(1)
		}
		a, err := try(k, inf)
		if err != nil {
			return Answer{}, err
		}
		if ok(a) {
			ans.Any = true
			set(0, a)
			return ans, nil
		}
		fail(0, a)
		// Bracket [lo, hi] by doubling or halving from 1.
		const maxNoise, minNoise = 0x1p40, 0x1p-40
		x := 1.0
		a, err = at(x)
		if err != nil {
			return Answer{}, err
		}
		lo, hi := 0.0, x
		if ok(a) {
			set(x, a)
			for lo == 0 && hi > minNoise {
				y := hi / 2
				met, err := judge(y, at)
				if err != nil {
					return Answer{}, err
				}
				if met {
					hi = y
				} else {
					lo = y
				}
			}
			if lo == 0 {
				return ans, nil // meets it down to minNoise
			}
		} else {
			lo = x
			fail(x, a)
			for {
				y := lo * 2
				if y > maxNoise {
					return Answer{}, fmt.Errorf("accountant.Calibrate: no noise up to %v meets eps %v (it gives %v)", maxNoise, tg.Eps, ans.FailEps)
				}
				met, err := judge(y, at)
				if err != nil {
					return Answer{}, err
				}
				if met {
					hi = y
					break
				}
				lo = y
			}
		}
		// the scale of the noise is unknown: bisect log(noise)
		geometric := func(good, bad float64) float64 { return math.Sqrt(bad * good) }
		if err := bisect(hi, lo, geometric, relative, at); err != nil {
			return Answer{}, err
		}
		return ans, nil
	}
	return Answer{}, fmt.Errorf("accountant.Calibrate: unknown Solve %d", p.Solve)
}
