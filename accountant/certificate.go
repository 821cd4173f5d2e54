package accountant

import (
	"context"
	"math"

	"github.com/bernamp/bernamp"
	"github.com/bernamp/bernamp/certfile"
	"github.com/bernamp/bernamp/pld"
)

// Source names a Composition's mechanism for its profile certificate
// (certfile.KindProfile): Kind "gaussian" with Sensitivity and Sigma,
// "laplace" with Sensitivity and B, "rr" with PT (p_true),
// "subsampled-gaussian" with Sensitivity, Sigma and Q. Kind "" means a
// mechanism the independent checker has no bound for: its claim is
// reported not checked (bernamp.CheckNone).
type Source struct {
	Kind                         string
	Sensitivity, Sigma, B, PT, Q float64
}

// Claim margins. The checker (package verify) composes the certificate's
// PLD again by its own FFT with a proved error bound and adds what it
// cannot rule out (the rounding of the masses, T times); its delta at the
// solver's eps is above the solver's by a few parts in 10^9 (Gaussian sigma
// 2, c 0.1, T 100: 1.000000002e-5 at delta 1e-5). The claim printed and
// certified is therefore the solver's raised by the margin below, so that
// the checked number is the printed one: eps (1 + 1e-7) + 1e-9 at a delta,
// or delta (1 + 1e-6) + T 2^-48 at an eps.
const (
	epsMarginRel   = 1e-7
	epsMarginAbs   = 1e-9
	deltaMarginRel = 1e-6
	deltaMarginAbs = 0x1p-48 // per step
)

// withMargin returns the claim the certificate states for the solver's
// upper value v (eps at a delta when byDelta, else delta at an eps).
func withMargin(v float64, byDelta bool, steps int) float64 {
	if math.IsInf(v, 0) || math.IsNaN(v) || v == 0 {
		return v // 0: checked as it is
	}
	if byDelta {
		return math.Nextafter(v*(1+epsMarginRel)+epsMarginAbs, math.Inf(1))
	}
	return math.Min(1, math.Nextafter(v*(1+deltaMarginRel)+float64(steps)*deltaMarginAbs, math.Inf(1)))
}

// certifyProfile sets c.Upper to the claim with its margin, writes the
// profile certificate of the composition (one step kind: q's) into
// c.Certificate and has the independent checker check it (c.Check). A
// mechanism the checker does not cover, or an infinite claim, gets no
// certificate and status bernamp.CheckNone; a certificate the checker
// does not accept keeps its claim with status bernamp.CheckRejected (the
// claim is then not checked: callers must not call it certified).
func certifyProfile(ctx context.Context, q Composition, acc *pld.Account, c *Claim) {
	byDelta := q.Delta > 0
	c.Upper = withMargin(c.Upper, byDelta, q.Steps)
	fwd, rev := acc.StepPLDs()
	if q.Source.Kind == "" || fwd == nil || math.IsInf(c.Upper, 0) || math.IsNaN(c.Upper) {
		c.Check = bernamp.Check{Status: bernamp.CheckNone}
		return
	}
	pt := certfile.ProfilePoint{D: q.Kernel.D, K: q.Kernel.K, C: q.Kernel.C, Mechanism: q.Source.Kind,
		Sensitivity: q.Source.Sensitivity, Sigma: q.Source.Sigma, B: q.Source.B, PTrue: q.Source.PT, Q: q.Source.Q, Steps: q.Steps, ByDelta: byDelta, Delta: q.Delta, Eps: q.Eps,
		Claim: c.Upper, H: fwd.H, Lo: fwd.Lo, Probs: fwd.Probs, Inf: fwd.Inf}
	if !math.IsNaN(c.Lower) && !math.IsInf(c.Lower, 0) {
		pt.LB = c.Lower
	}
	if rev != nil {
		pt.RevLo, pt.RevProbs, pt.RevInf = rev.Lo, rev.Probs, rev.Inf
	}
	c.Certificate = certfile.NewProfile(pt)
	c.Check = bernamp.CheckCertificate(ctx, c.Certificate)
}
