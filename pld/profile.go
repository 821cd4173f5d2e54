// Package pld holds privacy profiles, their privacy loss distributions
// (PLDs) and their composition: a mechanism given by its whole profile in,
// the exact profile of its Bernoulli release out (docs/compose.md), and an
// (eps, delta) claim after T adaptive steps as an interval [lower, upper].
//
// A profile is delta(eps) = H_{e^eps}(P||Q) = sup_S P(S) - e^eps Q(S) of a
// dominating pair (P, Q), eps in nats. It is non-increasing in eps and
// convex in e^eps with delta(-inf) = 1; below 0 it is determined by the
// reverse direction,
//
//	delta(-t) = 1 - e^-t + e^-t delta_rev(t),  t >= 0,
//
// which differs from delta only for asymmetric pairs (the add and remove
// directions of a subsampled mechanism). Every profile value here is an
// upper bound on the exact one (rounded up, error bound in each doc); every
// lower value says so.
package pld

import (
	"errors"
	"fmt"
	"math"

	"github.com/bernamp/bernamp/hockey"
)

// ulp is the unit roundoff of float64 (2^-52, twice the round-to-nearest
// error), the unit of every error bound in this package.
const ulp = 0x1p-52

// MaxEps bounds |eps| of a profile evaluation: e^eps is finite and normal
// below it.
const MaxEps = 700

// Test is the outcome of a Neyman-Pearson test of a dominating pair: it
// accepts with probability A under P and B under Q. Tests are what the
// lower side is built from (Amplified's attaining mechanism): a real
// mechanism has them, a profile given by values does not.
type Test struct{ A, B float64 }

// Profile is a mechanism's privacy profile in both directions.
type Profile struct {
	// Name describes the mechanism, for output ("gaussian sigma=2").
	Name string
	// Forward(eps) bounds H_{e^eps}(P||Q) from above for eps >= 0;
	// Reverse(eps) bounds H_{e^eps}(Q||P). Reverse is nil for a symmetric
	// pair (the two are equal). Both are non-increasing, in [0, 1].
	Forward, Reverse func(eps float64) float64
	// NP(eps), when not nil, is the Neyman-Pearson test of the forward
	// pair at level e^eps (eps >= 0): A - e^eps B = delta(eps) for the
	// exact profile, up to rounding of a few ulps. Nil when no dominating
	// pair is known (a profile given by values or from an RDP curve).
	NP func(eps float64) Test
	// Upper is an eps beyond which Forward and Reverse are constant (0
	// for bounded losses, delta for an (eps, delta) pair: the rest is
	// mass at infinity), or +Inf (the Gaussian's losses are unbounded).
	Upper float64
}

// Symmetric reports whether the two directions are equal.
func (p Profile) Symmetric() bool { return p.Reverse == nil }

// both returns the larger of the two directions' values at eps >= 0.
func (p Profile) both(eps float64) float64 {
	d := p.Forward(eps)
	if p.Reverse != nil {
		d = math.Max(d, p.Reverse(eps))
	}
	return d
}

// Rev returns the reverse direction's profile (P and Q swapped). The
// Neyman-Pearson tests of the reverse pair are not kept (nil).
func (p Profile) Rev() Profile {
	if p.Reverse == nil {
		return p
	}
	return Profile{Name: p.Name + " (reverse)", Forward: p.Reverse, Reverse: p.Forward, Upper: p.Upper}
}

// Delta returns an upper bound on the profile at any eps in [-MaxEps,
// MaxEps], negative eps through the reverse direction (package doc).
func (p Profile) Delta(eps float64) float64 {
	if eps >= 0 {
		return p.Forward(eps)
	}
	rev := p.Forward
	if p.Reverse != nil {
		rev = p.Reverse
	}
	// 1 - e^-t + e^-t d = 1 - e^-t (1 - d): -expm1 and the product within
	// 4 ulps of 1.
	t := -eps
	d := -math.Expm1(-t) + math.Exp(-t)*rev(t)
	return math.Min(1, d+4*ulp)
}

