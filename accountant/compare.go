package accountant

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/bernamp/bernamp"
	"github.com/bernamp/bernamp/internal/floatbits"
	"github.com/bernamp/bernamp/mixing"
	"github.com/bernamp/bernamp/parallel"
	"github.com/bernamp/bernamp/rdp"
)

// Order is the amplified level at one order of a curve (Post) beside the
// generic RDP bounds from the coefficients of Balle et al. (2019)
// (mixing.Renyi): each an upper bound on the exact level, as PostUpper is;
// +Inf where the mechanism's eps is +Inf (they prove nothing there).
type Order struct {
	bernamp.Result
	Dobrushin, Doeblin, UltraMixing float64
}

// CrossCheck returns the first violated inequality of LB <= Post <=
// PostUpper <= UB and LB <= each comparator (every proved upper bound is
// at least the verified lower bound), within floatbits.Leq's rounding
// slack, or "". A violation is a bug.
func (o Order) CrossCheck() string {
	for _, x := range []struct {
		a, b   float64
		as, bs string
	}{
		{o.LB, o.Post, "lb", "post"}, {o.Post, o.PostUpper, "post", "post_upper"}, {o.PostUpper, o.UB, "post_upper", "ub"},
		{o.LB, o.Dobrushin, "lb", "dobrushin"}, {o.LB, o.Doeblin, "lb", "doeblin"}, {o.LB, o.UltraMixing, "lb", "ultra_mixing"},
	} {
		if !floatbits.Leq(x.a, x.b) {
			return fmt.Sprintf("%s=%s > %s=%s", x.as, fmtFloat(x.a), x.bs, fmtFloat(x.b))
		}
	}
	return ""
}

// Compare amplifies c order by order through the kernel (Post with
// settings s, orders solved by workers goroutines) beside the generic
// bounds (Order), and hands each order to emit in order of the curve as
// soon as it and those before it are known; the orders do not depend on
// workers. It returns the first error of a Post (wrapped with its order)
// or of emit, and ctx's error when cancelled.
func Compare(ctx context.Context, c Curve, k Kernel, s *bernamp.Settings, workers int, emit func(i int, o Order) error) error {
	if err := c.Validate(); err != nil {
		return fmt.Errorf("accountant.Compare: %w", err)
	}
	b, err := mixing.New(mixing.Kernel{D: k.D, K: k.K, C: k.C})
	if err != nil {
		return fmt.Errorf("accountant.Compare: %w", err)
	}
	do := func(ctx context.Context, i int) (Order, error) {
		alpha, eps := c.Orders[i], c.Eps[i]
		r, err := Post(ctx, k, alpha, eps, s)
		if err != nil {
			return Order{}, fmt.Errorf("order %s: %w", fmtFloat(alpha), err)
		}
		o := Order{Result: r, Dobrushin: eps, Doeblin: eps, UltraMixing: eps}
		if !math.IsInf(eps, 1) { // the generic bounds prove nothing at eps = inf
			o.Dobrushin = mixing.Renyi(b.Dobrushin, alpha, eps)
			o.Doeblin = mixing.Renyi(b.Doeblin, alpha, eps)
			o.UltraMixing = mixing.Renyi(b.UltraMixing, alpha, eps)
		}
		return o, nil
	}
	return parallel.Map(ctx, len(c.Orders), max(1, workers), do, emit)
}

// SummaryRow is one (eps, delta)-DP guarantee of Summary.
type SummaryRow struct {
	// Bound names the curve or theorem: mechanism (the input curve, not
	// amplified), bernamp (post_upper), rdp_<coefficient> (a comparator
	// column), thm1_<item> (Theorem 1 of Balle et al. on the mechanism's
	// (eps, delta) profile).
	Bound string   `json:"bound"`
	Eps   *float64 `json:"eps"`   // upper bound on the DP level; null when the bound proves nothing at delta
	Delta float64  `json:"delta"` // the target delta
	// Order attains eps in the conversion (for thm1_*, the order of the
	// mechanism's conversion at delta_in); null when none.
	Order   *float64 `json:"order"`
	DeltaIn *float64 `json:"delta_in,omitempty"` // thm1_*: the mechanism's delta the theorem was applied to
	EpsIn   *float64 `json:"eps_in,omitempty"`   // thm1_*: the mechanism's eps at delta_in
	Warning string   `json:"warning,omitempty"`  // the minimizing order is at the edge of the grid
}

