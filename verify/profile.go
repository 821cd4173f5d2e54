package verify

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"

	"github.com/bernamp/bernamp/certfile"
)

// ErrUnsupported is wrapped by Check's error for a certificate that is
// well formed but that the checker cannot check (a profile certificate of
// a mechanism whose profile it has no bound on, or past its caps for the
// amplification): not checked, which is neither accepted nor rejected.
var ErrUnsupported = errors.New("verify: not covered by the checker")

// profileMaxN caps n = d k of an amplified profile certificate (the
// binomial cdfs are enclosed at 128 bits, every t evaluated at every grid
// point).
const profileMaxN = 2000

// maxSlack is the largest domination slack a profile certificate may
// need (checkProfile, item 2): more means the PLD does not dominate the
// profile, beyond what rounding explains.
const maxSlack = 1e-9

// A profile certificate (certfile.KindProfile) is checked in four items.
//
//  1. The PLD is a pair's. With S_P = sum_j p_j (an enclosure from a
//     double-double sum with a bounded error) the checker requires
//     |S_P + infinity_mass - 1| <= 1e-6 (a consistent file: the solver's
//     repairs of its rounding add up to 1e-8), cuts any excess of S_P over
//     1 from the lowest losses, and takes the infinity mass to be 1 - S_P
//     exactly; with S_Q = sum_j p_j
//     e^-l_j (upper bound), Q(l_j) = p_j e^-l_j / max(1, S_Q) is a
//     distribution, so the PLD is that of a pair (P, Q) whose losses are
//     l_j + log max(1, S_Q): raising each loss by shift = max(0, S_Q - 1)
//     only raises the profile.
//  2. Domination. The PLD's profile f(e) = 1 - S_P + sum_j p_j [1 - e^(e
//     - l_j)]_+ is linear in e^e between grid points l_i, constant above
//     the last and equal to 1 at e = -inf; the step's exact profile g is
//     convex and non-increasing in e^e with g(-inf) = 1. So f >= g
//     everywhere once f >= g at every grid point. The checker bounds g
//     (gaussianUp, amplifier; for e < 0, g(e) = 1 - e^e (1 - g_rev(-e)))
//     and f from both sides (f by suffix sums, 1 - f = sum_{j <= i} p_j +
//     e^l_i sum_{j > i} p_j e^-l_j by prefix sums, both without
//     cancellation), and computes the smallest a with (1 - a) f + a >= g
//     at every grid point: a_i = (g_i - f_i)/(1 - f_i). The mixture of
//     the pair with weight a on a pair with loss +inf has profile (1 - a)
//     f + a >= g: it dominates the step. a is rounding-sized for an honest
//     file (the solver rounds its profile up); above maxSlack the file is
//     rejected.
//  3. Composition. The T-fold composition of the mixture has finite
//     masses (1 - a)^T p^{*T} (losses raised by T shift) and infinity mass
//     1 - ((1 - a) S_P)^T <= T (1 - S_P + a). The T-fold convolution p^{*T}
//     (of the tilted masses, composedDelta) is computed by one transform,
//     the pointwise power and one inverse transform (convPower), with a
//     bound on its 2-norm error.
//  4. The claim: with one step, delta(eps) <= the bound on g(eps)
//     (checked first, without the PLD); else delta(eps) <= sum_l q(l) [1 - e^(eps - T shift - l)]_+ +
//     e_2 sqrt(#{l > eps - T shift}) + (trimmed to +inf) + T (1 - S_P + a),
//     q the computed composition and e_2 its error bound, must be at most
//     delta (query eps: the claim is eps) or the claim (query delta).
//
// delta(eps) increases with the mass at high losses and every
// modification above moves mass up or adds it, so each is on the safe
// side. The Gaussian, Laplace, randomized-response and subsampled
// Gaussian mechanisms are covered (the last in both directions: the
// remove PLD is checked against the remove profile at e >= 0 and the add
// one below 0, the add PLD the other way round); other mechanisms return
// ErrUnsupported.
func checkProfile(ctx context.Context, f *certfile.File) (Report, error) {
	if err := f.Validate(); err != nil {
		return Report{}, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	pr := f.Profile
	var rep Report
	reject := rejecter(&rep)
	rats, err := parseFields(f, [2]string{"c", f.C}, [2]string{"claim", f.Claim}, [2]string{"discretization", pr.Discretization})
	if err != nil {
		return Report{}, err
	}
	c, claim, hr := rats[0], rats[1], rats[2]
	half := big.NewRat(1, 2)
	switch {
	case c.Sign() < 0 || c.Cmp(half) >= 0:
		return reject("c = %s is not in [0, 1/2)", f.C)
	case f.N != f.D*f.K || f.N/f.K != f.D:
		return reject("n = %d is not d k = %d x %d", f.N, f.D, f.K)
	}
	// The mechanism's profile from above at eps >= 0, from its parameters
	// (each > 0).
	params := map[string][][2]string{
		"gaussian":            {{"sensitivity", pr.Sensitivity}, {"sigma", pr.Sigma}},
		"laplace":             {{"sensitivity", pr.Sensitivity}, {"b", pr.B}},
		"rr":                  {{"p_true", pr.PTrue}},
		"subsampled-gaussian": {{"sensitivity", pr.Sensitivity}, {"sigma", pr.Sigma}, {"q", pr.Q}},
	}
	fields, ok := params[pr.Mechanism]
	if !ok {
		return rep, fmt.Errorf("%w: mechanism %q (the checker bounds gaussian, laplace, rr and subsampled-gaussian profiles)", ErrUnsupported, pr.Mechanism)
	}
	prs, err := parseFields(f, fields...)
	if err != nil {
		return Report{}, err
	}
	v := make([]fi, len(prs))
	for i, r := range prs {
		if r.Sign() <= 0 {
			return reject("%s %s must be > 0", fields[i][0], fields[i][1])
		}
		v[i] = ratFi(r)
	}
	// mech and mechRev bound the two directions' profiles (equal for a
	// symmetric mechanism).
	var mech, mechRev func(float64) float64
	switch pr.Mechanism {
	case "gaussian":
		mu := v[0].div(v[1])
		mech = func(e float64) float64 { return gaussianUp(mu, e) }
	case "laplace":
		e0 := v[0].div(v[1])
		mech = func(e float64) float64 { return laplaceUp(e0, e) }
	case "rr":
		if v[0].hi >= 1 {
			return reject("p_true %s is not below 1", pr.PTrue)
		}
		q := v[0] // q = max(p, 1-p)
		if q.hi <= 0.5 {
			q = pt64(1).sub(q)
		} else if q.lo < 0.5 {
			q = fi{0.5, max(q.hi, up(1-q.lo))}
		}
		mech = func(e float64) float64 { return rrUp(q, e) }
	case "subsampled-gaussian":
		mu, q := v[0].div(v[1]), v[2]
		if q.lo > 1 {
			return reject("q %s is above 1", pr.Q)
		}
		q.hi = min(q.hi, 1)
		mech = func(e float64) float64 { return subsampledRemoveUp(mu, q, e) }
		mechRev = func(e float64) float64 { return subsampledAddUp(mu, q, e) }
		if pr.Add == nil && q.lo < 1 {
			return reject("a subsampled gaussian with q < 1 is asymmetric: the certificate needs both directions")
		}
	}
	if mechRev == nil {
		mechRev = mech
	}
	h, exact := hr.Float64()
	if !exact || !(h > 0) || h > 1 {
		return reject("discretization %s is not a float64 in (0, 1]", pr.Discretization)
	}
	// The question: eps at which delta is bounded, and the bound allowed.
	var eps, target float64
	if pr.Query == "eps" {
		d, err := parseRat("delta", f.Delta)
		if err != nil {
			return Report{}, err
		}
		if d.Sign() <= 0 || d.Cmp(big.NewRat(1, 1)) >= 0 {
			return reject("delta = %s is not in (0, 1)", f.Delta)
		}
		eps, target = ratFi(claim).lo, ratFi(d).lo
	} else {
		e, err := parseRat("eps", f.Eps)
		if err != nil {
			return Report{}, err
		}
		eps, target = ratFi(e).lo, ratFi(claim).lo
	}
	if !(eps >= 0) || eps > 1e4 {
		return reject("eps %v is not in [0, 1e4]", eps)
	}
	if target >= 1 {
		rep.Bound, rep.Accepted = 1, true // delta <= 1 always
		return rep, nil
	}
	amp := &amplifier{}
	if c.Sign() > 0 {
		if f.N > profileMaxN {
			return rep, fmt.Errorf("%w: n = %d exceeds the profile checker's cap of %d", ErrUnsupported, f.N, profileMaxN)
		}
		amp.n = f.N
		amp.M, amp.m = binomialCDFs(f.N, c)
	}
	// Upper bounds on the step's amplified profile at e >= 0, both
	// directions (the theorem amplifies each).
	g := func(e float64) float64 { return amp.up(mech(e), dn(expLo(e)-1)) }
	gRev := func(e float64) float64 { return amp.up(mechRev(e), dn(expLo(e)-1)) }
	if pr.Steps == 1 {
		// One step: the claim is the profile's own value, bounded
		// directly (the PLD is not needed).
		if b := max(g(eps), gRev(eps)); b <= target {
			rep.Bound, rep.Accepted = b, true
			return rep, nil
		}
	}
	worst := 0.0
	for i, d := range []*certfile.PMF{&pr.Remove, pr.Add} {
		if d == nil {
			continue
		}
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		fw, rv := g, gRev // the remove direction's PLD; the add one's swaps them
		if i == 1 {
			fw, rv = gRev, g
		}
		bound, msg, err := checkDirection(ctx, d, h, pr.Steps, eps, target, fw, rv)
		if err != nil {
			return rep, err
		}
		if msg != "" {
			return reject("%s", msg)
		}
		worst = max(worst, bound)
	}
	rep.Bound = worst
	if worst > target {
		if pr.Query == "eps" {
			return reject("the composed delta at the claimed eps %s is at most %s, above delta %s", certfile.Short(f.Claim), strconv.FormatFloat(worst, 'g', 10, 64), certfile.Short(f.Delta))
		}
		return reject("the composed delta at eps %s is at most %s, above the claim %s", certfile.Short(f.Eps), strconv.FormatFloat(worst, 'g', 10, 64), certfile.Short(f.Claim))
	}
	rep.Accepted = true
	return rep, nil
}

// dd is a double-double running sum s + c of float64 terms with err
// bounding |exact sum - (s + c)|: s and e by TwoSum are exact, only c's
// additions round (by at most u |c| each).
type dd struct{ s, c, err float64 }

func (a *dd) add(x float64) {
	s := a.s + x
	bb := s - a.s
	e := (a.s - (s - bb)) + (x - bb)
	a.s = s
	a.c += e
	a.err = up(a.err + up(math.Abs(a.c)*u53))
}

func (a *dd) lo() float64 { return dn(dn(a.s+a.c) - a.err) }
func (a *dd) hi() float64 { return up(up(a.s+a.c) + a.err) }

// checkDirection runs items 1 to 4 on one direction's PLD: the bound on
// the composed delta at eps, or a rejection message.
func checkDirection(ctx context.Context, d *certfile.PMF, h float64, steps int, eps, target float64, g, gRev func(float64) float64) (float64, string, error) {
	n := len(d.Probs)
	p := make([]float64, n)
	for i, s := range d.Probs {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || !(v >= 0) || math.IsInf(v, 1) {
			return 0, "", fmt.Errorf("%w: mass %d is %q", ErrMalformed, i, s)
		}
		p[i] = v
	}
	infFile, err := strconv.ParseFloat(d.InfinityMass, 64)
	if err != nil || !(infFile >= 0) {
		return 0, "", fmt.Errorf("%w: infinity mass %q", ErrMalformed, d.InfinityMass)
	}
	// Losses l_i = (Lo + i) h, enclosed.
	loss := func(i int) fi { return pt64(float64(d.LowerLoss + i)).mul(pt64(h)) }
	if lmax := loss(n - 1).hi; math.Abs(loss(0).lo) > 700 || lmax > 700 {
		return 0, fmt.Sprintf("losses reach beyond |700| nats (%v to %v)", loss(0).lo, lmax), nil
	}
	// 1. Masses: prefix sums of p (double-double), suffix sums of p and of
	// p e^-l (bounds of the terms from both sides).
	pre := make([]dd, n+1) // pre[i] = sum_{j < i}
	for i, v := range p {
		pre[i+1] = pre[i]
		pre[i+1].add(v)
	}
	sp := pre[n]
	if math.Abs(sp.hi()+infFile-1) > 1e-6 || math.Abs(sp.lo()+infFile-1) > 1e-6 {
		return 0, fmt.Sprintf("the masses sum to %.17g and the infinity mass is %v: not 1", sp.hi(), infFile), nil
	}
	// A sum above 1 (the solver's rounding repairs add mass) is cut from
	// the lowest losses: the profile at every grid point is unchanged
	// (mass at l_0 adds nothing at e >= l_0), only less where it is
	// removed from higher points, which item 2 then sees.
	oneMinus := func(sp dd) dd { // 1 - S_P, exact but for sp.err and c's rounding
		r := dd{s: 1}
		r.add(-sp.s)
		r.add(-sp.c)
		r.err = up(r.err + sp.err)
		return r
	}
	infEff := oneMinus(sp) // the infinity mass used
	for try := 0; infEff.lo() < 0; try++ {
		if try == 4 {
			return 0, fmt.Sprintf("the masses sum to %v, above 1", sp.hi()), nil
		}
		excess := up(up(-infEff.lo()) * (1 + 0x1p-40))
		for j := 0; j < n && excess > 0; j++ {
			cut := min(p[j], excess)
			p[j] = max(0, dn(p[j]-cut))
			excess = up(excess - cut)
		}
		for i, v := range p {
			pre[i+1] = pre[i]
			pre[i+1].add(v)
		}
		sp = pre[n]
		infEff = oneMinus(sp)
	}
	sufP := make([]dd, n+1) // sufP[i] = sum_{j >= i}
	sufQhi := make([]dd, n+1)
	sufQlo := make([]dd, n+1)
	for i := n - 1; i >= 0; i-- {
		l := loss(i)
		sufP[i], sufQhi[i], sufQlo[i] = sufP[i+1], sufQhi[i+1], sufQlo[i+1]
		sufP[i].add(p[i])
		sufQhi[i].add(up(p[i] * expHi(-l.lo)))
		sufQlo[i].add(dn(p[i] * expLo(-l.hi)))
	}
	shift := max(0, up(sufQhi[0].hi()-1))
	// 2. Domination at every grid point.
	slack := 0.0
	where := 0
	for i := range n {
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return 0, "", err
			}
		}
		l := loss(i)
		// f_i = 1 - S_P + sum_{j > i} p_j - e^l_i sum_{j > i} p_j e^-l_j.
		upLo := dn(infEff.lo() + sufP[i+1].lo())
		fLo := dn(upLo - up(expHi(l.hi)*sufQhi[i+1].hi()))
		// 1 - f_i = sum_{j <= i} p_j + e^l_i sum_{j > i} p_j e^-l_j.
		omfLo := dn(pre[i+1].lo() + dn(expLo(l.lo)*sufQlo[i+1].lo()))
		omfHi := up(pre[i+1].hi() + up(expHi(l.hi)*sufQhi[i+1].hi()))
		// g at l_i from above, and 1 - g from below.
		var gHi, omgLo float64
		if l.lo >= 0 {
			gHi = g(l.lo)
			omgLo = dn(1 - gHi)
		} else {
			// g(e) = 1 - e^e (1 - g_rev(-e)), e < 0.
			gr := gRev(max(0, -l.hi))
			omgLo = dn(expLo(l.lo) * dn(1-gr))
			gHi = up(1 - omgLo)
		}
		if omfHi <= 0 {
			continue // f = 1 at this point: nothing to dominate
		}
		a := 1.0
		if omfLo > 0 {
			a = up(up(gHi-fLo) / omfLo)
		}
		a = min(a, up(1-dn(omgLo/omfHi)))
		if a > slack {
			slack, where = a, i
		}
	}
	if slack > maxSlack {
		return 0, fmt.Sprintf("the PLD does not dominate the step's profile: below it by %.3g (relative to 1 - f) at loss %v", slack, loss(where).lo), nil
	}
	if m := int64(n-1)*int64(steps) + 1; m > maxFFT {
		return 0, "", fmt.Errorf("%w: the composition has %d points (the checker's cap is %d)", ErrUnsupported, m, maxFFT)
	}
	// 3 and 4. The composition of the finite masses at eps - T shift.
	x0 := dn(eps - up(float64(steps)*shift))
	sum, err := composedDelta(ctx, p, d.LowerLoss, h, steps, x0)
	if err != nil {
		if ctx.Err() != nil {
			return 0, "", err
		}
		return 0, err.Error(), nil
	}
	infT := min(1, up(float64(steps)*up(infEff.hi()+slack)))
	bound := up(sum + infT)
	return min(1, bound), "", nil
}

