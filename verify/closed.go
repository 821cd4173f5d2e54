package verify

import (
	"context"
	"fmt"
	"math/big"

	"github.com/bernamp/bernamp/certfile"
)

// checkClosedForm checks a certificate of kind certfile.KindClosedForm:
// the claim must be at least min(eps, n r_alpha(c)), n = d k, where
//
//	r_alpha(c) = log(c^alpha (1-c)^(1-alpha) + (1-c)^alpha c^(1-alpha)) / (alpha - 1)
//
// is the Renyi divergence of order alpha between one coin of bias c and
// one of bias 1 - c. Post <= eps is data processing; Post <= n r_alpha(c)
// holds because the d k flips are independent and the divergence of each
// is at most r_alpha(c) over [c, 1-c] (additivity). The comparison with
// eps is exact (rationals); n r_alpha(c) is enclosed in big.Float interval
// arithmetic, written as
//
//	log A = alpha log(1-c) + (1-alpha) log c + log(1 + (c/(1-c))^(2 alpha - 1)),
//
// a sum of terms without cancellation, and the claim must be at least the
// enclosure's upper end.
//
// With groups (per-coordinate ranges; certfile.KindClosedForm has the
// proof) the claim must be at least min(eps, sum_g n_g b_g), b_g =
// max(R(lo_g || hi_g), R(hi_g || lo_g)): each b_g is enclosed (coinRenyi
// for a group [c, 1-c], pairRenyi otherwise, 0 where lo_g = hi_g), the sum
// too; closedGroups says which groups are taken. A file without groups is
// the one group n bits sharing c.
func checkClosedForm(ctx context.Context, f *certfile.File) (Report, error) {
	rats, err := parseFields(f, [2]string{"alpha", f.Alpha}, [2]string{"eps", f.Eps}, [2]string{"claim", f.Claim})
	if err != nil {
		return Report{}, err
	}
	var rep Report
	reject := rejecter(&rep)
	alpha, eps, claim := rats[0], rats[1], rats[2]
	switch {
	case f.D < 1 || f.K < 1 || f.N != f.D*f.K || f.N/f.K != f.D:
		return reject("n = %d is not d k = %d x %d", f.N, f.D, f.K)
	case alpha.Cmp(big.NewRat(1, 1)) <= 0:
		return reject("alpha = %s is not > 1", f.Alpha)
	case eps.Sign() < 0:
		return reject("eps = %s is negative", f.Eps)
	}
	gs, what, why, err := closedGroups(f)
	if err != nil || why != "" {
		rep.Failure = why
		return rep, err
	}
	if claim.Cmp(eps) >= 0 {
		rep.Bound, _ = eps.Float64()
		rep.Accepted = true
		return rep, nil
	}
	if err := ctx.Err(); err != nil {
		return rep, err
	}
	bound := constIval(0)
	for _, g := range gs {
		var b ival
		switch {
		case g.c != nil:
			b = coinRenyi(g.c, alpha)
		case g.lo.Cmp(g.hi) == 0:
			continue // both coins alike: R = 0 exactly
		default:
			b = pairRenyi(g.lo, g.hi, alpha).hull(pairRenyi(g.hi, g.lo, alpha))
		}
		bound = bound.add(intIval(big.NewInt(int64(g.n))).mul(b))
	}
	rep.Bound, _ = newUp(53).Set(bound.hi).Float64()
	if ratIval(claim).lo.Cmp(bound.hi) < 0 {
		return reject("claim %s is below the checked bound min(eps, %s) = min(%s, %s)", f.Claim, what, f.Eps, bound.hi.Text('g', 20))
	}
	rep.Accepted = true
	return rep, nil
}

// coinRenyi encloses r_alpha(c) = R(c || 1-c) (see checkClosedForm).
func coinRenyi(c, alpha *big.Rat) ival {
	one := big.NewRat(1, 1)
	cm := new(big.Rat).Sub(one, c) // 1 - c
	a, am1 := ratIval(alpha), ratIval(new(big.Rat).Sub(alpha, one))
	logC, logCm := ratIval(c).log(), ratIval(cm).log()
	// (c/(1-c))^(2 alpha - 1) = exp((2 alpha - 1) log(c/(1-c))), below 1.
	twoAm1 := ratIval(new(big.Rat).Sub(new(big.Rat).Add(alpha, alpha), one))
	ratio := ratIval(new(big.Rat).Quo(c, cm)).log().mul(twoAm1).exp()
	logA := a.mul(logCm).sub(am1.mul(logC)).add(constIval(1).add(ratio).log())
	return logA.div(am1)
}