// phi returns the standard normal cdf Phi(x) = erfc(-x/sqrt 2)/2 and a
// bound on its absolute error: erfc(z) for large z is about exp(-z^2)/z,
// whose rounding of z^2 costs about z^2 ulps (hockey.Gaussian's model).
func phi(x float64) (v, err float64) {
	z := -x / math.Sqrt2
	v = math.Erfc(z) / 2
	return v, ulp * (32 + 4*z*z) * v
}

// up returns a - b rounded up from the error bounds ea, eb of a and b,
// clamped to [0, 1]; 0x1p-1000 covers an underflowed difference.
func up(a, ea, b, eb float64) float64 {
	d := a - b + ea + eb + 4*ulp*(a+b) + 0x1p-1000
	return math.Min(1, math.Nextafter(math.Max(d, 0), math.Inf(1)))
}

// Gaussian returns the profile of the Gaussian mechanism with L2
// sensitivity s and noise sigma, mu = s/sigma (Balle and Wang 2018,
// Theorem 8), symmetric:
//
//	delta(eps) = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu),
//
// rounded up (hockey.Gaussian, at sigma/s rounded down). Its NP
// test at level e^eps accepts where the privacy loss exceeds eps:
// A = Phi(mu/2 - eps/mu), B = Phi(-mu/2 - eps/mu).
func Gaussian(sensitivity, sigma float64) (Profile, error) {
	if err := positive("sensitivity", sensitivity); err != nil {
		return Profile{}, err
	}
	if err := positive("sigma", sigma); err != nil {
		return Profile{}, err
	}
	mu := sensitivity / sigma
	if !(mu > 0) || math.IsInf(mu, 1) {
		return Profile{}, fmt.Errorf("pld.Gaussian: sensitivity/sigma is %v, must be > 0 and finite", mu)
	}
	np := func(eps float64) Test {
		a, _ := phi(mu/2 - eps/mu)
		b, _ := phi(-mu/2 - eps/mu)
		return Test{a, b}
	}
	// hockey.Gaussian is at sensitivity 1: scale sigma, rounded down (a
	// smaller sigma only raises the profile).
	s := sigma
	if sensitivity != 1 {
		s = math.Nextafter(sigma/sensitivity, 0)
	}
	f := func(eps float64) float64 { return hockey.Gaussian(s, eps) }
	return Profile{Name: fmt.Sprintf("gaussian sensitivity=%v sigma=%v", sensitivity, sigma), Forward: f, NP: np, Upper: math.Inf(1)}, nil
}

// Laplace returns the profile of the Laplace mechanism with L1 sensitivity
// s and scale b, e0 = s/b, symmetric:
//
//	delta(eps) = 1 - e^((eps - e0)/2) for 0 <= eps <= e0, 0 beyond,
//
// rounded up (-expm1 within 2 ulps). Its NP test thresholds the noise at
// x = (s - b eps)/2: A = 1 - e^(-x/b)/2, B = e^((x - s)/b)/2.
func Laplace(sensitivity, b float64) (Profile, error) {
	if err := positive("sensitivity", sensitivity); err != nil {
		return Profile{}, err
	}
	if err := positive("b", b); err != nil {
		return Profile{}, err
	}
	e0 := sensitivity / b
	if !(e0 > 0) || e0 > MaxEps {
		return Profile{}, fmt.Errorf("pld.Laplace: sensitivity/b is %v, must be in (0, %v]", e0, MaxEps)
	}
	f := func(eps float64) float64 {
		if eps >= e0 {
			return 0
		}
		d := -math.Expm1((eps - e0) / 2)
		return math.Min(1, d*(1+4*ulp)+0x1p-1000)
	}
	np := func(eps float64) Test {
		if eps >= e0 {
			return Test{}
		}
		x := (sensitivity - b*eps) / 2
		return Test{A: 1 - math.Exp(-x/b)/2, B: math.Exp((x-sensitivity)/b) / 2}
	}
	return Profile{Name: fmt.Sprintf("laplace sensitivity=%v b=%v", sensitivity, b), Forward: f, NP: np, Upper: e0}, nil
}

