package accountant

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/bernamp/bernamp"
	"github.com/bernamp/bernamp/certfile"
	"github.com/bernamp/bernamp/pld"
	"github.com/bernamp/bernamp/rdp"
)

// Composition is one question of compose: a mechanism released through a
// kernel, Steps times, asked for eps at Delta or (EpsQuery set) for delta
// at Eps.
type Composition struct {
	Mechanism pld.Profile
	Kernel    Kernel
	Steps     int
	// Delta > 0 asks for eps at delta; else Eps >= 0 asks for delta at eps.
	Delta, Eps float64
	// Source names the mechanism for the profile certificate (Routes.Check).
	Source Source
}

// Routes are the comparators of a Composition: the RDP route (the
// mechanism's RDP Curve amplified order by order by Post, composed, then
// converted; RDPRoute) and the mechanism's own PLD without amplification.
type Routes struct {
	// RDP is a planned RDP route (NewRDPRoute) whose questions include
	// the Composition; it takes the place of Curve, Conversion, Settings
	// and Workers, and keeps each kernel's amplified curve across calls.
	RDP *RDPRoute
	// Curve, without RDP, is the RDP route planned for this Composition
	// alone (NewRDPRoute, no budget) with Conversion, and Settings and
	// Workers of its Post per order. nil: no RDP route.
	Curve      *rdp.Curve
	Conversion rdp.Conversion
	Settings   *bernamp.Settings
	Workers    int
	NoAmp      bool // compute the unamplified mechanism's own PLD
	// NoLower skips the lower side (Claim.Lower is NaN): the claim alone,
	// several times faster at large T.
	NoLower bool
	// SinglePair > 0 computes the single-pair route: the amplified profile
	// of the one pair (SinglePair, delta_M(SinglePair)) (pld.Pair), which
	// is what `delta --profile` builds from one guarantee, composed.
	SinglePair float64
	// Check writes the profile certificate of Upper (Claim.Certificate,
	// certfile.KindProfile) and has the independent checker check it
	// (Claim.Check). Upper carries the checker's margin (withMargin) either way.
	Check bool
}

// Claim is the answer to a Composition: an interval for the exact value
// and the comparators, all in the unit asked for (eps in nats, or delta).
type Claim struct {
	// Upper is above the exact answer (the pessimistic PLD of the exact
	// amplified profile): claim it. Lower is below it (the attaining real
	// mechanism composed the optimistic way), NaN when the mechanism has no
	// known dominating pair.
	Upper, Lower float64
	// RDP is the RDP route's answer (an upper bound), NaN without it;
	// NoAmp the mechanism's own PLD composed (an upper bound on what is
	// claimable without amplification), NaN without it.
	RDP, NoAmp float64
	// Single is the single-pair route's answer (an upper bound, often
	// worse than NoAmp after composition), NaN without it.
	Single  float64
	Seconds float64 // wall time of Upper and Lower
	// H is the discretization used (chosen when opt.H was 0).
	H float64
	// Fwd and Rev are the composed pessimistic PLDs of Upper (Rev nil
	// when the mechanism is symmetric).
	Fwd, Rev *pld.PLD
	// Certificate is Upper's profile certificate and Check what the
	// independent checker said of it (Routes.Check; Check.Status
	// bernamp.CheckOff without it, CheckNone for a mechanism the checker
	// does not cover).
	Certificate *certfile.File
	Check       bernamp.Check
}

