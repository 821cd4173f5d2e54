package mixing

import (
	"fmt"
	"math"

	"github.com/bernamp/bernamp/internal/floatbits"
	"github.com/bernamp/bernamp/internal/logspace"
	"github.com/bernamp/bernamp/rdp"
)

// Item names an item of Theorem 1 of Balle et al. (2019).
type Item int

const (
	// Dobrushin is item (1): a gamma-Dobrushin kernel turns (eps,
	// delta)-DP into (eps, gamma delta)-DP. Only delta is amplified.
	Dobrushin Item = iota + 1
	// DobrushinHS is item (2): with eps~ = log(1 + (e^eps - 1)/delta) and
	// gamma = sup_{x,x'} D_{e^eps~}(K(x) || K(x')) (the hockey-stick
	// divergence; the kernel is (gamma, eps~)-Dobrushin), (eps, gamma
	// delta)-DP. Never weaker than item (1); only delta is amplified.
	DobrushinHS
	// Doeblin is item (3): a gamma-Doeblin kernel gives (eps', delta')-DP
	// with eps' = log(1 + gamma (e^eps - 1)) and delta' = gamma (1 -
	// e^(eps'-eps) (1 - delta)). delta' > 0 even for delta = 0.
	Doeblin
	// UltraMixing is item (4): a gamma-ultra-mixing kernel gives (eps',
	// delta')-DP with eps' as in Doeblin and delta' = gamma delta e^(eps'-eps).
	UltraMixing
)

// Items lists the items of Theorem 1 in order.
var Items = []Item{Dobrushin, DobrushinHS, Doeblin, UltraMixing}

// String returns the item's name as used in CSV columns: dobrushin,
// dobrushin_hs, doeblin, ultra_mixing.
func (it Item) String() string {
	switch it {
	case Dobrushin:
		return "dobrushin"
	case DobrushinHS:
		return "dobrushin_hs"
	case Doeblin:
		return "doeblin"
	case UltraMixing:
		return "ultra_mixing"
	}
	return fmt.Sprintf("Item(%d)", int(it))
}

const badItem = "mixing: unknown Item"

// Coefficient returns the item's gamma: Dobrushin for Dobrushin and
// DobrushinHS (the hockey-stick coefficient is at most it for every eps~),
// Doeblin, UltraMixing. It panics for an unknown item.
func (b *Bounds) Coefficient(it Item) float64 {
	switch it {
	case Dobrushin, DobrushinHS:
		return b.Dobrushin
	case Doeblin:
		return b.Doeblin
	case UltraMixing:
		return b.UltraMixing
	}
	panic(badItem)
}

// Renyi returns an upper bound on the Rényi-DP level at order alpha of K∘M
// when M is (alpha, eps)-RDP and K has coefficient gamma of any of the three
// kinds (use Bounds.Coefficient):
//
//	R_alpha(mu K || nu K) <= log( 1 + gamma (e^((alpha-1) eps) - 1) ) / (alpha-1).
//
// Balle et al. state Theorem 1 for (eps, delta)-DP only; this Rényi form is
// not in the paper. Proof: let H(mu||nu) = sum nu phi(mu/nu) with phi(t) =
// t^alpha - 1, so that H = e^((alpha-1) R_alpha) - 1, and show H(mu K || nu
// K) <= gamma H(mu || nu).
//
//   - gamma-Doeblin: K(x) = (1-gamma) omega + gamma K'(x) for a Markov
//     kernel K'. H + 1 is jointly convex, so H(mu K || nu K) + 1 <= (1-gamma)
//     (H(omega||omega) + 1) + gamma (H(mu K' || nu K') + 1), and H(mu K' || nu
//     K') <= H(mu || nu) by data processing. (Ultra-mixing implies Doeblin
//     with the same gamma.)
//   - gamma-Dobrushin (the contraction coefficient of any f-divergence is at
//     most Dobrushin's, Cohen et al. 1993): by Taylor's formula, with E_s(mu,
//     nu) = sum (mu - s nu)_+ and E'_s = sum (s nu - mu)_+,
//     H = int_1^inf phi”(s) E_s ds + int_0^1 phi”(s) E'_s ds, phi” >= 0.
//     For s >= 1 write mu - s nu = a - b with a, b >= 0 disjoint; |b| = |a| +
//     s - 1 >= |a|, so some b' <= b has |b'| = |a|, and E_s(mu K, nu K) =
//     sum (aK - bK)_+ <= sum (aK - b'K)_+ = |a| TV(aK/|a|, b'K/|a|) <= gamma
//     |a| = gamma E_s(mu, nu). The same argument gives E'_s for s <= 1.
//
// Since Dobrushin <= Doeblin <= UltraMixing, the Dobrushin bound is the
// tightest of the three. The result is rounded up. It panics unless 0 <=
// gamma <= 1, alpha > 1 is finite and eps >= 0 is finite.
func Renyi(gamma, alpha, eps float64) float64 {
	if !(gamma >= 0 && gamma <= 1) || !(alpha > 1) || math.IsInf(alpha, 1) || !(eps >= 0) || math.IsInf(eps, 1) {
		panic("mixing: Renyi: gamma, alpha or eps outside its domain")
	}
	L := (alpha - 1) * eps // within 2 ulps of the exact product
	v, err := contract(gamma, L, 2*ulp*L)
	if v == 0 {
		return 0 // gamma = 0 or eps = 0: exact
	}
	return math.Nextafter((v+err)/(alpha-1), math.Inf(1))
}

