// Package rdp holds Rényi differential privacy curves: the RDP level
// eps(alpha) of a mechanism at a list of orders alpha, as privacy
// accountants export them, the curves of three standard mechanisms, and the
// conversion of a curve to an (eps, delta)-DP guarantee. Reading and writing
// an accountant's curve (CSV or JSON, with inf orders) is package accountant's.
//
// A mechanism M is (alpha, eps)-RDP when R_alpha(M(D) || M(D')) <= eps for
// every pair of neighbouring datasets, with
//
//	R_alpha(P || Q) = log( sum_b P_b^alpha Q_b^(1-alpha) ) / (alpha-1)
//
// (Mironov, "Rényi differential privacy", CSF 2017). All levels are in nats.
// Every number this package returns for a mechanism or a conversion is an
// upper bound on the exact value, rounded up where floating point could
// otherwise land below it: a privacy claim built from it stays valid.
package rdp

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/bernamp/bernamp/bounds"
	"github.com/bernamp/bernamp/check"
	"github.com/bernamp/bernamp/internal/floatbits"
	"github.com/bernamp/bernamp/internal/logspace"
)

// Curve is an RDP curve: the mechanism is (Orders[i], Eps[i])-RDP for
// every i. A valid curve (see Validate) has at least one order, orders
// strictly increasing, each > 1 and finite, and Eps nondecreasing, each >= 0
// and finite: R_alpha is nondecreasing in alpha, so a decreasing curve
// cannot be the exact curve of any mechanism, and an exported one that
// decreases signals a bug or a mislabelled column.
type Curve struct {
	Orders []float64 // Rényi orders alpha, > 1 and finite, strictly increasing
	Eps    []float64 // RDP level at Orders[i], in nats, >= 0 and finite
}

// Validate returns an error naming the first entry of c outside its
// domain, or nil for a valid curve.
func (c Curve) Validate() error {
	return CheckCurve(c.Orders, c.Eps, func(i int) error {
		if err := check.Eps(c.Eps[i]); err != nil {
			return err
		}
		if i > 0 && c.Eps[i] < c.Eps[i-1] {
			return fmt.Errorf("eps %v at alpha %v is below eps %v at alpha %v (an RDP curve is nondecreasing in alpha)",
				c.Eps[i], c.Orders[i], c.Eps[i-1], c.Orders[i-1])
		}
		return nil
	})
}

// CheckCurve checks what every RDP curve shares: as many eps values as
// orders, at least one order, each order > 1, finite and above the
// previous one; epsOK checks the eps value at index i (curves differ
// there: Curve wants it finite and nondecreasing, an accountant's curve
// allows +Inf). Errors name the order.
func CheckCurve(orders, eps []float64, epsOK func(i int) error) error {
	if len(orders) != len(eps) {
		return fmt.Errorf("curve has %d orders and %d eps values", len(orders), len(eps))
	}
	if len(orders) == 0 {
		return errors.New("curve has no orders")
	}
	for i, a := range orders {
		if err := check.Alpha(a); err != nil {
			return fmt.Errorf("order %d: %w", i+1, err)
		}
		if i > 0 && a <= orders[i-1] {
			return fmt.Errorf("order %d: alpha %v does not exceed the previous order %v (orders must be strictly increasing)", i+1, a, orders[i-1])
		}
		if err := epsOK(i); err != nil {
			return fmt.Errorf("order %d (alpha %v): %w", i+1, a, err)
		}
	}
	return nil
}

// DefaultOrders returns the orders of Google's dp_accounting RDP accountant
// (the reference accountant; TensorFlow Privacy defers to it):
//
//	1.1, 1.2, ..., 10.9 (step 0.1), 11, 12, ..., 63, 128, 256, 512, 1024,
//
// 156 orders. Opacus uses 1.1..10.9 and 12..63, a subset. A curve amplified
// on these orders can be fed back to either accountant. Each value is the
// float64 nearest to its decimal.
func DefaultOrders() []float64 {
	orders := make([]float64, 0, 156)
	for i := 11; i <= 109; i++ {
		orders = append(orders, float64(i)/10) // correctly rounded: i and 10 are exact
	}
	for a := 11; a <= 63; a++ {
		orders = append(orders, float64(a))
	}
	return append(orders, 128, 256, 512, 1024)
}