// ComposeClaim answers q: the composed pessimistic PLD of the exact
// amplified profile (pld.NewAccount) for Upper, the search over attaining
// mechanisms for Lower, and the routes r asks for. amplified, when not
// nil, caches the RDP route's amplified curve per kernel across calls
// (with r.Curve only); each of its orders is then solved (Amplify), not
// only those that could lower this answer (RDPRoute).
func ComposeClaim(ctx context.Context, q Composition, opt pld.Options, r Routes, amplified map[Kernel]rdp.Curve) (Claim, error) {
	if err := q.Kernel.Validate(); err != nil {
		return Claim{}, fmt.Errorf("accountant.ComposeClaim: %w", err)
	}
	n := q.Kernel.D * q.Kernel.K
	if q.Kernel.D > pld.MaxN/q.Kernel.K {
		return Claim{}, fmt.Errorf("accountant.ComposeClaim: d k = %d x %d exceeds %d", q.Kernel.D, q.Kernel.K, pld.MaxN)
	}
	start := time.Now()
	nan := math.NaN()
	c := Claim{Lower: nan, RDP: nan, NoAmp: nan, Single: nan}
	opt = fit(opt, q.Delta, q.Steps)
	acc, err := pld.NewAccount(ctx, []pld.Step{{Mechanism: q.Mechanism, N: n, C: q.Kernel.C, Steps: q.Steps}}, opt)
	if err != nil {
		return Claim{}, err
	}
	c.Fwd, c.Rev = acc.PLDs()
	c.H = acc.H()
	opt.H = c.H // the comparators on the same grid
	byDelta := q.Delta > 0
	if c.Upper, c.Lower, err = answer(ctx, acc, q.Delta, q.Eps, !r.NoLower); err != nil {
		return Claim{}, err
	}
	c.Upper = withMargin(c.Upper, byDelta, q.Steps)
	c.Seconds = time.Since(start).Seconds()
	c.Check.Status = bernamp.CheckOff
	if r.Check {
		certifyProfile(ctx, q, acc, &c)
		if err := ctx.Err(); err != nil {
			return Claim{}, err
		}
	}
	if r.NoAmp {
		if c.NoAmp, err = unamplified(ctx, []pld.Step{{Mechanism: q.Mechanism, Steps: q.Steps}}, q.Delta, q.Eps, opt); err != nil {
			return Claim{}, err
		}
	}
	if r.SinglePair > 0 {
		pair, err := pld.Pair(r.SinglePair, math.Max(q.Mechanism.Forward(r.SinglePair), q.Mechanism.Rev().Forward(r.SinglePair)))
		if err != nil {
			return Claim{}, err
		}
		// The pair's profile is flat at its delta: at large n and T its
		// composition may not fit, and then the comparator is left out.
		sp, err := pld.NewAccount(ctx, []pld.Step{{Mechanism: pair, N: n, C: q.Kernel.C, Steps: q.Steps}}, opt)
		switch {
		case errors.Is(err, pld.ErrTooLarge):
		case err != nil:
			return Claim{}, err
		case byDelta:
			c.Single = sp.EpsUpper(q.Delta)
		default:
			c.Single = sp.DeltaUpper(q.Eps)
		}
	}
	switch {
	case r.RDP != nil:
		if c.RDP, err = r.RDP.Answer(ctx, q); err != nil {
			return Claim{}, err
		}
	case r.Curve != nil && amplified == nil:
		route, err := NewRDPRoute(FromRDP(*r.Curve), r.Conversion, []Composition{q}, RouteOptions{Settings: r.Settings, Workers: r.Workers})
		if err != nil {
			return Claim{}, err
		}
		if c.RDP, err = route.Answer(ctx, q); err != nil {
			return Claim{}, err
		}
	case r.Curve != nil:
		amp, ok := amplified[q.Kernel]
		if !ok {
			amp, _, err = Amplify(ctx, FromRDP(*r.Curve), q.Kernel, r.Settings, r.Workers)
			if err != nil {
				if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
					return Claim{}, err
				}
				return Claim{}, fmt.Errorf("rdp route: %w", err)
			}
			amplified[q.Kernel] = amp
		}
		if c.RDP, err = (&RDPRoute{conv: r.Conversion}).convert(amp, question{q.Kernel, q.Steps, q.Delta, q.Eps}); err != nil {
			return Claim{}, err
		}
	}
	return c, nil
}

