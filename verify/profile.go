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

// profileMaxN caps n = d k of an amplified profile certificate, as the
// solver does: the binomial window (profile_binom.go) then holds at most
// about 1.3 million weights, built once per step kind in 128-bit
// arithmetic (about a second) and 2 float64 arrays (20 MB); each grid
// point then evaluates one or two t (amplifier.up).
const profileMaxN = 1_000_000_000

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
//     (of the tilted masses, composedDeltaParts) is computed by one
//     transform, the pointwise power and one inverse transform
//     (convCircular), with a bound on its 2-norm error, on a window of L
//     points from the first loss above x0 = eps - T shift
//     (profile_window.go): the transform folds the masses outside the
//     window into it, which only adds mass (those below x0 have weight 0),
//     and the mass above the window is bounded by Chernoff.
//  4. The claim: with one step, delta(eps) <= the bound on g(eps)
//     (checked first, without the PLD); else delta(eps) <= sum_l q(l) [1
//     - e^(x0 - l)]_+ over the window + e_2 (the error by Cauchy-Schwarz) +
//     (the Chernoff tail) + T (1 - S_P + a), q the computed composition
//     and e_2 its error bound, must be at most delta (query eps: the claim
//     is eps) or the claim (query delta).
//
// delta(eps) increases with the mass at high losses and every
// modification above moves mass up or adds it, so each is on the safe
// side. The Gaussian, Laplace, randomized-response and subsampled
// Gaussian mechanisms are covered (the last in both directions: the
// remove PLD is checked against the remove profile at e >= 0 and the add
// one below 0, the add PLD the other way round), and mechanisms known by
// a file (rdp, points, pld: their data in the file, profile_input.go,
// whose bounds item 2 first lowers to their convex hull as the solver's
// envelope does); other mechanisms return ErrUnsupported.
func checkProfile(ctx context.Context, f *certfile.File) (Report, error) {
	if err := f.Validate(); err != nil {
		return Report{}, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	pr := f.Profile
	var rep Report
	reject := rejecter(&rep)
	rats, err := parseFields(f, [2]string{"claim", f.Claim}, [2]string{"discretization", pr.Discretization})
	if err != nil {
		return Report{}, err
	}
	claim, hr := rats[0], rats[1]
	if f.N != f.D*f.K || f.N/f.K != f.D {
		return reject("n = %d is not d k = %d x %d", f.N, f.D, f.K)
	}
	kinds := f.Kinds()
	bounds := make([]kindBound, len(kinds))
	for i, k := range kinds {
		var msg string
		if bounds[i], msg, err = newKindBound(k); err != nil {
			return rep, err
		}
		if msg != "" {
			if len(kinds) > 1 {
				msg = fmt.Sprintf("plan kind %d: %s", i+1, msg)
			}
			return reject("%s", msg)
		}
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
	if len(kinds) == 1 && pr.Steps == 1 {
		// One step: the claim is the profile's own value, bounded
		// directly (the PLD is not needed).
		if b := max(bounds[0].g(eps), bounds[0].gRev(eps)); b <= target {
			rep.Bound, rep.Accepted = b, true
			return rep, nil
		}
	}
	// Item 1 and 2 per step kind and direction (a symmetric kind's one PLD
	// is checked once and serves both), then 3 and 4 for the kinds
	// composed, per direction.
	dirs := 1
	for _, k := range kinds {
		if k.Add != nil {
			dirs = 2
		}
	}
	done := make([]*part, len(kinds)) // a symmetric kind's remove PLD, checked
	worst := 0.0
	for dir := range dirs {
		parts := make([]part, len(kinds))
		for i, k := range kinds {
			if err := ctx.Err(); err != nil {
				return rep, err
			}
			d, fw, rv := &k.Remove, bounds[i].g, bounds[i].gRev // the remove direction's PLD; the add one's swaps them
			if dir == 1 {
				fw, rv = rv, fw
				if k.Add != nil {
					d = k.Add
				}
			}
			if dir == 1 && k.Add == nil && bounds[i].symmetric && done[i] != nil {
				parts[i] = *done[i]
				continue
			}
			pt, msg, err := checkDomination(ctx, d, h, fw, rv, bounds[i].convex)
			if err != nil {
				return rep, err
			}
			if msg != "" {
				if len(kinds) > 1 {
					msg = fmt.Sprintf("plan kind %d: %s", i+1, msg)
				}
				return reject("%s", msg)
			}
			pt.steps = k.Steps
			parts[i] = pt
			if dir == 0 {
				done[i] = &parts[i]
			}
		}
		bound, msg, err := composeParts(ctx, parts, h, eps, target)
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

// kindBound holds upper bounds on one step kind's amplified profile at e
// >= 0, both directions (the theorem amplifies each), and whether they
// are equal (a symmetric mechanism).
type kindBound struct {
	g, gRev   func(float64) float64
	symmetric bool
	convex    bool // g, gRev are not convex in e^eps: item 2 takes their hull (hullBounds)
}

// newKindBound reads a step kind's c, n and mechanism: its bounds, or a
// rejection message, or ErrUnsupported (a mechanism the checker has no
// bound for, an n past profileMaxN).
func newKindBound(k certfile.ProfileKind) (kindBound, string, error) {
	c, err := parseRat("c", k.C)
	if err != nil {
		return kindBound{}, "", err
	}
	if c.Sign() < 0 || c.Cmp(big.NewRat(1, 2)) >= 0 {
		return kindBound{}, fmt.Sprintf("c = %s is not in [0, 1/2)", k.C), nil
	}
	// The mechanism's profile from above at eps >= 0, from its parameters
	// (each > 0).
	params := map[string][][2]string{
		"gaussian":            {{"sensitivity", k.Sensitivity}, {"sigma", k.Sigma}},
		"laplace":             {{"sensitivity", k.Sensitivity}, {"b", k.B}},
		"rr":                  {{"p_true", k.PTrue}},
		"subsampled-gaussian": {{"sensitivity", k.Sensitivity}, {"sigma", k.Sigma}, {"q", k.Q}},
	}
	fields, ok := params[k.Mechanism]
	if !ok && k.Input == nil { // rdp, points and pld have their data in Input
		return kindBound{}, "", fmt.Errorf("%w: mechanism %q (the checker bounds gaussian, laplace, rr, subsampled-gaussian, rdp, points and pld profiles)", ErrUnsupported, k.Mechanism)
	}
	v := make([]fi, len(fields))
	for i, x := range fields {
		r, err := parseRat(x[0], x[1])
		if err != nil {
			return kindBound{}, "", err
		}
		if r.Sign() <= 0 {
			return kindBound{}, fmt.Sprintf("%s %s must be > 0", x[0], x[1]), nil
		}
		v[i] = ratFi(r)
	}
	// mech and mechRev bound the two directions' profiles (equal for a
	// symmetric mechanism).
	var mech, mechRev func(float64) float64
	switch k.Mechanism {
	case "gaussian":
		mu := v[0].div(v[1])
		mech = func(e float64) float64 { return gaussianUp(mu, e) }
	case "laplace":
		e0 := v[0].div(v[1])
		mech = func(e float64) float64 { return laplaceUp(e0, e) }
	case "rr":
		if v[0].hi >= 1 {
			return kindBound{}, fmt.Sprintf("p_true %s is not below 1", k.PTrue), nil
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
			return kindBound{}, fmt.Sprintf("q %s is above 1", k.Q), nil
		}
		q.hi = min(q.hi, 1)
		mech = func(e float64) float64 { return subsampledRemoveUp(mu, q, e) }
		mechRev = func(e float64) float64 { return subsampledAddUp(mu, q, e) }
		if k.Add == nil && q.lo < 1 {
			return kindBound{}, "a subsampled gaussian with q < 1 is asymmetric: the certificate needs both directions", nil
		}
	default: // rdp, points, pld: bounds from the file's input data (profile_input.go)
		var msg string
		if mech, mechRev, msg, err = inputBound(k); msg != "" || err != nil {
			return kindBound{}, msg, err
		}
	}
	kb := kindBound{symmetric: mechRev == nil, convex: k.Input != nil}
	if mechRev == nil {
		mechRev = mech
	}
	amp := &amplifier{}
	if c.Sign() > 0 {
		if k.D < 1 || k.K < 1 || k.D > profileMaxN/k.K {
			return kindBound{}, "", fmt.Errorf("%w: n = d k = %d x %d exceeds the profile checker's cap of %d", ErrUnsupported, k.D, k.K, profileMaxN)
		}
		amp = newAmplifier(k.D*k.K, c)
	}
	kb.g = func(e float64) float64 { return amp.up(mech(e), dn(expLo(e)-1)) }
	kb.gRev = func(e float64) float64 { return amp.up(mechRev(e), dn(expLo(e)-1)) }
	return kb, "", nil
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

// part is one step kind's PLD in one direction after items 1 and 2: the
// masses p on the losses (lo + j) h (an excess over 1 cut), the loss
// shift, an upper bound on the infinity mass 1 - S_P plus the slack a
// (the mixture's), and the kind's count.
type part struct {
	p     []float64
	lo    int
	shift float64
	inf   float64
	steps int
}

// checkDomination runs items 1 and 2 on one direction's PLD of one step
// kind: the part, or a rejection message.
func checkDomination(ctx context.Context, d *certfile.PMF, h float64, g, gRev func(float64) float64, convex bool) (part, string, error) {
	p, infFile, loss, msg, err := readPMF(d, h)
	if msg != "" || err != nil {
		return part{}, msg, err
	}
	n := len(p)
	// 1. Masses: prefix sums of p (double-double), suffix sums of p and of
	// p e^-l (bounds of the terms from both sides).
	pre := make([]dd, n+1) // pre[i] = sum_{j < i}
	for i, v := range p {
		pre[i+1] = pre[i]
		pre[i+1].add(v)
	}
	sp := pre[n]
	if math.Abs(sp.hi()+infFile-1) > 1e-6 || math.Abs(sp.lo()+infFile-1) > 1e-6 {
		return part{}, fmt.Sprintf("the masses sum to %.17g and the infinity mass is %v: not 1", sp.hi(), infFile), nil
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
			return part{}, fmt.Sprintf("the masses sum to %v, above 1", sp.hi()), nil
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
	sufP, sufQhi, sufQlo := suffixSums(p, loss) // sufP[i] = sum_{j >= i}
	shift := max(0, up(sufQhi[0].hi()-1))
	// 2. Domination at every grid point.
	gAt := func(i int) (gHi, omgLo float64) {
		l := loss(i)
		if l.lo >= 0 {
			gHi = g(l.lo)
			return gHi, dn(1 - gHi)
		}
		// g(e) = 1 - e^e (1 - g_rev(-e)), e < 0.
		gr := gRev(max(0, -l.hi))
		omgLo = dn(expLo(l.lo) * dn(1-gr))
		return up(1 - omgLo), omgLo
	}
	var hull [][2]float64 // convex: the bounds lowered to their hull (profile_input.go)
	if convex {
		hull = hullBounds(n, h, loss, gAt)
	}
	slack := 0.0
	where := 0
	for i := range n {
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return part{}, "", err
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
		gHi, omgLo := gAt(i)
		if hull != nil {
			gHi, omgLo = hull[i][0], hull[i][1]
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
		return part{}, fmt.Sprintf("the PLD does not dominate the step's profile: below it by %.3g (relative to 1 - f) at loss %v", slack, loss(where).lo), nil
	}
	return part{p: p, lo: d.LowerLoss, shift: shift, inf: up(infEff.hi() + slack)}, "", nil
}

// composeParts runs items 3 and 4 on the step kinds' parts of one
// direction: an upper bound on the composition's delta at eps, or a
// rejection message; target is the delta the bound must not exceed (the
// window is chosen so that what it adds is at most target 2^-32). The
// composition of the kinds' mixtures has finite masses prod_i (1 -
// a_i)^T_i times the convolution of the p_i^{*T_i} (losses raised by
// sum_i T_i shift_i), and infinity mass 1 - prod_i ((1 - a_i) S_i)^T_i <=
// sum_i T_i (1 - S_i + a_i).
func composeParts(ctx context.Context, parts []part, h, eps, target float64) (float64, string, error) {
	shift, infT := 0.0, 0.0
	for _, pt := range parts {
		shift = up(shift + up(float64(pt.steps)*pt.shift))
		infT = up(infT + up(float64(pt.steps)*pt.inf))
	}
	// 3 and 4. The composition of the finite masses at eps - sum T shift.
	x0 := dn(eps - shift)
	sum, err := composedDeltaParts(ctx, parts, h, x0, target*0x1p-32)
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, ErrUnsupported) {
			return 0, "", err
		}
		return 0, err.Error(), nil
	}
	return min(1, up(sum+min(1, infT))), "", nil
}

// composedDelta returns an upper bound on sum_l q(l) [1 - e^(x0 - l)]_+
// for q the exact T-fold convolution of the masses p on the losses (lo +
// j) h (items 3 and 4 of checkProfile): composedDeltaParts of one kind,
// on the whole support.
func composedDelta(ctx context.Context, p []float64, lo int, h float64, steps int, x0 float64) (float64, error) {
	return composedDeltaParts(ctx, []part{{p: p, lo: lo, steps: steps}}, h, x0, 0)
}

// composedDeltaParts returns an upper bound on sum_l q(l) [1 - e^(x0 -
// l)]_+ for q the exact convolution of the parts' T_i-fold convolution
// powers, part i's masses p_i on the losses (lo_i + j) h (its shift and
// infinity mass are composeParts'), composed on a window whose estimated
// extra is at most budget (profile_window.go; budget <= 0: the whole
// support). Errors wrap ErrUnsupported when the window needs more than
// maxFFT points.
//
// 3. Composition of the finite masses, tilted: p_ij e^(lambda l_j - nu_i)
// (rounded up), so that the tilted composition peaks near x0 and the
// transform's error, relative to its largest entries, is small there;
// untilting multiplies by e^-(lambda l - sum_i T_i nu_i), which falls
// above x0. Any lambda >= 0 (one for all kinds: the tilt of a
// convolution is the convolution of the tilts) and nu_i are valid; these
// are chosen (in plain float64) to center the tilted composition on x0.
// 4. The bound at x0: sum over the window's l > x0 of (x_l + |err_l|)
// e^-(lambda l - sum T_i nu_i) w_l, the errors by Cauchy-Schwarz, plus
// the Chernoff bound on the mass above the window.
func composedDeltaParts(ctx context.Context, parts []part, h, x0, budget float64) (float64, error) {
	c := newComposition(parts, h, x0)
	if c.s >= c.m {
		return 0, nil // every loss at most x0
	}
	L := c.window(budget)
	if L > maxFFT {
		return 0, fmt.Errorf("%w: the composition has %d points and needs a window of %d (the checker's cap is %d)", ErrUnsupported, c.m, L, maxFFT)
	}
	in, tail, err := c.delta(ctx, c.s, int(L))
	if err != nil {
		return 0, err
	}
	return up(in + tail), nil
}

// tilt returns lambda in [0, lambdaMax] with the mean of the tilted
// composition, sum_i T_i times the mean of part i's tilted step p_ij
// e^(lambda l_j) / M_i, at least about x0 (bisection; 0 when the untilted
// mean already is), and nu_i = log M_i, the normalizers (all plain
// float64: the bounds hold for any values).
func tilt(parts []part, h, x0 float64) (lambda float64, nus []float64) {
	top := 0.0
	total := 0
	for _, pa := range parts {
		for j := range pa.p {
			top = max(top, math.Abs(float64(pa.lo+j)*h))
		}
		total += pa.steps
	}
	m := x0 / float64(total)
	lambdaMax := 50.0
	if top > 0 {
		lambdaMax = min(lambdaMax, 600/top)
	}
	meanOf := func(p []float64, lo int, lam float64) (float64, float64) {
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
	// mean is the tilted composition's mean per step (the single kind's
	// own mean), and the normalizers.
	mean := func(lam float64) (float64, []float64) {
		mu, nus := 0.0, make([]float64, len(parts))
		for i, pa := range parts {
			mi, ni := meanOf(pa.p, pa.lo, lam)
			nus[i] = ni
			if len(parts) == 1 {
				return mi, nus
			}
			mu += float64(pa.steps) * mi
		}
		return mu / float64(total), nus
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
	_, nus = mean(b)
	return b, nus
}