// checkPureDP checks a certificate of kind certfile.KindPureDP: the claim
// must be at least the exact amplified pure-DP level
//
//	eps' = log(e^(eps+L) + 1) - log(e^L + e^eps),   L = n log((1-c)/c),
//
// or the claim at least eps (eps' <= eps, compared as rationals);
// eps' is enclosed in big.Float interval arithmetic (exponents of big.Float reach
// far past n log((1-c)/c) at the caps, so nothing overflows; at 128 bits
// the difference of the two logs keeps about 100 bits of eps' even where
// eps' is 1e-15 of them).
func checkPureDP(ctx context.Context, f *certfile.File) (Report, error) {
	rats, err := parseFields(f, [2]string{"c", f.C}, [2]string{"eps", f.Eps}, [2]string{"claim", f.Claim})
	if err != nil {
		return Report{}, err
	}
	var rep Report
	reject := rejecter(&rep)
	c, eps, claim := rats[0], rats[1], rats[2]
	half := big.NewRat(1, 2)
	switch {
	case f.D < 1 || f.K < 1 || f.N != f.D*f.K || f.N/f.K != f.D:
		return reject("n = %d is not d k = %d x %d", f.N, f.D, f.K)
	case f.N > MaxN:
		return reject("n = %d exceeds the checker's cap of %d", f.N, MaxN)
	case c.Sign() <= 0 || c.Cmp(half) >= 0:
		return reject("c = %s is not in (0, 1/2)", f.C)
	case eps.Sign() < 0:
		return reject("eps = %s is negative", f.Eps)
	}
	if err := ctx.Err(); err != nil {
		return rep, err
	}
	cm := new(big.Rat).Sub(big.NewRat(1, 1), c)
	l := intIval(big.NewInt(int64(f.N))).mul(ratIval(new(big.Rat).Quo(cm, c)).log())
	e := ratIval(eps)
	// eps' = L + log1pexp(-(eps+L)) - log1pexp(L - eps), exactly, and
	// by symmetry eps + log1pexp(-(eps+L)) - log1pexp(eps - L): take the
	// form whose last argument is <= 0, so that no exp overflows and
	// nothing cancels.
	first, d := l, l.sub(e)
	if d.lo.Sign() >= 0 {
		first, d = e, e.sub(l)
	}
	level := first.add(log1pexp(e.add(l).neg())).sub(log1pexp(d))
	// eps' <= min(eps, L) (data processing; the samples alone are L-DP):
	// where the claim is at least eps, the rational comparison decides.
	if claim.Cmp(eps) >= 0 {
		rep.Bound, _ = eps.Float64()
		rep.Accepted = true
		return rep, nil
	}
	if l.hi.Cmp(level.hi) < 0 {
		level.hi = l.hi
	}
	rep.Bound, _ = newUp(53).Set(level.hi).Float64()
	if ratIval(claim).lo.Cmp(level.hi) < 0 {
		return reject("claim %s is below the checked level log((e^eps rho + 1)/(rho + e^eps)) = %s", f.Claim, level.hi.Text('g', 20))
	}
	rep.Accepted = true
	return rep, nil
}

// log1pexp encloses log(1 + e^x). Below x = -10^6 it is in [0, 2^-10^6]
// (e^-10^6 < 2^-10^6), where the exp of the lower end could underflow
// big.Float; the lower end is then 0, which is below the truth.
func log1pexp(x ival) ival {
	far := big.NewFloat(-1e6)
	tiny := new(big.Float).SetMantExp(big.NewFloat(1), -1_000_000)
	if x.hi.Cmp(far) < 0 {
		return ival{new(big.Float), tiny}
	}
	if x.lo.Cmp(far) >= 0 {
		return constIval(1).add(x.exp()).log()
	}
	r := constIval(1).add(ival{far, x.hi}.exp()).log()
	r.lo = new(big.Float)
	return r
}

// parseFields checks f's shape and reads the named decimal fields as exact
// rationals; every error wraps ErrMalformed.
func parseFields(f *certfile.File, fields ...[2]string) ([]*big.Rat, error) {
	if err := f.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	rats := make([]*big.Rat, len(fields))
	for i, x := range fields {
		r, err := parseRat(x[0], x[1])
		if err != nil {
			return nil, err
		}
		rats[i] = r
	}
	return rats, nil
}

// rejecter returns the function that records a failure in rep and returns
// it as a rejection (no error).
func rejecter(rep *Report) func(format string, args ...any) (Report, error) {
	return func(format string, args ...any) (Report, error) {
		rep.Failure = fmt.Sprintf(format, args...)
		return *rep, nil
	}
}

// closedGroup is n bits whose coins have biases in [lo, hi]; c is set
// (lo = c, hi = 1-c) for a group [c, 1-c].
type closedGroup struct {
	n      int
	c      *big.Rat
	lo, hi *big.Rat
}