// composedDelta returns an upper bound on sum_l q(l) [1 - e^(x0 - l)]_+
// for q the exact T-fold convolution of the masses p on the losses (lo +
// j) h (items 3 and 4 of checkProfile).
func composedDelta(ctx context.Context, p []float64, lo int, h float64, steps int, x0 float64) (float64, error) {
	n := len(p)
	// 3. Composition of the finite masses, tilted: p_j e^(lambda l_j -
	// nu) (rounded up), so that the tilted composition peaks near eps and
	// the transform's error, relative to its largest entries, is small
	// there; untilting multiplies by e^-(lambda l - T nu), which falls
	// above eps. Any lambda >= 0 and nu are valid; these are chosen (in
	// plain float64) to center the tilted composition on eps.
	lambda, nu := tilt(p, lo, h, x0/float64(steps))
	pt := make([]float64, n)
	for j, v := range p {
		if v > 0 {
			l := pt64(float64(lo + j)).mul(pt64(h))
			ex := pt64(lambda).mul(l).sub(pt64(nu))
			pt[j] = up(v * expHi(ex.hi))
		}
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	x, e2, err := convPower(pt, steps)
	if err != nil {
		return 0, err
	}
	// 4. The bound at x0: sum over l > x0 of (x_l + |err_l|)
	// e^-(lambda l - T nu) w_l, the errors by Cauchy-Schwarz.
	sum, sq := 0.0, 0.0
	tnu := pt64(float64(steps)).mul(pt64(nu))
	for i, v := range x {
		l := pt64(float64(steps*lo + i)).mul(pt64(h))
		if l.hi <= x0 {
			continue
		}
		w := max(0, up(1-expLo(dn(x0-l.hi)))) // [1 - e^(x0 - l)]_+ from above
		e := expHi(tnu.sub(pt64(lambda).mul(l)).hi)
		sum = up(sum + up(up(v*e)*w))
		sq = up(sq + up(up(e*w)*up(e*w)))
	}
	return up(sum + up(e2*up(math.Sqrt(sq)))), nil
}

// tilt returns lambda in [0, lambdaMax] with the mean of the tilted step
// p_j e^(lambda l_j) / M at least about m (bisection; 0 when the untilted
// mean already is), and nu = log M, the normalizer (both plain float64:
// the bounds hold for any values).
func tilt(p []float64, lo int, h, m float64) (lambda, nu float64) {
	top := 0.0
	for j := range p {
		top = max(top, math.Abs(float64(lo+j)*h))
	}
	lambdaMax := 50.0
	if top > 0 {
		lambdaMax = min(lambdaMax, 600/top)
	}
	mean := func(lam float64) (float64, float64) {
		mx := math.Inf(-1)
		for j, v := range p {
			if v > 0 {
				mx = max(mx, lam*float64(lo+j)*h)
			}
		}
		s, sl := 0.0, 0.0
		for j, v := range p {
			if v > 0 {
				l := float64(lo+j) * h
				e := v * math.Exp(lam*l-mx)
				s += e
				sl += e * l
			}
		}
		return sl / s, mx + math.Log(s)
	}
	if mu, n0 := mean(0); mu >= m {
		return 0, n0
	}
	a, b := 0.0, lambdaMax
	for range 60 {
		c := (a + b) / 2
		if mu, _ := mean(c); mu < m {
			a = c
		} else {
			b = c
		}
	}
	_, nu = mean(b)
	return b, nu
}