// contract returns v = log(1 + gamma (e^L - 1)) for L >= 0 and 0 <= gamma
// <= 1, and a bound err on its absolute error when L itself is off by at
// most dL: log1p(gamma expm1(L)) while e^L is finite (a few ulps of v),
// and log(gamma) + L + log1p((1-gamma) e^-L / gamma) beyond (a few ulps of
// its terms, no overflow). v moves with L at the rate gamma e^L / (1 +
// gamma (e^L - 1)) <= 1.
func contract(gamma, L, dL float64) (v, err float64) {
	if gamma == 0 || L == 0 {
		return 0, 0
	}
	if L < 700 {
		s := gamma * math.Expm1(L)
		v = math.Log1p(s)
		rate := gamma * math.Exp(L) / (1 + s)
		return v, 8*ulp*v + 2*rate*dL
	}
	lg := math.Log(gamma)
	v = lg + L + math.Log1p((1-gamma)*math.Exp(-L-lg))
	return v, 8*ulp*(L-lg) + 2*dL
}

// HockeyStick returns an upper bound on gamma(eps~) = sup_{x,x'}
// D_{e^eps~}(B_k(x) || B_k(x')), the coefficient of Theorem 1 item (2), for
// eps~ >= 0 (+Inf gives 0: the outputs of B_k have full support). The
// supremum is at an antipodal pair of corners (as for Dobrushin), where the
// likelihood ratio is e^((n-2j) logit(c)) with j the number of ones, so
//
//	gamma(eps~) = sum_{j : (n-2j) logit > eps~} P_j (1 - e^(eps~ - (n-2j) logit)),
//
// P_j the Binomial(n, c) pmf. gamma(0) = Dobrushin. Cost O(d k). It panics
// for eps~ < 0 or NaN.
func (b *Bounds) HockeyStick(epsTilde float64) float64 {
	if !(epsTilde >= 0) {
		panic("mixing: HockeyStick: eps~ must be >= 0")
	}
	if math.IsInf(epsTilde, 1) {
		return 0
	}
	n, D := b.n, b.logit
	s, w, mass := logspace.NewAcc(), logspace.NewAcc(), logspace.NewAcc()
	for j := 0; 2*j < n; j++ {
		x := epsTilde - float64(n-2*j)*D
		if x >= 0 {
			break // x grows with j
		}
		t := b.logPMF[j] + logspace.OneMinusExp(x)
		s.Add(t)
		w.Add(t + math.Log(math.Abs(t)+1))
		mass.Add(b.logPMF[j])
	}
	if math.IsInf(s.Log(), -1) {
		return 0
	}
	// Error: as in logComplement for the P_j (relative 8 ulps of the
	// weighted |log| + 4 (n+8) ulps), plus the error of x, at most 4 ulps of
	// eps~ + n logit, which moves each term by at most P_j times it.
	rel := 8*ulp*math.Exp(w.Log()-s.Log()) + 4*float64(b.n+8)*ulp
	abs := 4 * ulp * (epsTilde + float64(n)*D) * math.Exp(mass.Log())
	return math.Min(1, upExp(s.Log(), rel)+abs)
}