// checkOrders returns a validated copy of orders, or DefaultOrders for nil.
func checkOrders(orders []float64) ([]float64, error) {
	if orders == nil {
		return DefaultOrders(), nil
	}
	if len(orders) == 0 {
		return nil, errors.New("no orders")
	}
	for i, a := range orders {
		if err := check.Alpha(a); err != nil {
			return nil, fmt.Errorf("order %d: %w", i+1, err)
		}
		if i > 0 && a <= orders[i-1] {
			return nil, fmt.Errorf("order %d: alpha %v does not exceed the previous order %v (orders must be strictly increasing)", i+1, a, orders[i-1])
		}
	}
	return slices.Clone(orders), nil
}

// Ulps by which the mechanism curves are rounded up, each above the
// float64 error of its formula.
const (
	gaussianUlps = 4  // alpha / (2 sigma^2): three roundings, each half an ulp
	rrUlps       = 16 // bounds.Renyi is accurate to a few ulps
)

// Gaussian returns the RDP curve of the Gaussian mechanism with L2
// sensitivity 1 and noise multiplier sigma (noise N(0, sigma^2)):
//
//	eps(alpha) = alpha / (2 sigma^2)
//
// (Mironov 2017, Proposition 7), exact for this mechanism. nil orders means
// DefaultOrders. It returns an error unless sigma > 0 is finite and the
// orders are > 1, finite and strictly increasing.
func Gaussian(sigma float64, orders []float64) (Curve, error) {
	if !(sigma > 0) || math.IsInf(sigma, 1) {
		return Curve{}, fmt.Errorf("rdp.Gaussian: sigma is %v, must be > 0 and finite", sigma)
	}
	orders, err := checkOrders(orders)
	if err != nil {
		return Curve{}, fmt.Errorf("rdp.Gaussian: %w", err)
	}
	s := 2 * sigma * sigma
	exactS := math.FMA(sigma, sigma, -s/2) == 0 // doubling is exact
	eps := make([]float64, len(orders))
	for i, a := range orders {
		eps[i] = a / s
		if !exactS || math.FMA(eps[i], s, -a) != 0 {
			eps[i] = floatbits.Up(eps[i], gaussianUlps) // leave exact quotients (sigma = 2: alpha/8) as they are
		}
		if math.IsInf(eps[i], 1) {
			return Curve{}, fmt.Errorf("rdp.Gaussian: eps overflows at alpha %v with sigma %v", a, sigma)
		}
	}
	return Curve{Orders: orders, Eps: eps}, nil
}

// Laplace returns the RDP curve of the Laplace mechanism with L1
// sensitivity 1 and scale b (noise density e^(-|x|/b) / (2b)):
//
//	eps(alpha) = log( alpha/(2 alpha-1) e^((alpha-1)/b) + (alpha-1)/(2 alpha-1) e^(-alpha/b) ) / (alpha-1)
//
// (Mironov 2017, Proposition 6), exact for this mechanism; it increases to
// the pure-DP level 1/b as alpha grows. nil orders means DefaultOrders. It
// returns an error unless b > 0 is finite and the orders are valid.
func Laplace(b float64, orders []float64) (Curve, error) {
	if !(b > 0) || math.IsInf(b, 1) {
		return Curve{}, fmt.Errorf("rdp.Laplace: b is %v, must be > 0 and finite", b)
	}
	orders, err := checkOrders(orders)
	if err != nil {
		return Curve{}, fmt.Errorf("rdp.Laplace: %w", err)
	}
	eps := make([]float64, len(orders))
	for i, a := range orders {
		v, rel := laplaceRDP(a, 1/b)
		eps[i] = floatbits.Up(v*(1+rel), 2)
		if math.IsInf(eps[i], 1) || math.IsNaN(eps[i]) { // NaN: 1/b overflowed
			return Curve{}, fmt.Errorf("rdp.Laplace: eps overflows at alpha %v with b %v", a, b)
		}
	}
	// The formula is nondecreasing in alpha; rounding must not break that
	// where the curve is flat to within ulps (large alpha, large 1/b).
	for i := 1; i < len(eps); i++ {
		eps[i] = math.Max(eps[i], eps[i-1])
	}
	return Curve{Orders: orders, Eps: eps}, nil
}

