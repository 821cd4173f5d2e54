package accountant

import (
	"context"
	"math"

	"github.com/bernamp/bernamp"
	"github.com/bernamp/bernamp/certfile"
	"github.com/bernamp/bernamp/pld"
	"github.com/bernamp/bernamp/rdp"
)

// Source names a Composition's mechanism for its profile certificate
// (certfile.KindProfile): Kind "gaussian" with Sensitivity and Sigma,
// "laplace" with Sensitivity and B, "rr" with PT (p_true),
// "subsampled-gaussian" with Sensitivity, Sigma and Q; "rdp", "points"
// and "pld" (a mechanism known by a file) with Input (RDPSource,
// ProfileSource). Kind "" means a mechanism the independent checker has
// no bound for: its claim is reported not checked (bernamp.CheckNone).
type Source struct {
	Kind                         string
	Sensitivity, Sigma, B, PT, Q float64
	Input                        *certfile.InputPoint
}

// RDPSource names the mechanism of an RDP curve converted to its profile
// by conv (pld.FromRDP): the certificate holds the curve and conv's name.
func RDPSource(c rdp.Curve, conv rdp.Conversion) Source {
	return Source{Kind: "rdp", Input: &certfile.InputPoint{Conversion: conv.String(), Orders: c.Orders, RDP: c.Eps}}
}

// ProfileSource names the mechanism of a profile file as
// pld.ReadProfileInput read it: its points (kind "points") or its PLD
// (kind "pld").
func ProfileSource(in pld.Input) Source {
	if in.Fwd == nil {
		return Source{Kind: "points", Input: &certfile.InputPoint{Eps: in.Eps, Delta: in.Delta, Reverse: in.Reverse}}
	}
	ip := &certfile.InputPoint{H: in.Fwd.H, Remove: certfile.Masses{Lo: in.Fwd.Lo, Probs: in.Fwd.Probs, Inf: in.Fwd.Inf}}
	if in.Rev != nil {
		ip.Add = &certfile.Masses{Lo: in.Rev.Lo, Probs: in.Rev.Probs, Inf: in.Rev.Inf}
	}
	return Source{Kind: "pld", Input: ip}
}

// Claim margins. The checker (package verify) composes the certificate's
// PLD again by its own FFT with a proved error bound and adds what it
// cannot rule out (the rounding of the masses, T times); its delta at the
// solver's eps is above the solver's by a few parts in 10^9 (Gaussian sigma
// 2, c 0.1, T 100: 1.000000002e-5 at delta 1e-5). The claim printed and
// certified is therefore the solver's raised by the margin below, so that
// the checked number is the printed one: eps (1 + 1e-7) + 1e-9 at a delta,
// or delta (1 + 1e-6) + T 2^-48 at an eps. The margin is part of the
// claim whether or not the checker runs (Compose, ComposePlan), so that
// --no-check prints the same number, on the same side of the truth.
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

// PlanKind names one step kind of a plan for its profile certificate:
// the kernel (C 0: no amplification), the mechanism, the count.
type PlanKind struct {
	D, K   int
	C      float64
	Source Source
	Steps  int
}

// PlanKinds returns the kinds of a plan as pld.ReadPlanSteps gives them
// (mechanism "profile" with the file's data, ProfileSource; without it,
// Source.Kind "": not checked).
func PlanKinds(plan []pld.PlanStep) []PlanKind {
	out := make([]PlanKind, len(plan))
	for i, ps := range plan {
		src := Source{Sensitivity: ps.Sensitivity, Sigma: ps.Sigma, B: ps.B, PT: ps.PTrue, Q: ps.Q}
		switch ps.Mechanism {
		case "gaussian", "laplace", "rr", "subsampled-gaussian":
			src.Kind = ps.Mechanism
		case "profile":
			if ps.Input != nil {
				src = ProfileSource(*ps.Input)
			}
		}
		out[i] = PlanKind{D: max(ps.D, 1), K: max(ps.K, 1), C: ps.C, Source: src, Steps: ps.Count}
	}
	return out
}

// certifyProfile writes the profile certificate of the composition (one step kind: q's) into
// c.Certificate and has the independent checker check it (c.Check), as
// certifyPlan.
func certifyProfile(ctx context.Context, q Composition, acc *pld.Account, c *Claim) {
	certifyPlan(ctx, []PlanKind{{D: q.Kernel.D, K: q.Kernel.K, C: q.Kernel.C, Source: q.Source, Steps: q.Steps}}, q.Delta, q.Eps, acc, c)
}

// certifyPlan writes the profile certificate of c.Upper (already with its
// margin, withMargin) for the composition
// of the kinds (acc's step kinds, in order, on its one grid) into
// c.Certificate and has the independent checker check it (c.Check). A
// kind whose mechanism the checker does not cover, or an infinite claim,
// gets no certificate and status bernamp.CheckNone; a certificate the
// checker does not accept keeps its claim with status
// bernamp.CheckRejected (the claim is then not checked: callers must not
// call it certified).
func certifyPlan(ctx context.Context, kinds []PlanKind, delta, eps float64, acc *pld.Account, c *Claim) {
	byDelta := delta > 0
	if math.IsInf(c.Upper, 0) || math.IsNaN(c.Upper) {
		c.Check = bernamp.Check{Status: bernamp.CheckNone}
		return
	}
	var pts []certfile.ProfilePoint
	for i, k := range kinds {
		fwd, rev := acc.KindPLDs(i)
		if k.Source.Kind == "" || fwd == nil {
			c.Check = bernamp.Check{Status: bernamp.CheckNone}
			return
		}
		s := k.Source
		pt := certfile.ProfilePoint{D: k.D, K: k.K, C: k.C, Mechanism: s.Kind,
			Sensitivity: s.Sensitivity, Sigma: s.Sigma, B: s.B, PTrue: s.PT, Q: s.Q, Steps: k.Steps, Input: s.Input,
			H: fwd.H, Lo: fwd.Lo, Probs: fwd.Probs, Inf: fwd.Inf}
		if rev != nil {
			pt.RevLo, pt.RevProbs, pt.RevInf = rev.Lo, rev.Probs, rev.Inf
		}
		pts = append(pts, pt)
	}
	pt := pts[0]
	pt.Plan = pts[1:]
	if len(pt.Plan) == 0 {
		pt.Plan = nil
	}
	pt.ByDelta, pt.Delta, pt.Eps, pt.Claim = byDelta, delta, eps, c.Upper
	if !math.IsNaN(c.Lower) && !math.IsInf(c.Lower, 0) {
		pt.LB = c.Lower
	}
	c.Certificate = certfile.NewProfile(pt)
	c.Check = bernamp.CheckCertificate(ctx, c.Certificate)
}
