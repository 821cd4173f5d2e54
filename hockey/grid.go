package hockey

import (
	"context"
	"fmt"
	"math"

	"github.com/bernamp/bernamp/parallel"
)

// GridProfile is the amplified privacy profile of one instance on the
// grid eps'_i = i Step, i = Lo..Hi (Lo = -Hi), with its connect-the-dots
// privacy loss distribution, in the shape of the PLD and PRV accountants
// (dp_accounting's value_discretization_interval is Step).
type GridProfile struct {
	Params         // EpsOut is not used (0)
	Step   float64 // grid step, nats
	Lo, Hi int     // the grid's ends, in steps
	// Epsilons[i] = (Lo + i) Step (float64 products, as numpy forms them).
	Epsilons []float64
	// Deltas is the valid profile: Envelope of Profile's upper bounds
	// (rounded up, nonincreasing, convex in e^eps'), above delta' at every
	// grid point (under Method's proof).
	Deltas []float64
	// Probs and InfinityMass are the connect-the-dots PLD of Deltas
	// (ConnectDots): Probs[i] on the loss Epsilons[i].
	Probs        []float64
	InfinityMass float64
	// Excess is sum(Probs) + InfinityMass - 1: the negative rounding
	// residues ConnectDots clipped to 0, as dp_accounting clips them (extra
	// mass at finite losses only raises delta at every eps: the
	// pessimistic side).
	Excess  float64
	Method  string  // Profile's Method: MethodCorners rests on the corner conjecture
	Seconds float64 // CPU time summed over the chunks of the grid
}

// ProfileGrid computes Profile on the grid i step, |i step| <= maxEps
// rounded out to a whole step (Hi = ceil(maxEps/step)), in chunks on
// workers goroutines: each eps' is computed alone, so the result does not
// depend on workers. Errors: those of Profile (invalid p, ErrTooLarge,
// ctx.Err()), and a step or maxEps that is not positive and finite.
func ProfileGrid(ctx context.Context, p Params, step, maxEps float64, workers int) (*GridProfile, error) {
	if !(step > 0) || math.IsInf(step, 1) || !(maxEps > 0) || math.IsInf(maxEps, 1) {
		return nil, fmt.Errorf("hockey.ProfileGrid: step %v and max %v must be > 0 and finite", step, maxEps)
	}
	p.EpsOut = 0
	n := int(math.Ceil(maxEps / step))
	eps := make([]float64, 2*n+1)
	for i := range eps {
		eps[i] = float64(i-n) * step
	}
	const chunk = 4096
	upper := make([]float64, 0, len(eps))
	g := &GridProfile{Params: p, Step: step, Lo: -n, Hi: n, Epsilons: eps}
	work := func(ctx context.Context, i int) (*ProfileResult, error) {
		return Profile(ctx, p, eps[i*chunk:min(len(eps), (i+1)*chunk)])
	}
	emit := func(_ int, r *ProfileResult) error {
		upper = append(upper, r.Upper...)
		g.Method, g.Seconds = r.Method, g.Seconds+r.Seconds
		return nil
	}
	if err := parallel.Map(ctx, (len(eps)+chunk-1)/chunk, max(1, workers), work, emit); err != nil {
		return nil, err
	}
	g.Deltas = Envelope(eps, upper)
	g.Probs, g.InfinityMass = ConnectDots(eps, g.Deltas)
	g.Excess = g.InfinityMass - 1
	for _, q := range g.Probs {
		g.Excess += q
	}
	return g, nil
}