// laplaceRDP returns the Laplace RDP level at order a for x = 1/b.
//
// The sum S inside the log has weights a/(2a-1) + (a-1)/(2a-1) = 1, so
//
//	(2a-1)(S - 1) = a g((a-1) x) + (a-1) g(-a x),  g(u) = e^u - 1 - u >= 0.
//
// Both terms are nonnegative: no cancellation, even for large b where S - 1
// is about a(a-1) x^2 / 2 while each exponential is near 1. With log g from
// logG, (a-1) eps = log(1 + (S-1)) = softplus(log(S-1)).
//
// It also returns a bound rel on the relative error of the result. The
// logs t1, t2 and log(2a-1) that make up l = log(S-1) carry an absolute
// error of a few ulps of their size plus a few ulps from logG (x = 1/b and
// the products included), so dl = 8 ulps times (the sum of their magnitudes
// + 8) bounds the error of l. Softplus turns an error dl in l into a
// relative error of at most dl sigma(l)/softplus(l) <= dl min(1, 1/|l|).
func laplaceRDP(a, x float64) (eps, rel float64) {
	t1, t2 := math.Log(a)+logG((a-1)*x), math.Log(a-1)+logG(-a*x)
	l := logspace.Add(t1, t2) - math.Log(2*a-1)
	const ulp = 0x1p-52
	dl := 8 * ulp * (math.Abs(t1) + math.Abs(t2) + math.Log(2*a-1) + 8)
	return logspace.Softplus(l) / (a - 1), dl * math.Min(1, 1/math.Abs(l))
}

// logG returns log(e^u - 1 - u) for u != 0 (-Inf at 0), accurate to a few
// ulps relative in e^u - 1 - u.
func logG(u float64) float64 {
	switch {
	case u == 0:
		return math.Inf(-1)
	case math.Abs(u) <= 1:
		// sum_{n>=2} u^n/n!: each term at most 1/(n+1) of the one before,
		// so the sum is within a factor 2 of its first term u^2/2 and the
		// alternating case (u < 0) loses no precision.
		term := u * u / 2
		s := term
		for n := 3; n < 40; n++ {
			term *= u / float64(n)
			s += term
			if math.Abs(term) < 1e-17*s {
				break
			}
		}
		return math.Log(s)
	case math.IsInf(u, 1):
		return u
	case u > 30:
		// e^u (1 - (1+u) e^-u), without overflow of e^u.
		return u + math.Log1p(-(1+u)*math.Exp(-u))
	case u > 0:
		// expm1(u) >= u + u^2/2 > 1.5 u: the subtraction loses under 2 bits.
		return math.Log(math.Expm1(u) - u)
	}
	return math.Log(-u - 1 + math.Exp(u)) // u < -1: both terms positive
}

