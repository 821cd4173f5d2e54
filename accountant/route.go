package accountant

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/bernamp/bernamp"
	"github.com/bernamp/bernamp/parallel"
	"github.com/bernamp/bernamp/rdp"
)

// RouteOptions tunes an RDPRoute.
type RouteOptions struct {
	// Settings are Post's at each order solved (nil: every default); its
	// Timeout is the most one order's solve, and separately its check
	// (Settings.Check), may take.
	Settings *bernamp.Settings
	// Workers is the number of orders solved at once (<= 0: 1). The
	// values do not depend on it.
	Workers int
	// Budget > 0 caps the route's solving time: the solves and checks of
	// its orders, their measured times summed (Result.Seconds; the wall
	// time is at most about Budget over Workers). Each kernel's orders are
	// solved when its first answer is asked, most to gain first, in
	// batches of RouteBatch; an order of a batch gets min(Settings.Timeout,
	// left / (RouteBatch w)) for its solve and as much for its check, left
	// the budget not yet spent and w = 2 with Settings.Check, 1 without.
	// Where that would be under MinOrderTime the budget is spent: the
	// orders not yet solved keep the closed form UB (RouteStats.Unsolved).
	// 0: no cap (each order solved at Settings.Timeout).
	Budget time.Duration
	// Progress, when not nil, is called after each order solved or left
	// to the closed form with the number of such orders so far and of the
	// useful ones (RouteStats), on the goroutine that called Answer.
	Progress func(done, useful int)
}

// MinOrderTime is the least time limit a Budget gives an order it solves:
// below it the budget is spent and the orders left keep the closed form.
const MinOrderTime = 20 * time.Millisecond

// RouteBatch is the number of orders solved between two looks at a
// Budget (at most Workers of them at once): a constant, so that which
// orders are solved does not depend on Workers.
const RouteBatch = 8

// RouteStats counts what an RDPRoute did with the orders of its kernels.
type RouteStats struct {
	// Orders is the number of (kernel, order) pairs of the route.
	Orders int
	// Useful are those whose solve could lower some answer asked
	// (NewRDPRoute); the others keep the closed form UB at no loss.
	Useful int
	// Solved are the useful orders solved so far, Unsolved those the
	// budget left at the closed form UB.
	Solved, Unsolved int
	// Spent is the time of the solves and checks so far (measured).
	Spent time.Duration
}

// RDPRoute is the RDP comparator of compose: the mechanism's RDP curve
// amplified order by order through each kernel, composed over the steps
// and converted to (eps, delta) (ComposeClaim's Claim.RDP). Every value it
// returns is an upper bound on what the conversion proves for the
// amplified mechanism (the safe side): at each order it uses an upper
// bound on the amplified level, Post's proved PostUpper where the order
// is solved and the closed form UB = min(eps, d k r_alpha(c)) where it is
// not, made nondecreasing in alpha (rdp.FromBounds).
//
// Most orders cannot lower an answer, and those are not solved. Write
// A(u) for the answer from the per-order upper bounds u; A is a minimum
// over orders i of a function increasing in min_{j >= i} u_j. Order j
// is solved only when A with UB everywhere but LB_j (the closed-form lower
// bound, below every PostUpper) at order j is below A with UB everywhere,
// for some question asked. If not, no value of order j at or above LB_j
// lowers any term of the minimum below the answer, so leaving every such
// order at UB gives the same answer as solving them all (with the same
// settings): the pruning loses nothing. What the budget (RouteOptions)
// leaves unsolved is counted in RouteStats.Unsolved; those orders keep
// UB, which is above their PostUpper, so the answer stays an upper bound
// and may only be looser.
//
// Which orders are solved and their time limits depend on the questions,
// the options and, with a Budget, the measured times of the solves before
// them, not on Workers; as in Post, a solve cut short by its time limit
// keeps the bound proved so far.
type RDPRoute struct {
	curve   Curve
	conv    rdp.Conversion
	opt     RouteOptions
	kernels map[Kernel]*routeKernel
	asked   map[question]bool
	stats   RouteStats
}

// question is what an answer depends on besides the curve and kernel.
type question struct {
	k          Kernel
	steps      int
	delta, eps float64
}

// routeKernel is a kernel's part of the route.
type routeKernel struct {
	lb, ub []float64 // closed-form bounds per order (asymptotes at eps = +Inf)
	gain   []float64 // largest relative gain of solving the order (0: none)
	solve  []int     // useful orders, most to gain first
	amp    *rdp.Curve
}

