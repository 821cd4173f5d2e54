package rdp

import (
	"fmt"
	"math"
)

// Conversion names a theorem that turns (alpha, eps)-RDP into (eps',
// delta)-DP for every delta in (0, 1).
type Conversion int

const (
	// Balle2020 is Theorem 21 of Balle, Barthe, Gaboardi, Hsu and Sato,
	// "Hypothesis testing interpretations and Renyi differential privacy"
	// (AISTATS 2020); also Canonne, Kamath and Steinke 2020, Proposition 12:
	//
	//	eps' = eps + log((alpha-1)/alpha) - (log delta + log alpha) / (alpha-1).
	//
	// It is what dp_accounting and Opacus use, and tighter than Mironov2017
	// at every order: the difference is log(1 - 1/alpha) - log(alpha)/(alpha-1)
	// < 0.
	Balle2020 Conversion = iota
	// Mironov2017 is Proposition 3 of Mironov, "Rényi differential
	// privacy" (CSF 2017), the original and looser conversion:
	//
	//	eps' = eps + log(1/delta) / (alpha-1).
	Mironov2017
	// DPAccounting is the rule of Google's dp_accounting
	// (rdp_privacy_accountant.compute_epsilon and compute_delta), for
	// parity with its numbers. Per order:
	//
	//	eps' = 0          when delta^2 + expm1(-eps) > 0,
	//	eps' = Balle2020  else when alpha > 1.01 (unclamped),
	//	none              otherwise,
	//
	// and delta(eps') = min( sqrt(1 - e^-eps), Balle2020's delta when
	// alpha > 1.01 ). The KL line is the Bretagnolle-Huber inequality
	// TV(P, Q) <= sqrt(1 - e^-KL(P||Q)) with KL = R_1 <= R_alpha <= eps:
	// TV < delta is (0, delta)-DP, so every line is a theorem. Across
	// orders the minimum is taken before clamping at 0, as dp_accounting
	// does, so the reported order is dp_accounting's. bernamp rounds each
	// value up (and takes the KL line only where it holds beyond rounding):
	// the result is dp_accounting's number to within a few ulps, never
	// below the exact value of the rule.
	DPAccounting
)

// String returns "balle2020", "mironov2017" or "dp_accounting", the
// names ParseConversion accepts.
func (c Conversion) String() string {
	switch c {
	case Balle2020:
		return "balle2020"
	case Mironov2017:
		return "mironov2017"
	case DPAccounting:
		return "dp_accounting"
	}
	return fmt.Sprintf("Conversion(%d)", int(c))
}

// ParseConversion returns the Conversion named s by String.
func ParseConversion(s string) (Conversion, error) {
	for _, c := range conversions {
		if s == c.String() {
			return c, nil
		}
	}
	return 0, fmt.Errorf("conversion is %q, must be %s, %s or %s", s, Balle2020, Mironov2017, DPAccounting)
}

// conversions lists the known conversions.
var conversions = []Conversion{Balle2020, Mironov2017, DPAccounting}

// known reports whether c is a known conversion.
func (c Conversion) known() bool { return c >= Balle2020 && c <= DPAccounting }

// dpAccountingMinOrder is the order at or below which dp_accounting skips
// the Balle2020 line ("not numerically stable as alpha -> 1").
const dpAccountingMinOrder = 1.01

// CheckDelta returns an error unless 0 < delta < 1 (NaN is rejected).
func CheckDelta(delta float64) error {
	if !(delta > 0 && delta < 1) {
		return fmt.Errorf("delta is %v, must be in (0, 1)", delta)
	}
	return nil
}

// Eps returns the eps' of the conversion for an (alpha, eps)-RDP mechanism
// at delta, clamped at 0 ((eps', delta)-DP with eps' < 0 implies (0,
// delta)-DP). The result is rounded up: it is an upper bound on the exact
// formula. For DPAccounting it is +Inf at an order where the rule gives no
// bound (alpha <= 1.01 and the KL line fails). It panics unless alpha > 1
// is finite, eps >= 0 is finite and 0 < delta < 1.
func (c Conversion) Eps(alpha, eps, delta float64) float64 {
	return math.Max(0, c.raw(alpha, eps, delta))
}