// answer returns the upper and (with lower) lower side of acc: eps at
// delta when delta > 0, else delta at eps.
func answer(ctx context.Context, acc *pld.Account, delta, eps float64, lower bool) (up, lo float64, err error) {
	lo = math.NaN()
	if delta > 0 {
		up = acc.EpsUpper(delta)
		if lower {
			lo, err = acc.EpsLower(ctx, delta)
		}
	} else {
		up = acc.DeltaUpper(eps)
		if lower {
			lo, err = acc.DeltaLower(ctx, eps)
		}
	}
	return up, lo, err
}

// unamplified returns the upper side of the steps with every mechanism's
// own output released (no Bernoulli samples).
func unamplified(ctx context.Context, steps []pld.Step, delta, eps float64, opt pld.Options) (float64, error) {
	own := make([]pld.Step, len(steps))
	for i, s := range steps {
		own[i] = pld.Step{Mechanism: s.Mechanism, Steps: s.Steps}
	}
	acc, err := pld.NewAccount(ctx, own, opt)
	if err != nil {
		return 0, err
	}
	up, _, err := answer(ctx, acc, delta, eps, false)
	return up, err
}

// ComposePlan answers a heterogeneous composition (pld.ReadPlan): eps at
// delta when delta > 0, else delta at eps, with Lower when every step has
// a lower side (pld.Account.HasLower) and NoAmp when noAmp. The RDP and
// single-pair routes are not computed (RDP and Single are NaN). With
// check, Upper's profile certificate of every kind composed (kinds name
// plan's steps, PlanKinds; nil: not covered, bernamp.CheckNone) is
// written and checked, as Routes.Check; without, Check is
// bernamp.CheckOff.
func ComposePlan(ctx context.Context, plan []pld.Step, kinds []PlanKind, delta, eps float64, opt pld.Options, noAmp, check bool) (Claim, error) {
	start := time.Now()
	nan := math.NaN()
	c := Claim{Lower: nan, RDP: nan, NoAmp: nan, Single: nan}
	total := 0
	for _, s := range plan {
		total += s.Steps
	}
	if kinds != nil && len(kinds) != len(plan) {
		return Claim{}, fmt.Errorf("accountant.ComposePlan: %d kinds named for %d steps", len(kinds), len(plan))
	}
	opt = fit(opt, delta, total)
	acc, err := pld.NewAccount(ctx, plan, opt)
	if err != nil {
		return Claim{}, err
	}
	c.Fwd, c.Rev = acc.PLDs()
	c.H = acc.H()
	opt.H = c.H
	if c.Upper, c.Lower, err = answer(ctx, acc, delta, eps, true); err != nil {
		return Claim{}, err
	}
	c.Upper = withMargin(c.Upper, delta > 0, total)
	c.Seconds = time.Since(start).Seconds()
	c.Check.Status = bernamp.CheckOff
	switch {
	case check && kinds == nil:
		c.Check.Status = bernamp.CheckNone
	case check:
		certifyPlan(ctx, kinds, delta, eps, acc, &c)
		if err := ctx.Err(); err != nil {
			return Claim{}, err
		}
	}
	if noAmp {
		if c.NoAmp, err = unamplified(ctx, plan, delta, eps, opt); err != nil {
			return Claim{}, err
		}
	}
	return c, nil
}

// fit returns opt with the masses it sends to infinity (the composition's
// truncation, and the profile's grid tail over all steps) at most delta/1000,
// so that they cannot decide an answer at delta: dp_accounting's fixed
// 1e-15 would make every eps infinite at delta = 1e-16.
func fit(opt pld.Options, delta float64, steps int) pld.Options {
	if !(delta > 0) {
		return opt
	}
	opt.Truncation = math.Max(math.Min(opt.Truncation, delta/1000), 0x1p-1000)
	opt.Tail = math.Max(math.Min(opt.Tail, delta/1000/float64(max(steps, 1))), 0x1p-1000)
	return opt
}