// upExp returns e^l (1 + rel) rounded up, an upper bound on a value whose
// log is l up to a relative error rel of the value. Below e^-700 it returns
// about e^-700: still an upper bound, and no underflow to 0 or to a
// subnormal below the exact value.
func upExp(l, rel float64) float64 {
	v := math.Exp(math.Max(l, -700))
	v += v * (rel + 2*ulp)
	return math.Nextafter(v, math.Inf(1))
}

// Theorem1 returns the (eps', delta')-DP guarantee that item it of Theorem
// 1 gives for K∘M when M is (eps, delta)-DP, each rounded up: K is
// gamma-mixing for every gamma above the exact coefficient, the theorem is
// applied with the rounded-up coefficient, and its formulas are evaluated
// with outward rounding. It panics unless eps >= 0 is finite and 0 <= delta
// <= 1, or for an unknown item.
func (b *Bounds) Theorem1(it Item, eps, delta float64) (epsOut, deltaOut float64) {
	if !(eps >= 0) || math.IsInf(eps, 1) || !(delta >= 0 && delta <= 1) {
		panic("mixing: Theorem1: eps or delta outside its domain")
	}
	switch it {
	case Dobrushin:
		return eps, up(b.Dobrushin * delta)
	case DobrushinHS:
		// eps~ rounded down: gamma(eps~) decreases in eps~, so the kernel is
		// (gamma(eps~ rounded down), eps~)-Dobrushin too.
		return eps, up(b.HockeyStick(b.epsTilde(eps, delta)) * delta)
	case Doeblin, UltraMixing:
		g := b.Coefficient(it)
		v, err := contract(g, eps, 0)
		epsOut = v
		if v > 0 {
			epsOut = math.Nextafter(v+err, math.Inf(1))
		}
		// e^(eps'-eps) = gamma + (1-gamma) e^-eps exactly, so with 1 - g
		// rounded up (exact for g >= 1/2) nothing cancels:
		//   Doeblin:      delta' = g [ (1-g) (1 - e^-eps + e^-eps delta) + g delta ],
		//   ultra-mixing: delta' = g delta [ g + (1-g) e^-eps ].
		cg := up(1 - g)
		if it == Doeblin {
			return epsOut, up(g * (cg*(-math.Expm1(-eps)+math.Exp(-eps)*delta) + g*delta))
		}
		return epsOut, up(g * delta * (g + cg*math.Exp(-eps)))
	}
	panic(badItem)
}

// epsTilde returns log(1 + (e^eps - 1)/delta), rounded down, +Inf for delta
// = 0: softplus(log(expm1(eps)) - log(delta)) with log(expm1(eps)) = eps +
// log(1 - e^-eps).
func (b *Bounds) epsTilde(eps, delta float64) float64 {
	if eps == 0 {
		return 0
	}
	if delta == 0 {
		return math.Inf(1)
	}
	l := eps + logspace.OneMinusExp(-eps) - math.Log(delta)
	v := logspace.Softplus(l)
	v -= 8 * ulp * (math.Abs(l) + v + 1)
	return math.Max(0, v)
}

// up returns x plus 8 ulps of x, for products of a few rounded factors;
// 0 stays 0 (a product with an exact zero factor).
func up(x float64) float64 {
	if x == 0 {
		return 0
	}
	return math.Nextafter(x+8*ulp*x, math.Inf(1))
}

// Claim is an (Eps, Delta)-DP guarantee for K∘M obtained from item Item of
// Theorem 1 applied to M's (EpsIn, DeltaIn)-DP guarantee, which the RDP
// conversion gives at order Order of M's curve.
type Claim struct {
	Item  Item
	Eps   float64 // upper bound on the DP level of K∘M at Delta, nats; +Inf when Vacuous
	Delta float64 // the target delta
	// DeltaOut is the theorem's delta' <= Delta.
	DeltaOut float64
	// EpsIn and DeltaIn are the guarantee of M the theorem was applied to,
	// Order the order of M's curve that gives it.
	EpsIn, DeltaIn, Order float64
	// Vacuous is true when no DeltaIn searched gave delta' <= Delta: the
	// item proves nothing at Delta (Doeblin, whose delta' is at least
	// gamma (1-gamma) (1 - e^-EpsIn), often cannot reach a small Delta).
	Vacuous bool
}