// raw is Eps before the clamp at 0 (padded by the rounding allowance, so
// still an upper bound on the exact formula).
func (c Conversion) raw(alpha, eps, delta float64) float64 {
	if !(alpha > 1) || math.IsInf(alpha, 1) || !(eps >= 0) || math.IsInf(eps, 1) || !(delta > 0 && delta < 1) {
		panic("rdp: Conversion.Eps: alpha, eps or delta outside its domain")
	}
	logDelta := math.Log(delta)
	var v, mag float64 // value and the sum of the magnitudes of its terms
	switch c {
	case DPAccounting:
		if klZero(eps, delta) {
			return 0
		}
		if !(alpha > dpAccountingMinOrder) {
			return math.Inf(1)
		}
		fallthrough
	case Balle2020:
		t2 := math.Log1p(-1 / alpha)
		t3 := (logDelta + math.Log(alpha)) / (alpha - 1)
		v = eps + t2 - t3
		mag = eps + math.Abs(t2) + (math.Abs(logDelta)+math.Log(alpha))/(alpha-1)
	case Mironov2017:
		t := -logDelta / (alpha - 1)
		v, mag = eps+t, eps+t
	default:
		panic("rdp: unknown Conversion")
	}
	// Each term is within 4 ulps of its exact value (a log, a division,
	// alpha - 1 and a sum of two logs), and summing three terms adds two
	// roundings: 8 ulps of the magnitudes bounds the total error.
	const ulp = 0x1p-52
	v += 8 * ulp * mag
	if v <= 0 {
		return v
	}
	return math.Nextafter(v, math.Inf(1))
}

// klZero reports whether delta^2 + expm1(-eps) > 0 holds beyond rounding:
// dp_accounting's KL line, sqrt(1 - e^-eps) < delta, which makes the
// mechanism (0, delta)-DP. The two terms are each within an ulp and their
// sum adds one rounding, so a sum above 4 ulps of their magnitudes is
// positive in exact arithmetic too.
func klZero(eps, delta float64) bool {
	const ulp = 0x1p-52
	d2, e := delta*delta, math.Expm1(-eps)
	return d2+e > 4*ulp*(d2-e)
}

// Approx is an (Eps, Delta)-DP guarantee obtained from an RDP curve.
type Approx struct {
	Eps   float64 // upper bound on the DP level at Delta, in nats, >= 0
	Delta float64 // in (0, 1)
	// Order is the order of the curve that attains Eps (the smallest such
	// order on ties) and Index its position in the curve.
	Order float64
	Index int
	// Warning is nonempty when the minimum is at the smallest or largest
	// of several orders with Eps > 0: an order beyond the grid might give
	// a smaller Eps, so the grid is too narrow (the accountants warn alike).
	Warning string
}

// ToApprox converts the RDP curve c to (eps, delta)-DP with conv, taking
// the minimum over the orders of c:
//
//	eps = min_i conv.Eps(Orders[i], Eps[i], delta).
//
// Every order gives a valid guarantee, so the minimum does; it is rounded up
// (an upper bound on the exact minimum). Since the mechanism is (alpha,
// Eps[i])-RDP with Eps[i] an upper bound on its exact RDP level, the result
// is an upper bound on what the conversion proves for the mechanism. It
// returns an error for an invalid curve or delta outside (0, 1).
func ToApprox(c Curve, delta float64, conv Conversion) (Approx, error) {
	if err := c.Validate(); err != nil {
		return Approx{}, fmt.Errorf("rdp.ToApprox: %w", err)
	}
	if err := CheckDelta(delta); err != nil {
		return Approx{}, fmt.Errorf("rdp.ToApprox: %w", err)
	}
	if err := conv.check(c); err != nil {
		return Approx{}, fmt.Errorf("rdp.ToApprox: %w", err)
	}
	return approx(c, delta, conv), nil
}

// check returns an error for an unknown conversion, or for DPAccounting
// on a curve with no order above 1.01 (where it could prove nothing).
func (conv Conversion) check(c Curve) error {
	if !conv.known() {
		return fmt.Errorf("unknown conversion %v", conv)
	}
	if conv == DPAccounting && !(c.Orders[len(c.Orders)-1] > dpAccountingMinOrder) {
		return fmt.Errorf("conversion %s needs an order above %v", conv, dpAccountingMinOrder)
	}
	return nil
}

// approx is ToApprox on valid arguments. DPAccounting takes the minimum
// before the clamp at 0, as dp_accounting does (its order is then the one
// dp_accounting reports); the others take the first order that attains the
// clamped minimum.
func approx(c Curve, delta float64, conv Conversion) Approx {
	best := Approx{Eps: math.Inf(1), Delta: delta}
	for i, a := range c.Orders {
		e := conv.raw(a, c.Eps[i], delta)
		if conv != DPAccounting {
			e = math.Max(0, e)
		}
		if e < best.Eps {
			best.Eps, best.Order, best.Index = e, a, i
		}
	}
	best.Eps = math.Max(0, best.Eps)
	if n := len(c.Orders); n > 1 && best.Eps > 0 {
		switch best.Index {
		case 0:
			best.Warning = fmt.Sprintf("the minimum over orders is at the smallest order alpha = %v: smaller orders might give a smaller eps", best.Order)
		case n - 1:
			best.Warning = fmt.Sprintf("the minimum over orders is at the largest order alpha = %v: larger orders might give a smaller eps", best.Order)
		}
	}
	return best
}