// Column is an amplified curve of a summary by name: one level per order
// of the input curve, an upper bound at each (+Inf: none).
type Column struct {
	Name string
	Eps  []float64
}

// SummaryOf converts the input curve in (row "mechanism") and each
// column, each composed over t releases, to (eps, delta)-DP by conv
// (Convert), one row each in order. Each column is first made
// nondecreasing (Repair: valid, as R_alpha is nondecreasing in alpha).
// Orders where a curve is +Inf prove nothing and are left out of its
// conversion; a curve with none left gets a nil Eps. It also returns the
// first column as converted (made nondecreasing, composed). It is the one
// conversion behind the summaries of bernamp curve (Summary) and of the
// calculator page. It panics unless t >= 1.
func SummaryOf(in Curve, cols []Column, delta float64, conv rdp.Conversion, t int) ([]SummaryRow, Curve, error) {
	var out []SummaryRow
	add := func(name string, c Curve) error {
		g, err := Convert(c, t, delta, conv)
		if err != nil {
			return fmt.Errorf("accountant.Summary: %s: %w", name, err)
		}
		out = append(out, SummaryRow{Bound: name, Eps: g.Eps, Delta: delta, Order: g.Order, Warning: g.Warning})
		return nil
	}
	if err := add("mechanism", in); err != nil {
		return nil, Curve{}, err
	}
	var first Curve
	for i, col := range cols {
		if len(col.Eps) != len(in.Orders) {
			return nil, Curve{}, fmt.Errorf("accountant.Summary: %s has %d levels for a curve of %d orders", col.Name, len(col.Eps), len(in.Orders))
		}
		c := Curve{Orders: in.Orders, Eps: slices.Clone(col.Eps)}
		Repair(&c)
		if i == 0 {
			first = Compose(c, t)
		}
		if err := add(col.Name, c); err != nil {
			return nil, Curve{}, err
		}
	}
	return out, first, nil
}

// Summary is bernamp curve's summary: SummaryOf the input curve in with
// the columns bernamp (PostUpper of orders, one per order of in) and the
// comparators rdp_dobrushin, rdp_doeblin and rdp_ultra_mixing (Order's),
// then, for t = 1 only (Theorem 1 does not compose), the rows thm1_<item>:
// Theorem 1 of Balle et al. through the kernel applied to the input
// curve's (eps, delta) profile (mixing.Bounds.Approx; nil Eps where the
// item proves nothing). It also returns the amplified curve as converted
// (PostUpper made nondecreasing, composed), the curve --emit-curve writes.
// It panics unless t >= 1.
func Summary(in Curve, orders []Order, k Kernel, delta float64, conv rdp.Conversion, t int) ([]SummaryRow, Curve, error) {
	cols := []Column{{Name: "bernamp"}, {Name: "rdp_dobrushin"}, {Name: "rdp_doeblin"}, {Name: "rdp_ultra_mixing"}}
	for _, o := range orders {
		cols[0].Eps = append(cols[0].Eps, o.PostUpper)
		cols[1].Eps = append(cols[1].Eps, o.Dobrushin)
		cols[2].Eps = append(cols[2].Eps, o.Doeblin)
		cols[3].Eps = append(cols[3].Eps, o.UltraMixing)
	}
	out, amplified, err := SummaryOf(in, cols, delta, conv, t)
	if err != nil {
		return nil, Curve{}, err
	}
	if t > 1 {
		return out, amplified, nil
	}
	b, err := mixing.New(mixing.Kernel{D: k.D, K: k.K, C: k.C})
	if err != nil {
		return nil, Curve{}, fmt.Errorf("accountant.Summary: %w", err)
	}
	finite, ok := in.Finite()
	for _, it := range mixing.Items {
		s := SummaryRow{Bound: "thm1_" + it.String(), Delta: delta}
		if ok {
			cl, err := b.Approx(it, finite, conv, delta)
			if err != nil {
				return nil, Curve{}, err
			}
			if !cl.Vacuous {
				s.Eps, s.Order, s.DeltaIn, s.EpsIn = &cl.Eps, &cl.Order, &cl.DeltaIn, &cl.EpsIn
			}
		}
		out = append(out, s)
	}
	return out, amplified, nil
}
