package accountant

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/bernamp/bernamp"
	"github.com/bernamp/bernamp/certfile"
	"github.com/bernamp/bernamp/pld"
	"github.com/bernamp/bernamp/rdp"
)

// TestCertifyProfileCheck: a Gaussian, a Laplace and a randomized-response
// composition, and mechanisms known by a file (an RDP curve with each
// conversion, profile points with a reverse direction, a PLD), get a
// profile certificate that the checker accepts, with the claim the margin
// above the solver's; a mechanism with no source gets none.
func TestCertifyProfileCheck(t *testing.T) {
	g, _ := pld.Gaussian(1, 2)
	l, _ := pld.Laplace(1, 1)
	r, _ := pld.RandomizedResponse(0.8)
	fromPoints, _ := pld.FromPoints("points", []float64{0, 1}, []float64{0.2, 0.05}, nil)
	pe, pd, pr := []float64{-1, 0, 0.5, 1, 2}, []float64{0.8, 0.3, 0.15, 0.05, 0.001}, []float64{0.7, 0.2, 0.05, 0.01, 0}
	asym, err := pld.FromPoints("asym", pe, pd, pr)
	if err != nil {
		t.Fatal(err)
	}
	curve := rdp.Curve{Orders: []float64{1.005, 1.5, 2, 3, 4, 8, 16, 32}, Eps: []float64{0.02, 0.1875, 0.25, 0.375, 0.5, 1, 2, 4}}
	var rdps []pld.Profile
	for _, conv := range []rdp.Conversion{rdp.Balle2020, rdp.Mironov2017, rdp.DPAccounting} {
		p, err := pld.FromRDP(curve, conv, "rdp "+conv.String())
		if err != nil {
			t.Fatal(err)
		}
		rdps = append(rdps, p)
	}
	pldIn := &pld.PLD{H: 0.01, Lo: -50, Probs: make([]float64, 101), Pessimistic: true}
	for i := range pldIn.Probs { // a coarse Laplace-like PLD on [-0.5, 0.5]
		pldIn.Probs[i] = 1.0 / 101
	}
	fromPLD, err := pld.FromPLD("pld", pldIn, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		m      pld.Profile
		src    Source
		status string
	}{
		{g, Source{Kind: "gaussian", Sensitivity: 1, Sigma: 2}, bernamp.CheckVerified},
		{l, Source{Kind: "laplace", Sensitivity: 1, B: 1}, bernamp.CheckVerified},
		{r, Source{Kind: "rr", PT: 0.8}, bernamp.CheckVerified},
		{fromPoints, Source{}, bernamp.CheckNone},
		{fromPoints, ProfileSource(pld.Input{Eps: []float64{0, 1}, Delta: []float64{0.2, 0.05}}), bernamp.CheckVerified},
		{asym, ProfileSource(pld.Input{Eps: pe, Delta: pd, Reverse: pr}), bernamp.CheckVerified},
		{rdps[0], RDPSource(curve, rdp.Balle2020), bernamp.CheckVerified},
		{rdps[1], RDPSource(curve, rdp.Mironov2017), bernamp.CheckVerified},
		{rdps[2], RDPSource(curve, rdp.DPAccounting), bernamp.CheckVerified},
		{fromPLD, ProfileSource(pld.Input{Fwd: pldIn}), bernamp.CheckVerified},
	} {
		q := Composition{Mechanism: tc.m, Kernel: Kernel{D: 1, K: 1, C: 0.1}, Steps: 10, Delta: 1e-6, Source: tc.src}
		opt := pld.DefaultOptions()
		opt.H = 1e-3
		plain, err := ComposeClaim(context.Background(), q, opt, Routes{NoLower: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		c, err := ComposeClaim(context.Background(), q, opt, Routes{NoLower: true, Check: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if c.Check.Status != tc.status || plain.Check.Status != bernamp.CheckOff {
			t.Errorf("%s: check %+v (off: %+v), want %s", tc.m.Name, c.Check, plain.Check, tc.status)
		}
		// The margin is in the claim with or without the checker: one
		// number, and the certificate states it.
		if c.Upper != plain.Upper || (c.Certificate != nil && c.Certificate.Claim != certfile.Exact(c.Upper)) {
			t.Errorf("%s: claim %v (certificate %v), without the check %v", tc.m.Name, c.Upper, c.Certificate, plain.Upper)
		}
	}
}

// BenchmarkComposeCheck: the solver's claim (ComposeClaim, claim only)
// beside the checker on its certificate, Gaussian sigma 2, c 0.1, delta
// 1e-5, automatic discretization, T 10, 100, 1000.
func BenchmarkComposeCheck(b *testing.B) {
	g, _ := pld.Gaussian(1, 2)
	for _, steps := range []int{10, 100, 1000} {
		q := Composition{Mechanism: g, Kernel: Kernel{D: 1, K: 1, C: 0.1}, Steps: steps, Delta: 1e-5, Source: Source{Kind: "gaussian", Sensitivity: 1, Sigma: 2}}
		opt := pld.DefaultOptions()
		opt.H = 0
		benchSolverCheck(b, fmt.Sprintf("T=%d", steps), q, opt)
	}
}

// benchSolverCheck runs the solver's claim of q (claim only) as name/solver
// beside the checker on its certificate as name/check.
func benchSolverCheck(b *testing.B, name string, q Composition, opt pld.Options) {
	b.Run(name+"/solver", func(b *testing.B) {
		for b.Loop() {
			if _, err := ComposeClaim(context.Background(), q, opt, Routes{NoLower: true}, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	c, err := ComposeClaim(context.Background(), q, opt, Routes{NoLower: true, Check: true}, nil)
	if err != nil || c.Check.Status != bernamp.CheckVerified {
		b.Fatalf("%v %+v", err, c.Check)
	}
	b.Run(name+"/check", func(b *testing.B) {
		for b.Loop() {
			if ch := bernamp.CheckCertificate(context.Background(), c.Certificate); ch.Status != bernamp.CheckVerified {
				b.Fatal(ch)
			}
		}
	})
}

// planJSON is testdata/compose/plan.json's mix (docs/compose.md): 100
// amplified Gaussian steps, 20 amplified Laplace steps at d = 2 and 5
// Gaussian steps released as they are.
const planJSON = `{"steps": [
  {"mechanism": "gaussian", "sigma": 2, "c": 0.1, "count": 100},
  {"mechanism": "laplace", "b": 2, "c": 0.3, "d": 2, "count": 20},
  {"mechanism": "gaussian", "sigma": 4, "count": 5}
]}`

// TestComposePlanCheck: a plan of three kinds gets a profile certificate
// of three kinds that the checker accepts, with the claim the margin above
// the solver's (eps at delta, and delta at eps); without the check it is
// off; a plan with a mechanism the checker does not cover gets none.
func TestComposePlanCheck(t *testing.T) {
	plan, steps, err := pld.ReadPlanSteps(strings.NewReader(planJSON), ".")
	if err != nil {
		t.Fatal(err)
	}
	opt := pld.DefaultOptions()
	opt.H = 1e-3
	for _, q := range []struct{ delta, eps float64 }{{1e-5, 0}, {0, 15}} {
		plain, err := ComposePlan(context.Background(), plan, PlanKinds(steps), q.delta, q.eps, opt, false, false)
		if err != nil {
			t.Fatal(err)
		}
		c, err := ComposePlan(context.Background(), plan, PlanKinds(steps), q.delta, q.eps, opt, false, true)
		if err != nil {
			t.Fatal(err)
		}
		if c.Check.Status != bernamp.CheckVerified || plain.Check.Status != bernamp.CheckOff {
			t.Errorf("%+v: check %+v (off: %+v), want verified", q, c.Check, plain.Check)
		}
		if c.Certificate == nil || len(c.Certificate.Profile.Plan) != 2 || c.Certificate.Profile.Plan[0].Mechanism != "laplace" || c.Certificate.Profile.Plan[0].D != 2 {
			t.Errorf("%+v: certificate %+v, want three kinds", q, c.Certificate)
		}
		if c.Upper != plain.Upper || c.Certificate == nil || c.Certificate.Claim != certfile.Exact(c.Upper) {
			t.Errorf("%+v: claim %v, without the check %v", q, c.Upper, plain.Upper)
		}
	}
	kinds := PlanKinds(steps)
	kinds[2].Source.Kind = "" // no source: nothing to bound
	c, err := ComposePlan(context.Background(), plan, kinds, 1e-5, 0, opt, false, true)
	if err != nil || c.Check.Status != bernamp.CheckNone || c.Certificate != nil {
		t.Errorf("uncovered kind: %+v, %v; want none", c.Check, err)
	}
}

// planInputJSON mixes a Gaussian step with profile steps from files
// (testdata/compose/plan_profile.json): profile points with a reverse
// direction and a PLD.
const planInputJSON = `{"steps": [
  {"mechanism": "gaussian", "sigma": 2, "c": 0.1, "count": 10},
  {"mechanism": "profile", "in": "points_subsampled.csv", "c": 0.1, "count": 8},
  {"mechanism": "profile", "in": "pld_gaussian.json", "c": 0.2, "d": 2, "count": 3}
]}`

// TestComposePlanInputCheck: a plan with profile steps read from files
// names them (PlanKinds: points and pld with the files' data) and gets a
// certificate of three kinds that the checker accepts.
func TestComposePlanInputCheck(t *testing.T) {
	plan, steps, err := pld.ReadPlanSteps(strings.NewReader(planInputJSON), "../testdata/compose")
	if err != nil {
		t.Fatal(err)
	}
	kinds := PlanKinds(steps)
	if kinds[1].Source.Kind != "points" || len(kinds[1].Source.Input.Reverse) != 61 || kinds[2].Source.Kind != "pld" || kinds[2].Source.Input.H != 1e-3 {
		t.Fatalf("kinds %+v", kinds)
	}
	opt := pld.DefaultOptions()
	opt.H = 1e-3
	c, err := ComposePlan(context.Background(), plan, kinds, 1e-6, 0, opt, false, true)
	if err != nil || c.Check.Status != bernamp.CheckVerified {
		t.Fatalf("%+v, %v; want verified", c.Check, err)
	}
	if p := c.Certificate.Profile; p.Mechanism != "gaussian" || p.Plan[0].Mechanism != "points" || p.Plan[1].Mechanism != "pld" || p.Plan[1].D != 2 {
		t.Errorf("certificate kinds %s, %+v", p.Mechanism, p.Plan)
	}
}

// BenchmarkComposeInputCheck: the solver's claim (claim only) beside the
// checker on its certificate for mechanisms known by a file: the
// Gaussian's RDP curve at sigma 2 (balle2020), the subsampled Gaussian's
// points with reverse, the emitted PLD (testdata/compose), c 0.1, T 10,
// delta 1e-6, automatic discretization.
func BenchmarkComposeInputCheck(b *testing.B) {
	_, steps, err := pld.ReadPlanSteps(strings.NewReader(planInputJSON), "../testdata/compose")
	if err != nil {
		b.Fatal(err)
	}
	orders := []float64{1.25, 1.5, 1.75, 2, 2.5, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 48, 64, 128, 256}
	curve := rdp.Curve{Orders: orders, Eps: make([]float64, len(orders))}
	for i, a := range orders {
		curve.Eps[i] = a / 8
	}
	fromRDP, _ := pld.FromRDP(curve, rdp.Balle2020, "rdp")
	plan, _, _ := pld.ReadPlanSteps(strings.NewReader(planInputJSON), "../testdata/compose")
	for _, tc := range []struct {
		name string
		m    pld.Profile
		src  Source
	}{
		{"rdp", fromRDP, RDPSource(curve, rdp.Balle2020)},
		{"points", plan[1].Mechanism, ProfileSource(*steps[1].Input)},
		{"pld", plan[2].Mechanism, ProfileSource(*steps[2].Input)},
	} {
		q := Composition{Mechanism: tc.m, Kernel: Kernel{D: 1, K: 1, C: 0.1}, Steps: 10, Delta: 1e-6, Source: tc.src}
		opt := pld.DefaultOptions()
		opt.H = 0
		benchSolverCheck(b, tc.name, q, opt)
	}
}

// BenchmarkComposePlanCheck: the solver's claim of planJSON (ComposePlan,
// automatic discretization, delta 1e-5) beside the checker on its
// certificate of three kinds.
func BenchmarkComposePlanCheck(b *testing.B) {
	plan, steps, err := pld.ReadPlanSteps(strings.NewReader(planJSON), ".")
	if err != nil {
		b.Fatal(err)
	}
	opt := pld.DefaultOptions()
	opt.H = 0
	b.Run("solver", func(b *testing.B) {
		for b.Loop() {
			if _, err := ComposePlan(context.Background(), plan, PlanKinds(steps), 1e-5, 0, opt, false, false); err != nil {
				b.Fatal(err)
			}
		}
	})
	c, err := ComposePlan(context.Background(), plan, PlanKinds(steps), 1e-5, 0, opt, false, true)
	if err != nil || c.Check.Status != bernamp.CheckVerified {
		b.Fatalf("%v %+v", err, c.Check)
	}
	b.Run("check", func(b *testing.B) {
		for b.Loop() {
			if ch := bernamp.CheckCertificate(context.Background(), c.Certificate); ch.Status != bernamp.CheckVerified {
				b.Fatal(ch)
			}
		}
	})
}