// NewRDPRoute plans the RDP route of curve c for the questions qs (their
// Kernel, Steps and Delta or Eps; Mechanism and Source are not used): it
// computes the closed-form bounds of every order at every kernel and keeps
// the orders that could lower some answer, most to gain first. Nothing is
// solved until Answer. It returns an error for an invalid curve, kernel or
// question.
func NewRDPRoute(c Curve, conv rdp.Conversion, qs []Composition, o RouteOptions) (*RDPRoute, error) {
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("accountant.NewRDPRoute: %w", err)
	}
	r := &RDPRoute{curve: c, conv: conv, opt: o, kernels: map[Kernel]*routeKernel{}, asked: map[question]bool{}}
	var order []Kernel
	for _, q := range qs {
		if err := q.Kernel.Validate(); err != nil {
			return nil, fmt.Errorf("accountant.NewRDPRoute: %w", err)
		}
		if q.Steps < 1 || !(q.Delta > 0 && q.Delta < 1) && !(q.Delta == 0 && q.Eps >= 0 && !math.IsInf(q.Eps, 1)) {
			return nil, fmt.Errorf("accountant.NewRDPRoute: steps %d, delta %v, eps %v: want steps >= 1 and delta in (0, 1) or eps >= 0 finite", q.Steps, q.Delta, q.Eps)
		}
		rk := r.kernels[q.Kernel]
		if rk == nil {
			var err error
			if rk, err = r.bounds(q.Kernel); err != nil {
				return nil, err
			}
			r.kernels[q.Kernel] = rk
			order = append(order, q.Kernel)
		}
		qq := question{q.Kernel, q.Steps, q.Delta, q.Eps}
		if r.asked[qq] {
			continue
		}
		r.asked[qq] = true
		if err := r.gains(rk, qq); err != nil {
			return nil, err
		}
	}
	for _, k := range order {
		rk := r.kernels[k]
		r.stats.Orders += len(rk.lb)
		for i, g := range rk.gain {
			if g > 0 {
				rk.solve = append(rk.solve, i)
			}
		}
		// The most to gain first; ties in the order of the curve.
		slices.SortStableFunc(rk.solve, func(a, b int) int { return cmp.Compare(rk.gain[b], rk.gain[a]) })
		r.stats.Useful += len(rk.solve)
	}
	return r, nil
}

// limit returns the time limit of each order of a batch of n under the
// budget, with left of it not yet spent, and false when the budget is
// spent (RouteOptions.Budget).
func (r *RDPRoute) limit(left time.Duration, n int) (time.Duration, bool) {
	var timeout time.Duration
	w := time.Duration(1)
	if s := r.opt.Settings; s != nil {
		timeout = s.Timeout
		if s.Check {
			w = 2
		}
	}
	if r.opt.Budget <= 0 {
		return timeout, true
	}
	limit := left / (w * time.Duration(max(n, 1)))
	if timeout > 0 && timeout <= limit {
		return timeout, true
	}
	least := MinOrderTime
	if timeout > 0 {
		least = min(least, timeout)
	}
	return limit, limit >= least
}

// bounds returns a kernel's closed-form bounds at every order of the
// curve: LB and UB of bernamp.Bounds, or at eps = +Inf the asymptote
// rounded down and up (Post).
func (r *RDPRoute) bounds(k Kernel) (*routeKernel, error) {
	n := len(r.curve.Orders)
	rk := &routeKernel{lb: make([]float64, n), ub: make([]float64, n), gain: make([]float64, n)}
	for i, a := range r.curve.Orders {
		var res bernamp.Result
		var err error
		if e := r.curve.Eps[i]; math.IsInf(e, 1) {
			res, err = Post(context.Background(), k, a, e, nil)
		} else {
			res, err = bernamp.Bounds(bernamp.Params{D: k.D, K: k.K, C: k.C, Alpha: a, Eps: e})
		}
		if err != nil {
			return nil, fmt.Errorf("accountant.NewRDPRoute: order %v: %w", a, err)
		}
		rk.lb[i], rk.ub[i] = res.LB, res.UB
	}
	return rk, nil
}