// RandomizedResponse returns the profile of binary randomized response
// that reports the true bit with probability p (P = Bernoulli(p), Q =
// Bernoulli(1-p)), symmetric: with q = max(p, 1-p),
//
//	delta(eps) = [q - e^eps (1-q)]_+ ,
//
// rounded up. Its NP test accepts the likelier bit: A = q, B = 1-q (below
// the level log(q/(1-q)), nothing above it).
func RandomizedResponse(p float64) (Profile, error) {
	if !(p > 0 && p < 1) {
		return Profile{}, fmt.Errorf("pld.RandomizedResponse: p is %v, must be in (0, 1)", p)
	}
	q := math.Max(p, 1-p)
	lo := 1 - q // exact (Sterbenz) for q in [1/2, 1]
	top := math.Log(q) - math.Log(lo)
	f := func(eps float64) float64 {
		if eps >= top*(1+4*ulp) {
			return 0
		}
		g := math.Exp(eps)
		return up(q, 0, g*lo, 2*ulp*g*lo)
	}
	np := func(eps float64) Test {
		if eps >= top {
			return Test{}
		}
		return Test{A: q, B: lo}
	}
	return Profile{Name: fmt.Sprintf("randomized response p_true=%v", p), Forward: f, NP: np, Upper: top * (1 + 4*ulp)}, nil
}

// SubsampledGaussian returns the profile of one step of DP-SGD: the
// Gaussian mechanism (L2 sensitivity s, noise sigma) on a Poisson sample
// of rate q. Its directions are dp_accounting's (privacy_loss_mechanism):
// Forward is REMOVE, P = (1-q) N(0, sigma^2) + q N(s, sigma^2) against Q =
// N(0, sigma^2) (up to a reflection), Reverse is ADD, the same pair
// swapped. With mu = s/sigma and the threshold x solving the loss:
//
//	remove: delta(eps) = q Phibar(x/sigma - mu) - (e^eps - 1 + q) Phibar(x/sigma),
//	        x = (sigma^2/s) log((e^eps - 1 + q)/q) + s/2,
//	add:    delta(eps) = (1 - e^eps (1-q)) Phi(x/sigma) - e^eps q Phi(x/sigma - mu),
//	        x = (sigma^2/s) log((e^-eps - 1 + q)/q) + s/2, 0 once e^eps >= 1/(1-q),
//
// rounded up (each Phi padded as in Gaussian; the threshold's rounding
// moves a supremum by second order, below 2^-80 absolute). q = 1 is the
// Gaussian.
func SubsampledGaussian(sensitivity, sigma, q float64) (Profile, error) {
	if err := positive("sensitivity", sensitivity); err != nil {
		return Profile{}, err
	}
	if err := positive("sigma", sigma); err != nil {
		return Profile{}, err
	}
	if !(q > 0 && q <= 1) {
		return Profile{}, fmt.Errorf("pld: q is %v, must be in (0, 1]", q)
	}
	if q == 1 {
		g, err := Gaussian(sensitivity, sigma)
		g.Name = fmt.Sprintf("subsampled gaussian sensitivity=%v sigma=%v q=1", sensitivity, sigma)
		return g, err
	}
	mu := sensitivity / sigma
	if !(mu > 0) || math.IsInf(mu, 1) {
		return Profile{}, fmt.Errorf("pld.SubsampledGaussian: sensitivity/sigma is %v, must be > 0 and finite", mu)
	}
	const pad = 0x1p-80
	// remove: u = x/sigma.
	rmU := func(eps float64) float64 {
		return math.Log((math.Expm1(eps)+q)/q)/mu + mu/2
	}
	remove := func(eps float64) float64 {
		u := rmU(eps)
		a, ea := phi(mu - u)
		b, eb := phi(-u)
		a, ea = q*a, q*ea+ulp*q*a
		w := math.Expm1(eps) + q
		b, eb = w*b, w*eb+4*ulp*w*b
		if math.IsInf(b, 1) || math.IsNaN(b) {
			return 1
		}
		return math.Min(1, up(a, ea, b, eb)+pad)
	}
	add := func(eps float64) float64 {
		g := math.Exp(eps)
		w := 1 - g*(1-q) // > 0 below the cutoff
		if !(w > 4*ulp*g) {
			return 0
		}
		u := math.Log((math.Expm1(-eps)+q)/q)/mu + mu/2
		a, ea := phi(u)
		b, eb := phi(u - mu)
		a, ea = w*a, w*ea+4*ulp*(1+g)*a
		b, eb = g*q*b, g*q*eb+4*ulp*g*q*b
		return math.Min(1, up(a, ea, b, eb)+pad)
	}
	np := func(eps float64) Test {
		u := rmU(eps)
		a1, _ := phi(mu - u)
		b, _ := phi(-u)
		return Test{A: (1-q)*b + q*a1, B: b}
	}
	return Profile{Name: fmt.Sprintf("subsampled gaussian sensitivity=%v sigma=%v q=%v", sensitivity, sigma, q),
		Forward: remove, Reverse: add, NP: np, Upper: math.Inf(1)}, nil
}

