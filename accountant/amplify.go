package accountant

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/bernamp/bernamp"
	"github.com/bernamp/bernamp/bounds"
	"github.com/bernamp/bernamp/check"
	"github.com/bernamp/bernamp/parallel"
	"github.com/bernamp/bernamp/rdp"
)

// Kernel is the Bernoulli post-sampling B_k on [C, 1-C]^D.
type Kernel struct {
	D int     // dimension of theta, >= 1
	K int     // Bernoulli samples released, >= 1
	C float64 // range constant, 0 < C < 1/2
}

// Validate returns an error naming the first field outside its domain.
func (k Kernel) Validate() error {
	for _, err := range []error{check.D(k.D), check.K(k.K), check.C(k.C)} {
		if err != nil {
			return err
		}
	}
	return nil
}

// MethodAsymptote is the Result.Method of an order with eps = +Inf.
const MethodAsymptote = "asymptote d k r_alpha(c) (eps = inf)"

// Post returns the amplified level at one order: bernamp.Post for a finite
// eps, and for eps = +Inf the exact level
//
//	sup over all P, Q of R_alpha(B_k P || B_k Q) = d k r_alpha(c),
//
// attained by the point masses P = 1[c^d], Q = 1[(1-c)^d] (the Theorem 4
// pair at p = 0, which Post's LB tends to as eps grows) and an upper bound
// for every pair by additivity over the d k independent flips and joint
// quasi-convexity (bounds.Upper). Its Result has Eps = +Inf, LB = Post the
// asymptote rounded down and PostUpper = UB = UBAsymptote rounded up.
func Post(ctx context.Context, k Kernel, alpha, eps float64, s *bernamp.Settings) (bernamp.Result, error) {
	if !math.IsInf(eps, 1) {
		return bernamp.Post(ctx, bernamp.Params{D: k.D, K: k.K, C: k.C, Alpha: alpha, Eps: eps}, s)
	}
	pt, err := check.NewValidPoint(k.D, k.K, k.C, alpha, 0)
	if err != nil {
		return bernamp.Result{}, fmt.Errorf("accountant.Post: %w", err)
	}
	u := bounds.UpperAt(pt) // d k r_alpha(c), rounded up and down
	up, lo := u.Asymptote, u.AsymptoteLower
	r := bernamp.Result{
		Params: bernamp.Params{D: k.D, K: k.K, C: k.C, Alpha: alpha, Eps: eps},
		LB:     lo, Post: lo, PostUpper: up, UB: up, UBPostProcessing: eps, UBAsymptote: up,
		Status: bernamp.StatusCertified, Conjecture: bernamp.ConjectureProved, Method: MethodAsymptote,
		Check: bernamp.Check{Status: bernamp.CheckNone},
	}
	return r, nil
}

// Amplify returns the amplified curve of c through the kernel: at each
// order the proved upper bound PostUpper of Post (with settings s, orders
// solved by workers goroutines; the result does not depend on workers),
// made nondecreasing by rdp.FromBounds (valid: R_alpha is nondecreasing in
// alpha). The amplified curve is finite at every order, +Inf ones
// included. It also returns the per-order results. A cancelled ctx returns
// its error.
func Amplify(ctx context.Context, c Curve, k Kernel, s *bernamp.Settings, workers int) (rdp.Curve, []bernamp.Result, error) {
	if err := c.Validate(); err != nil {
		return rdp.Curve{}, nil, fmt.Errorf("accountant.Amplify: %w", err)
	}
	if err := k.Validate(); err != nil {
		return rdp.Curve{}, nil, fmt.Errorf("accountant.Amplify: %w", err)
	}
	n := len(c.Orders)
	res := make([]bernamp.Result, n)
	do := func(ctx context.Context, i int) (bernamp.Result, error) {
		r, err := Post(ctx, k, c.Orders[i], c.Eps[i], s)
		if err != nil {
			return r, fmt.Errorf("order %v: %w", c.Orders[i], err)
		}
		return r, nil
	}
	err := parallel.Map(ctx, n, max(1, workers), do, func(i int, r bernamp.Result) error { res[i] = r; return nil })
	if err == nil {
		err = ctx.Err() // a solve cut short keeps a proved bound, but the caller asked to stop
	}
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return rdp.Curve{}, nil, err
		}
		return rdp.Curve{}, nil, fmt.Errorf("accountant.Amplify: %w", err)
	}
	up := make([]float64, n)
	for i, r := range res {
		up[i] = r.PostUpper
	}
	out, err := rdp.FromBounds(c.Orders, up)
	if err != nil {
		return rdp.Curve{}, nil, fmt.Errorf("accountant.Amplify: %w", err)
	}
	return out, res, nil
}
