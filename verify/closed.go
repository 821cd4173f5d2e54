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
func checkClosedForm(ctx context.Context, f *certfile.File) (Report, error) {
	if err := f.Validate(); err != nil {
		return Report{}, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	var rep Report
	reject := func(format string, args ...any) (Report, error) {
		rep.Failure = fmt.Sprintf(format, args...)
		return rep, nil
	}
	rats := make([]*big.Rat, 4)
	for i, x := range []struct{ name, v string }{{"c", f.C}, {"alpha", f.Alpha}, {"eps", f.Eps}, {"claim", f.Claim}} {
		r, err := parseRat(x.name, x.v)
		if err != nil {
			return Report{}, err
		}
		rats[i] = r
	}
	c, alpha, eps, claim := rats[0], rats[1], rats[2], rats[3]
	one, half := big.NewRat(1, 1), big.NewRat(1, 2)
	switch {
	case f.D < 1 || f.K < 1 || f.N != f.D*f.K || f.N/f.K != f.D:
		return reject("n = %d is not d k = %d x %d", f.N, f.D, f.K)
	case c.Sign() <= 0 || c.Cmp(half) >= 0:
		return reject("c = %s is not in (0, 1/2)", f.C)
	case alpha.Cmp(one) <= 0:
		return reject("alpha = %s is not > 1", f.Alpha)
	case eps.Sign() < 0:
		return reject("eps = %s is negative", f.Eps)
	}
	if claim.Cmp(eps) >= 0 {
		rep.Bound, _ = eps.Float64()
		rep.Accepted = true
		return rep, nil
	}
	if err := ctx.Err(); err != nil {
		return rep, err
	}
	bound := asymptote(f.N, c, alpha)
	rep.Bound, _ = newUp(53).Set(bound.hi).Float64()
	if ratIval(claim).lo.Cmp(bound.hi) < 0 {
		return reject("claim %s is below the checked bound min(eps, n r_alpha(c)) = min(%s, %s)", f.Claim, f.Eps, bound.hi.Text('g', 20))
	}
	rep.Accepted = true
	return rep, nil
}

// asymptote encloses n r_alpha(c) (see checkClosedForm).
func asymptote(n int, c, alpha *big.Rat) ival {
	one := big.NewRat(1, 1)
	cm := new(big.Rat).Sub(one, c) // 1 - c
	a, am1 := ratIval(alpha), ratIval(new(big.Rat).Sub(alpha, one))
	logC, logCm := ratIval(c).log(), ratIval(cm).log()
	// (c/(1-c))^(2 alpha - 1) = exp((2 alpha - 1) log(c/(1-c))), below 1.
	twoAm1 := ratIval(new(big.Rat).Sub(new(big.Rat).Add(alpha, alpha), one))
	ratio := ratIval(new(big.Rat).Quo(c, cm)).log().mul(twoAm1).exp()
	logA := a.mul(logCm).sub(am1.mul(logC)).add(constIval(1).add(ratio).log())
	return intIval(big.NewInt(int64(n))).mul(logA.div(am1))
}