// closedGroups returns the groups of a closed-form certificate and the
// name of its bound, or why they are rejected: without groups one, n bits
// sharing c in (0, 1/2) (n r_alpha(c)); with groups (at most
// certfile.MaxRangeGroups, Validate) each [lo_g, hi_g] with 0 < lo_g <=
// hi_g < 1 (or c_g in (0, 1/2)), in strictly increasing (lo, hi), each
// n_g a multiple of k (the k samples of n_g/k coordinates), sum_g n_g = n
// = d k. The error is a malformed number's.
func closedGroups(f *certfile.File) (gs []closedGroup, what, why string, err error) {
	one, half := big.NewRat(1, 1), big.NewRat(1, 2)
	if len(f.Groups) == 0 {
		c, err := parseRat("c", f.C)
		if err != nil {
			return nil, "", "", err
		}
		if c.Sign() <= 0 || c.Cmp(half) >= 0 {
			return nil, "", fmt.Sprintf("c = %s is not in (0, 1/2)", f.C), nil
		}
		return []closedGroup{{n: f.N, c: c, lo: c, hi: new(big.Rat).Sub(one, c)}}, "n r_alpha(c)", "", nil
	}
	sum := 0
	for i, g := range f.Groups {
		r := closedGroup{n: g.N}
		if g.C != "" {
			if r.c, err = parseRat(fmt.Sprintf("group %d c", i+1), g.C); err != nil {
				return nil, "", "", err
			}
			if r.c.Sign() <= 0 || r.c.Cmp(half) >= 0 {
				return nil, "", fmt.Sprintf("group %d: c = %s is not in (0, 1/2)", i+1, g.C), nil
			}
			r.lo, r.hi = r.c, new(big.Rat).Sub(one, r.c)
		} else {
			if r.lo, err = parseRat(fmt.Sprintf("group %d lo", i+1), g.Lo); err != nil {
				return nil, "", "", err
			}
			if r.hi, err = parseRat(fmt.Sprintf("group %d hi", i+1), g.Hi); err != nil {
				return nil, "", "", err
			}
			if r.lo.Sign() <= 0 || r.lo.Cmp(r.hi) > 0 || r.hi.Cmp(one) >= 0 {
				return nil, "", fmt.Sprintf("group %d: [lo, hi] = [%s, %s] is not a range with 0 < lo <= hi < 1", i+1, g.Lo, g.Hi), nil
			}
		}
		switch {
		case i > 0 && !(r.lo.Cmp(gs[i-1].lo) > 0 || r.lo.Cmp(gs[i-1].lo) == 0 && r.hi.Cmp(gs[i-1].hi) > 0):
			why = fmt.Sprintf("group %d: its (lo, hi) is not above the previous group's (the groups are in strictly increasing order)", i+1)
		case g.N%f.K != 0:
			why = fmt.Sprintf("group %d: n = %d is not a positive multiple of k = %d", i+1, g.N, f.K)
		case g.N > f.N-sum:
			why = fmt.Sprintf("the groups' n sum to more than n = %d", f.N)
		}
		if why != "" {
			return nil, "", why, nil
		}
		sum += g.N
		gs = append(gs, r)
	}
	if sum != f.N {
		return nil, "", fmt.Sprintf("the groups' n sum to %d, not n = d k = %d", sum, f.N), nil
	}
	return gs, "sum_g n_g b_g", "", nil
}

// pairRenyi encloses R(a || b) = log(a^alpha b^(1-alpha) + (1-a)^alpha
// (1-b)^(1-alpha)) / (alpha - 1), 0 < a, b < 1, a != b, as
//
//	(alpha - 1) R = u + log(1 + e^(v-u)),   u = log a + (alpha-1) log(a/b),
//	                                        v = log(1-a) + (alpha-1) log((1-a)/(1-b)),
//
// with u the larger of the two (its enclosure's upper end), so that no
// exponential overflows; a/b and (1-a)/(1-b) are exact rationals, so
// nothing cancels in the logs of the ratios.
func pairRenyi(a, b, alpha *big.Rat) ival {
	one := big.NewRat(1, 1)
	am1 := ratIval(new(big.Rat).Sub(alpha, one))
	am, bm := new(big.Rat).Sub(one, a), new(big.Rat).Sub(one, b)
	u := ratIval(a).log().add(am1.mul(ratIval(new(big.Rat).Quo(a, b)).log()))
	v := ratIval(am).log().add(am1.mul(ratIval(new(big.Rat).Quo(am, bm)).log()))
	if v.hi.Cmp(u.hi) > 0 {
		u, v = v, u
	}
	return u.add(log1pexp(v.sub(u))).div(am1)
}