// Profile returns the function delta -> ToApprox(c, delta, conv) for a
// curve c already validated, for callers that evaluate it many times
// (e.g. the mixing comparators, which search over delta). It returns an
// error for an invalid curve or conversion; the function it returns panics
// for delta outside (0, 1).
func Profile(c Curve, conv Conversion) (func(delta float64) Approx, error) {
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("rdp.Profile: %w", err)
	}
	if err := conv.check(c); err != nil {
		return nil, fmt.Errorf("rdp.Profile: %w", err)
	}
	return func(delta float64) Approx {
		if err := CheckDelta(delta); err != nil {
			panic("rdp: Profile: " + err.Error())
		}
		return approx(c, delta, conv)
	}, nil
}

// deltaULP is the unit of DeltaAt's rounding padding, 2^-52.
const deltaULP = 0x1p-52

// DeltaAt returns the delta at which a mechanism with RDP curve c is
// (epsOut, delta)-DP by the conversion conv, the inverse of ToApprox in
// delta: the minimum over the orders of
//
//	Balle2020:   log delta_i = (alpha-1) (eps_i + log(1 - 1/alpha) - epsOut) - log alpha,
//	Mironov2017: log delta_i = (alpha-1) (eps_i - epsOut),
//	DPAccounting: log delta_i = min( log(1 - e^-eps_i)/2, Balle2020's when alpha > 1.01 ),
//
// capped at 1 (the conversions solved for delta). The result is rounded up
// (an upper bound on the exact minimum: each log is padded by 8 ulps of the
// magnitudes of its terms) and order is the order that attains it (the
// smallest on ties). It returns an error for an invalid curve, an unknown
// conversion or epsOut < 0 or not finite.
func DeltaAt(c Curve, epsOut float64, conv Conversion) (delta, order float64, err error) {
	if err := c.Validate(); err != nil {
		return 0, 0, fmt.Errorf("rdp.DeltaAt: %w", err)
	}
	if !(epsOut >= 0) || math.IsInf(epsOut, 1) {
		return 0, 0, fmt.Errorf("rdp.DeltaAt: eps_out is %v, must be >= 0 and finite", epsOut)
	}
	if err := conv.check(c); err != nil {
		return 0, 0, fmt.Errorf("rdp.DeltaAt: %w", err)
	}
	best := math.Inf(1)
	for i, a := range c.Orders {
		var l, mag float64
		switch conv {
		case DPAccounting:
			// KL line: log delta = log(1 - e^-eps)/2, from -expm1 (no
			// cancellation at small eps, unlike dp_accounting's
			// log1p(-exp(-eps))); within 2 ulps plus an ulp of the log.
			l = math.Inf(-1)
			if r := c.Eps[i]; r > 0 {
				l = 0.5 * math.Log(-math.Expm1(-r))
				l += 4 * deltaULP * (math.Abs(l) + 1)
			}
			if a > dpAccountingMinOrder {
				t := math.Log1p(-1 / a)
				lb := (a-1)*(c.Eps[i]+t-epsOut) - math.Log(a)
				lb += 8 * deltaULP * ((a-1)*(c.Eps[i]+math.Abs(t)+epsOut) + math.Log(a))
				l = math.Min(l, lb)
			}
		case Balle2020:
			t := math.Log1p(-1 / a)
			l = (a-1)*(c.Eps[i]+t-epsOut) - math.Log(a)
			mag = (a-1)*(c.Eps[i]+math.Abs(t)+epsOut) + math.Log(a)
		case Mironov2017:
			l = (a - 1) * (c.Eps[i] - epsOut)
			mag = (a - 1) * (c.Eps[i] + epsOut)
		default:
			return 0, 0, fmt.Errorf("rdp.DeltaAt: unknown conversion %v", conv)
		}
		if l += 8 * deltaULP * mag; l < best {
			best, order = l, a
		}
	}
	if best >= 0 {
		return 1, order, nil
	}
	if math.IsInf(best, -1) {
		return 0, order, nil // an order with eps = 0
	}
	return math.Nextafter(math.Exp(best)*(1+4*deltaULP), math.Inf(1)), order, nil
}
