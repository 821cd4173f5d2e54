package puredp

import (
	"fmt"
	"math"

	"github.com/bernamp/bernamp/bounds"
	"github.com/bernamp/bernamp/mixing"
)

// LPTol is the largest relative difference Point.CrossCheck allows between
// the LP optimum and the closed form (the LP's accuracy, measured at 1e-11).
const LPTol = 1e-9

// Point is one answer of bernamp pure: an eps-DP mechanism on [C, 1-C]^D
// (or on Ranges) followed by K Bernoulli samples per coordinate. Levels are
// pure-DP levels in nats.
type Point struct {
	D, K   int
	C      float64        // 0 with Ranges
	Ranges []bounds.Range // per-coordinate ranges; nil for [C, 1-C]^D
	Eps    float64        // the mechanism's level
	// Level is the closed form with its enclosure: Level.Upper is above the
	// exact amplified level (claim it), Level.Lower below.
	Level Level
	// Asymptote is the level whatever eps (eps = +Inf), rounded up (above).
	Asymptote float64
	// UltraMixing is Balle et al.'s Theorem 1 item (4) with delta = 0, a
	// proved upper bound (above); nil with Ranges or past mixing.MaxFlips.
	UltraMixing *float64
	// LP is the optimum of the linear programs when asked (no proof of
	// either side; LP's limits apply), nil otherwise.
	LP *float64
}

// Solve computes the Point of (d, k, c, eps), or of (ranges, k, eps) when
// ranges is not nil (then d and c are ignored). With lp it also solves the
// linear programs (d <= MaxLPD, k <= MaxLPK, no ranges).
func Solve(d, k int, c float64, ranges []bounds.Range, eps float64, lp bool) (Point, error) {
	amplify := func(eps float64) (Level, error) { return Amplify(d, k, c, eps) }
	p := Point{D: d, K: k, C: c, Eps: eps}
	if ranges != nil {
		if lp {
			return Point{}, fmt.Errorf("puredp.Solve: the linear programs take no ranges")
		}
		amplify = func(eps float64) (Level, error) { return AmplifyRanges(ranges, k, eps) }
		p.D, p.C, p.Ranges = len(ranges), 0, ranges
	}
	inf, err := amplify(math.Inf(1))
	if err != nil {
		return Point{}, err
	}
	if p.Level, err = amplify(eps); err != nil {
		return Point{}, err
	}
	p.Asymptote = inf.Upper
	if ranges == nil {
		if mb, err := mixing.New(mixing.Kernel{D: d, K: k, C: c}); err == nil {
			um, _ := mb.Theorem1(mixing.UltraMixing, eps, 0)
			p.UltraMixing = &um
		}
	}
	if lp {
		res, err := LP(d, k, c, eps)
		if err != nil {
			return Point{}, err
		}
		p.LP = &res.Eps
	}
	return p, nil
}

// CrossCheck returns the first violated inequality among the sides of p,
// or "": Level.Lower <= Level.Eps <= Level.Upper, the LP optimum within
// LPTol of the closed form, Level.Lower <= min(eps, asymptote), and the
// comparator (an upper bound) not below Level.Lower. A violation is a bug.
func (p Point) CrossCheck() string {
	l := p.Level
	switch {
	case !(l.Lower <= l.Eps && l.Eps <= l.Upper):
		return fmt.Sprintf("eps_out %v outside [%v, %v]", l.Eps, l.Lower, l.Upper)
	case p.LP != nil && !(math.Abs(*p.LP-l.Upper) <= LPTol*l.Upper):
		return fmt.Sprintf("the LP gives %v, the closed form %v", *p.LP, l.Upper)
	case l.Lower > math.Min(p.Eps, p.Asymptote):
		return fmt.Sprintf("eps_out_lower %v > min(eps, asymptote) = %v", l.Lower, math.Min(p.Eps, p.Asymptote))
	case p.UltraMixing != nil && *p.UltraMixing < l.Lower:
		return fmt.Sprintf("ultra_mixing %v < eps_out_lower %v", *p.UltraMixing, l.Lower)
	}
	return ""
}