// gains raises rk.gain[j] to the relative drop of q's answer when order j
// alone goes from UB to LB (RDPRoute: 0 means solving j cannot lower it).
func (r *RDPRoute) gains(rk *routeKernel, q question) error {
	a, err := r.answerAt(rk.ub, q)
	if err != nil {
		return err
	}
	if !(a > 0) {
		return nil
	}
	u := slices.Clone(rk.ub)
	for j := range u {
		if !(rk.lb[j] < rk.ub[j]) {
			continue
		}
		u[j] = rk.lb[j]
		aj, err := r.answerAt(u, q)
		u[j] = rk.ub[j]
		if err != nil {
			return err
		}
		if aj < a {
			rk.gain[j] = max(rk.gain[j], (a-aj)/a)
		}
	}
	return nil
}

// answerAt is q's answer from the per-order upper bounds up: made
// nondecreasing, composed Steps times, converted at Delta (eps) or at Eps
// (delta).
func (r *RDPRoute) answerAt(up []float64, q question) (float64, error) {
	amp, err := rdp.FromBounds(r.curve.Orders, up)
	if err != nil {
		return 0, fmt.Errorf("rdp route: %w", err)
	}
	return r.convert(amp, q)
}

// convert composes the amplified curve and converts it.
func (r *RDPRoute) convert(amp rdp.Curve, q question) (float64, error) {
	composed, _ := Compose(FromRDP(amp), q.steps).Finite()
	if q.delta > 0 {
		a, err := rdp.ToApprox(composed, q.delta, r.conv)
		if err != nil {
			return 0, fmt.Errorf("rdp route: %w", err)
		}
		return a.Eps, nil
	}
	d, _, err := rdp.DeltaAt(composed, q.eps, r.conv)
	if err != nil {
		return 0, fmt.Errorf("rdp route: %w", err)
	}
	return d, nil
}

// Answer returns the route's answer to q, a question given to
// NewRDPRoute: eps at q.Delta, or delta at q.Eps. The first answer at a
// kernel solves its useful orders (RouteOptions.Workers at once) while
// the budget lasts and keeps the amplified curve. A cancelled ctx returns
// its error.
func (r *RDPRoute) Answer(ctx context.Context, q Composition) (float64, error) {
	qq := question{q.Kernel, q.Steps, q.Delta, q.Eps}
	rk := r.kernels[q.Kernel]
	if rk == nil || !r.asked[qq] {
		return 0, fmt.Errorf("accountant.RDPRoute.Answer: %+v was not planned by NewRDPRoute", qq)
	}
	if rk.amp == nil {
		if err := r.solve(ctx, q.Kernel, rk); err != nil {
			return 0, err
		}
	}
	return r.convert(*rk.amp, qq)
}

// solve runs Post at the kernel's useful orders, most to gain first, in
// batches of RouteBatch while the budget lasts, and sets its curve.
func (r *RDPRoute) solve(ctx context.Context, k Kernel, rk *routeKernel) error {
	var s bernamp.Settings
	if r.opt.Settings != nil {
		s = *r.opt.Settings
	}
	up := slices.Clone(rk.ub)
	report := func() {
		if r.opt.Progress != nil {
			r.opt.Progress(r.stats.Solved+r.stats.Unsolved, r.stats.Useful)
		}
	}
	for start := 0; start < len(rk.solve); start += RouteBatch {
		batch := rk.solve[start:min(start+RouteBatch, len(rk.solve))]
		limit, ok := r.limit(r.opt.Budget-r.stats.Spent, len(batch))
		if !ok {
			r.stats.Unsolved += len(rk.solve) - start
			report()
			break
		}
		s.Timeout = limit
		do := func(ctx context.Context, j int) (bernamp.Result, error) {
			i := batch[j]
			res, err := Post(ctx, k, r.curve.Orders[i], r.curve.Eps[i], &s)
			if err != nil {
				return res, fmt.Errorf("order %v: %w", r.curve.Orders[i], err)
			}
			return res, nil
		}
		emit := func(j int, res bernamp.Result) error {
			up[batch[j]] = res.PostUpper
			r.stats.Solved++
			r.stats.Spent += time.Duration(res.Seconds * float64(time.Second))
			report()
			return nil
		}
		err := parallel.Map(ctx, len(batch), max(1, r.opt.Workers), do, emit)
		if err == nil {
			err = ctx.Err() // a solve cut short keeps a proved bound, but the caller asked to stop
		}
		if err != nil {
			if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
				return err
			}
			return fmt.Errorf("rdp route: %w", err)
		}
	}
	amp, err := rdp.FromBounds(r.curve.Orders, up)
	if err != nil {
		return fmt.Errorf("rdp route: %w", err)
	}
	rk.amp = &amp
	return nil
}

// Stats returns what the route found useful and has solved so far.
func (r *RDPRoute) Stats() RouteStats { return r.stats }
