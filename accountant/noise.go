package accountant

import (
	"fmt"
	"math"
	"time"

	"github.com/bernamp/bernamp"
	"github.com/bernamp/bernamp/rdp"
)

// NoiseCurve returns Problem.Noise for a mechanism whose one parameter is
// its noise: "gaussian" (rdp.Gaussian, x the noise multiplier sigma) or
// "laplace" (rdp.Laplace, x the scale b), on orders (nil:
// rdp.DefaultOrders). Where the curve at x cannot be formed (a level
// overflows float64) the returned curve is +Inf at every order: no
// guarantee from the mechanism, the safe side. It returns an error for
// another mechanism or invalid orders.
func NoiseCurve(mechanism string, orders []float64) (func(x float64) Curve, error) {
	var curve func(x float64, orders []float64) (rdp.Curve, error)
	switch mechanism {
	case "gaussian":
		curve = rdp.Gaussian
	case "laplace":
		curve = rdp.Laplace
	default:
		return nil, fmt.Errorf("accountant.NoiseCurve: mechanism is %q, must be gaussian or laplace", mechanism)
	}
	if _, err := curve(1, orders); err != nil { // the orders, checked once
		return nil, fmt.Errorf("accountant.NoiseCurve: %w", err)
	}
	if orders == nil {
		orders = rdp.DefaultOrders()
	}
	return func(x float64) Curve {
		c, err := curve(x, orders)
		if err != nil {
			c = rdp.Curve{Orders: orders, Eps: make([]float64, len(orders))}
			for i := range c.Eps {
				c.Eps[i] = math.Inf(1)
			}
		}
		return FromRDP(c)
	}, nil
}

// The work estimate of Problem.Work: one bernamp.Post takes about
// postSecondsBase + postSecondsPerCost x bernamp.Params.Cost seconds,
// capped by its time limit. Rough, set from runs at d = 1 on a 2-core
// machine (k = 1: 18 ms a Post over the 156 default orders; k = 100: 0.16
// to 1.2 s, 0.3 s on the Gaussian curve's orders).
const (
	postSecondsBase    = 0.02
	postSecondsPerCost = 3e-5
)

// Work estimates the Post time of Calibrate on p, in seconds summed over
// workers, before the search starts: orders x MinEvals (the fewest
// candidates the search computes) x the estimated time of one Post at the
// kernel (at k = 2, the larger of SolveK's fewest candidates), each Post
// capped by timeout (0: none). It is a rough estimate from below of the
// search (more candidates may be computed), for refusing a calibration
// too large before it starts. It also returns the parts: the candidates,
// the seconds per Post and the k they were estimated at.
func (p Problem) Work(orders int, timeout time.Duration) (work float64, evals int, perPost float64, k int) {
	kern := p.Kernel
	if p.Solve == SolveK {
		kern.K = 2
	}
	perPost = postSecondsBase + postSecondsPerCost*bernamp.Params{D: kern.D, K: kern.K}.Cost()
	if timeout > 0 {
		perPost = min(perPost, timeout.Seconds())
	}
	evals = p.MinEvals()
	return float64(orders) * float64(evals) * perPost, evals, perPost, kern.K
}
