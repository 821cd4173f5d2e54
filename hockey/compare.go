package hockey

import (
	"context"
	"fmt"
	"strconv"

	"github.com/bernamp/bernamp/internal/floatbits"
	"github.com/bernamp/bernamp/mixing"
)

// Comparison is the amplified delta' at one eps' (Result of Delta) beside
// the generic bounds of Theorem 1 of Balle et al. (2019) for the same
// kernel and mechanism.
type Comparison struct {
	*Result
	// Theorem1[i] is the delta' of item mixing.Items[i] (mixing.Bounds.
	// Theorem1, rounded up) when the item's eps' is <= EpsOut: an upper
	// bound on delta'(EpsOut), as delta' does not grow with eps'. nil when
	// the item's eps' exceeds EpsOut (it proves nothing there).
	Theorem1 [4]*float64
}

// Compare returns Delta at each eps' of epsOuts (p.EpsOut is ignored),
// each with the comparators of Theorem 1 (Comparison). It returns an error
// for invalid p (Params.Validate, or d k above mixing.MaxFlips), for an
// instance above MaxWork and when ctx is cancelled.
func Compare(ctx context.Context, p Params, epsOuts []float64) ([]Comparison, error) {
	b, err := mixing.New(mixing.Kernel{D: p.D, K: p.K, C: p.C})
	if err != nil {
		return nil, fmt.Errorf("hockey.Compare: %w", err)
	}
	var theorem [4][2]float64 // per item: eps', delta'
	for i, it := range mixing.Items {
		theorem[i][0], theorem[i][1] = b.Theorem1(it, p.Eps, p.Delta)
	}
	out := make([]Comparison, 0, len(epsOuts))
	for _, eo := range epsOuts {
		p.EpsOut = eo
		res, err := Delta(ctx, p)
		if err != nil {
			return nil, err
		}
		c := Comparison{Result: res}
		for i := range theorem {
			if theorem[i][0] <= eo {
				v := theorem[i][1]
				c.Theorem1[i] = &v
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// CrossCheck returns the first violated inequality of Lower <= Upper and
// Lower <= each comparator of Theorem1 (every upper bound on delta' is at
// least the verified lower bound), within floatbits.Leq's rounding slack,
// or "". A violation is a bug.
func (c Comparison) CrossCheck() string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	if !floatbits.Leq(c.Lower, c.Upper) {
		return fmt.Sprintf("delta_out=%s > delta_out_upper=%s", f(c.Lower), f(c.Upper))
	}
	for i, v := range c.Theorem1 {
		if v != nil && !floatbits.Leq(c.Lower, *v) {
			return fmt.Sprintf("delta_out=%s > %s=%s", f(c.Lower), mixing.Items[i], f(*v))
		}
	}
	return ""
}