// Pair returns the profile of the canonical four-point pair of an (eps,
// delta)-DP guarantee, the least private mechanism with it (Kairouz, Oh
// and Viswanath 2015), symmetric:
//
//	delta_pair(e) = delta + (1 - delta) [(e^eps - e^e)/(e^eps + 1)]_+ ,
//
// rounded up. It is what one (eps, delta) pair says of a mechanism: the
// single-pair route amplifies it.
func Pair(eps, delta float64) (Profile, error) {
	if !(eps >= 0) || eps > MaxEps {
		return Profile{}, fmt.Errorf("pld.Pair: eps is %v, must be in [0, %v]", eps, MaxEps)
	}
	if !(delta >= 0 && delta < 1) {
		return Profile{}, fmt.Errorf("pld.Pair: delta is %v, must be in [0, 1)", delta)
	}
	f := func(e float64) float64 {
		if e >= eps {
			return delta
		}
		// (e^eps - e^e)/(e^eps + 1) = -expm1(e - eps)/(1 + e^-eps)
		v := -math.Expm1(e-eps) / (1 + math.Exp(-eps))
		return math.Min(1, (delta+(1-delta)*v)*(1+8*ulp))
	}
	// The pair: P = (delta, (1-delta) e^eps/(1+e^eps), (1-delta)/(1+e^eps), 0),
	// Q its mirror; the NP test at a level below e^eps accepts the first two.
	np := func(e float64) Test {
		s := (1 - delta) / (1 + math.Exp(-eps))
		if e >= eps {
			return Test{A: delta}
		}
		return Test{A: delta + s, B: (1 - delta) - s}
	}
	return Profile{Name: fmt.Sprintf("(eps=%v, delta=%v) pair", eps, delta), Forward: f, NP: np, Upper: eps}, nil
}

func positive(name string, v float64) error {
	if !(v > 0) || math.IsInf(v, 1) {
		return fmt.Errorf("pld: %s is %v, must be > 0 and finite", name, v)
	}
	return nil
}

// ErrProfile reports a profile given by values that no mechanism can have.
var ErrProfile = errors.New("not a privacy profile")

// ErrTooLarge reports a PLD or composition over MaxPoints points.
var ErrTooLarge = errors.New("too many grid points")