// Search grid of Approx: gridPoints values of log DeltaIn, equally spaced
// over [log(delta) - gridDecades ln 10, log(1)).
const (
	gridPoints  = 256
	gridDecades = 6
)

// Approx returns the best (eps, delta)-DP guarantee it finds for K∘M by
// item it of Theorem 1, when M has RDP curve c converted with conv: it
// searches over DeltaIn for the smallest eps' = Theorem1(eps_M(DeltaIn),
// DeltaIn).eps' with delta' <= delta, where eps_M(DeltaIn) =
// rdp.ToApprox(c, DeltaIn, conv).Eps.
//
// eps' decreases as DeltaIn grows (eps_M is nonincreasing in DeltaIn and
// eps' increasing in eps), so the best DeltaIn is the largest feasible one.
// Approx scans a grid of DeltaIn from near 1 down to delta 1e-6 and bisects
// between the largest feasible grid point and the infeasible one above it.
// Every DeltaIn returned is feasible (recomputed with outward rounding), so
// the claim is valid; the search can miss a better DeltaIn only if the
// feasible set has a gap narrower than the grid, making the claim looser,
// never wrong. For Dobrushin, DobrushinHS and UltraMixing, delta' <=
// DeltaIn, so DeltaIn = delta is always feasible.
//
// Cost: about 320 evaluations of the curve's conversion, and for
// DobrushinHS as many of HockeyStick, O(d k) each (measured: 9 ms for all
// four items at d k = 100, 8 s at d k = 1e6, on the 156 default orders).
//
// It returns an error for an invalid curve, conversion or delta outside (0,
// 1), and panics for an unknown item.
func (b *Bounds) Approx(it Item, c rdp.Curve, conv rdp.Conversion, delta float64) (Claim, error) {
	if it < Dobrushin || it > UltraMixing {
		panic(badItem)
	}
	if err := rdp.CheckDelta(delta); err != nil {
		return Claim{}, fmt.Errorf("mixing.Approx: %w", err)
	}
	profile, err := rdp.Profile(c, conv)
	if err != nil {
		return Claim{}, fmt.Errorf("mixing.Approx: %w", err)
	}
	eval := func(din float64) (Claim, bool) {
		a := profile(din)
		e, d := b.Theorem1(it, a.Eps, din)
		return Claim{Item: it, Eps: e, Delta: delta, DeltaOut: d, EpsIn: a.Eps, DeltaIn: din, Order: a.Order}, d <= delta
	}
	top := math.Nextafter(1, 0)
	lo := math.Log(delta) - gridDecades*math.Ln10
	grid := func(i int) float64 { // i = 0 .. gridPoints-1, decreasing in i
		if i == 0 {
			return top
		}
		return math.Exp(lo * float64(i) / float64(gridPoints-1))
	}
	// The grid runs from 1 down to e^lo; keep it above 0.
	for i := 0; i < gridPoints; i++ {
		din := grid(i)
		if !(din > 0) {
			break
		}
		best, ok := eval(din)
		if !ok {
			continue
		}
		if i > 0 {
			// Bisect between the feasible din and the infeasible grid
			// point above it, on the float64 bits: Bisect keeps pred false
			// (feasible) at its lower end.
			infeasible := func(x float64) bool { _, ok := eval(x); return !ok }
			a, _ := floatbits.Bisect(din, grid(i-1), infeasible)
			if cl, ok := eval(a); ok && cl.Eps <= best.Eps {
				best = cl
			}
		}
		return best, nil
	}
	return Claim{Item: it, Eps: math.Inf(1), Delta: delta, DeltaOut: math.NaN(), EpsIn: math.NaN(), DeltaIn: math.NaN(), Order: math.NaN(), Vacuous: true}, nil
}
