package accountant

import (
	"context"
	"fmt"
	"math"

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

// Summary converts the input curve in, the amplified curve (PostUpper of
// orders, one per order of in) and the comparator curves (Order's
// columns), each composed over t releases, to (eps, delta)-DP by conv
// (Convert), and (for t = 1 only: it does not compose) applies Theorem 1
// of Balle et al. through the kernel to the input curve's (eps, delta)
// profile (mixing.Bounds.Approx). Orders where a curve is +Inf prove
// nothing and are left out of its conversion; a curve with none left gets
// a nil Eps. Each amplified curve is first made nondecreasing (Repair:
// valid, as R_alpha is nondecreasing in alpha). It also returns the
// amplified curve as converted (PostUpper made nondecreasing, composed).
// It is bernamp curve's summary. It panics unless t >= 1.
func Summary(in Curve, orders []Order, k Kernel, delta float64, conv rdp.Conversion, t int) ([]SummaryRow, Curve, error) {
	if len(orders) != len(in.Orders) {
		return nil, Curve{}, fmt.Errorf("accountant.Summary: %d orders for a curve of %d", len(orders), len(in.Orders))
	}
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
	var amplified Curve
	for _, col := range []struct {
		name string
		get  func(Order) float64
	}{
		{"bernamp", func(o Order) float64 { return o.PostUpper }},
		{"rdp_dobrushin", func(o Order) float64 { return o.Dobrushin }},
		{"rdp_doeblin", func(o Order) float64 { return o.Doeblin }},
		{"rdp_ultra_mixing", func(o Order) float64 { return o.UltraMixing }},
	} {
		c := Curve{Orders: in.Orders, Eps: make([]float64, len(orders))}
		for i, o := range orders {
			c.Eps[i] = col.get(o)
		}
		Repair(&c)
		if col.name == "bernamp" {
			amplified = Compose(c, t)
		}
		if err := add(col.name, c); err != nil {
			return nil, Curve{}, err
		}
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