// RandomizedResponse returns the RDP curve of binary randomized response
// that reports the true bit with probability p and the flipped bit with
// probability 1-p:
//
//	eps(alpha) = r_alpha(p) = log( p^alpha (1-p)^(1-alpha) + (1-p)^alpha p^(1-alpha) ) / (alpha-1),
//
// the Rényi divergence between Bernoulli(p) and Bernoulli(1-p) (bounds.Renyi,
// symmetric in p and 1-p), exact for this mechanism. Randomized response
// that is eps0-DP (local DP) has p = e^eps0 / (1 + e^eps0); see RRProb.
// p = 1/2 gives the zero curve. nil orders means DefaultOrders. It returns
// an error unless 0 < p < 1 and the orders are valid.
func RandomizedResponse(p float64, orders []float64) (Curve, error) {
	if !(p > 0 && p < 1) {
		return Curve{}, fmt.Errorf("rdp.RandomizedResponse: p is %v, must be in (0, 1)", p)
	}
	orders, err := checkOrders(orders)
	if err != nil {
		return Curve{}, fmt.Errorf("rdp.RandomizedResponse: %w", err)
	}
	q := p
	if q > 0.5 {
		q = 1 - p // exact for p in [1/2, 1] (Sterbenz)
	}
	eps := make([]float64, len(orders))
	for i, a := range orders {
		eps[i] = bounds.Renyi(a, q) // 0 only at q = 1/2, where it is exact
		if eps[i] > 0 {
			eps[i] = floatbits.Up(eps[i], rrUlps)
		}
		if math.IsInf(eps[i], 1) {
			return Curve{}, fmt.Errorf("rdp.RandomizedResponse: eps overflows at alpha %v with p %v", a, p)
		}
		if i > 0 {
			eps[i] = math.Max(eps[i], eps[i-1])
		}
	}
	return Curve{Orders: orders, Eps: eps}, nil
}

// FromBounds returns the curve of a mechanism known to be (orders[i],
// upper[i])-RDP for every i, made nondecreasing: R_alpha is nondecreasing
// in alpha, so (alpha2, e)-RDP implies (alpha1, e)-RDP for alpha1 < alpha2,
// and
//
//	Eps[i] = min_{j >= i} upper[j]
//
// is a valid level at orders[i], at most upper[i]. Bounds proved order by
// order (bernamp's post_upper, whose certificates differ in tightness) need
// not be monotone; the result is a valid Curve. It returns an error unless
// the orders are valid and each upper[i] is >= 0 and finite.
func FromBounds(orders, upper []float64) (Curve, error) {
	if len(upper) != len(orders) {
		return Curve{}, fmt.Errorf("rdp.FromBounds: %d orders and %d bounds", len(orders), len(upper))
	}
	o, err := checkOrders(orders)
	if err == nil && orders == nil {
		err = errors.New("no orders")
	}
	if err != nil {
		return Curve{}, fmt.Errorf("rdp.FromBounds: %w", err)
	}
	eps := make([]float64, len(upper))
	for i := len(upper) - 1; i >= 0; i-- {
		if err := check.Eps(upper[i]); err != nil {
			return Curve{}, fmt.Errorf("rdp.FromBounds: order %d (alpha %v): %w", i+1, o[i], err)
		}
		eps[i] = upper[i]
		if i+1 < len(upper) {
			eps[i] = math.Min(eps[i], eps[i+1])
		}
	}
	return Curve{Orders: o, Eps: eps}, nil
}

// RRProb returns p = e^eps0 / (1 + e^eps0), the truth probability of binary
// randomized response that is eps0-DP. It panics unless eps0 >= 0.
func RRProb(eps0 float64) float64 {
	if !(eps0 >= 0) {
		panic("rdp: eps0 must be >= 0")
	}
	return 1 / (1 + math.Exp(-eps0))
}

// RRTruthProb returns the probability of the true bit of binary randomized
// response given dp_accounting's noise_parameter q of
// RandomizedResponseDpEvent(q, 2), the probability of answering with a
// uniformly random bit: p = 1 - q/2, rounded away from 1/2 (toward less
// privacy, so a curve built on it is an upper bound). It panics unless 0 <=
// q <= 1.
func RRTruthProb(q float64) float64 {
	if !(q >= 0 && q <= 1) {
		panic("rdp: noise parameter must be in [0, 1]")
	}
	p := 1 - q/2
	if 1-p > q/2 { // 1 - p is exact (Sterbenz): p was rounded toward 1/2
		p = math.Nextafter(p, 1)
	}
	return p
}
