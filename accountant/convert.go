package accountant

import "github.com/bernamp/bernamp/rdp"

// Approx is one (eps, delta)-DP guarantee converted from an RDP curve.
// Eps is an upper bound on the DP level at Delta (above the truth), nil
// when the curve proves nothing (every order +Inf).
type Approx struct {
	Eps     *float64 `json:"eps"`
	Delta   float64  `json:"delta"`
	Order   *float64 `json:"order"`             // the order attaining Eps
	Warning string   `json:"warning,omitempty"` // the minimizing order is at the edge of the grid
}

// Convert composes c over t releases (Compose) and converts it to
// (eps, delta)-DP by conv (rdp.ToApprox); orders where c is +Inf prove
// nothing and are left out. It is the one conversion behind the summaries
// of bernamp curve and of the calculator page. It panics unless t >= 1.
func Convert(c Curve, t int, delta float64, conv rdp.Conversion) (Approx, error) {
	f, ok := Compose(c, t).Finite()
	if !ok {
		return Approx{Delta: delta}, nil
	}
	a, err := rdp.ToApprox(f, delta, conv)
	if err != nil {
		return Approx{}, err
	}
	return Approx{Eps: &a.Eps, Delta: delta, Order: &a.Order, Warning: a.Warning}, nil
}
