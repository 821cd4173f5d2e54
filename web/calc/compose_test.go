package calc

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/bernamp/bernamp"
	"github.com/bernamp/bernamp/accountant"
	"github.com/bernamp/bernamp/pld"
	"github.com/bernamp/bernamp/rdp"
)

// gauss is a compose form of the Gaussian with sigma 2 through one kernel.
func gauss(d, k, c, steps string) ComposeForm {
	return ComposeForm{Mechanism: "gaussian", Sigma: "2", D: d, K: k, C: c, Steps: steps}
}

func TestParseCompose(t *testing.T) {
	t.Parallel()
	pl, err := ParseCompose(gauss("2", "3", "0.25", "40"))
	if err != nil {
		t.Fatal(err)
	}
	if pl.Mechanism != "gaussian" || pl.Sigma == nil || *pl.Sigma != 2 || pl.Sensitivity != 1 || pl.D != 2 || pl.K != 3 || pl.C != 0.25 ||
		pl.Steps != 40 || pl.Delta != 1e-5 || pl.Discretization != ComposeDiscretization || pl.RDP || pl.B != nil || pl.Q != nil || pl.PTrue != nil {
		t.Errorf("plan %+v, want gaussian sigma 2 sensitivity 1, 2 3 0.25, 40 steps, delta 1e-5, grid step %v", pl, ComposeDiscretization)
	}
	// Only the chosen mechanism's parameters are read: a bad sigma is no
	// error for the Laplace mechanism.
	pl, err = ParseCompose(ComposeForm{Mechanism: "laplace", B: "0.5", Sensitivity: "2", Sigma: "bad", D: "1", K: "1", C: "0.1", Steps: "1", Delta: "1e-6", Discretization: "1e-4", RDP: true})
	if err != nil {
		t.Fatal(err)
	}
	if *pl.B != 0.5 || pl.Sensitivity != 2 || pl.Sigma != nil || pl.Delta != 1e-6 || pl.Discretization != 1e-4 || !pl.RDP {
		t.Errorf("plan %+v", pl)
	}
	// The messages and their order are bernamp compose's (browser_test.go
	// checks them against the binary).
	with := func(f ComposeForm, edit func(*ComposeForm)) ComposeForm { edit(&f); return f }
	base := gauss("1", "1", "0.1", "10")
	for _, tc := range []struct {
		desc  string
		f     ComposeForm
		field string
		msg   string
	}{
		{"c too big", with(base, func(f *ComposeForm) { f.C = "0.7" }), "c", "--d, --k, --c: c is 0.7, must be in (0, 0.5)"},
		{"d zero", with(base, func(f *ComposeForm) { f.D = "0" }), "d", "--d: d is 0, must be >= 1"},
		{"k zero", with(base, func(f *ComposeForm) { f.K = "0" }), "k", "--k: k is 0, must be >= 1"},
		{"d list", with(base, func(f *ComposeForm) { f.D = "1,2" }), "d", `--d: "1,2" is not an integer`},
		{"n too large", with(base, func(f *ComposeForm) { f.D, f.K = "1000000", "1001" }), "d", "--d, --k: d k = 1000000 x 1001 exceeds 1000000000"},
		{"steps zero", with(base, func(f *ComposeForm) { f.Steps = "0" }), "steps", "--steps: steps is 0, must be >= 1"},
		{"steps word", with(base, func(f *ComposeForm) { f.Steps = "x" }), "steps", `--steps: "x" is not an integer`},
		{"delta 1", with(base, func(f *ComposeForm) { f.Delta = "1" }), "delta", "--delta: delta is 1, must be in (0, 1)"},
		{"delta NaN", with(base, func(f *ComposeForm) { f.Delta = "NaN" }), "delta", "--delta: delta is NaN, must be in (0, 1)"},
		{"grid step -1", with(base, func(f *ComposeForm) { f.Discretization = "-1" }), "discretization", "--discretization: discretization is -1, must be in (0, 1] (or 0: automatic)"},
		{"sigma negative", with(base, func(f *ComposeForm) { f.Sigma = "-1" }), "sigma", "--sigma: sigma is -1, must be > 0 and finite"},
		{"sigma empty", with(base, func(f *ComposeForm) { f.Sigma = " " }), "sigma", "--sigma: needed with --mechanism gaussian"},
		{"sigma word", with(base, func(f *ComposeForm) { f.Sigma = "two" }), "sigma", `--sigma: "two" is not a number`},
		{"sigma tiny", with(base, func(f *ComposeForm) { f.Sigma = "1e-300" }), "sigma", "--mechanism gaussian: eps overflows at alpha 1.1 with sigma 1e-300"},
		{"sensitivity 0", with(base, func(f *ComposeForm) { f.Sensitivity = "0" }), "sensitivity", "--sensitivity: sensitivity is 0, must be > 0 and finite"},
		{"numbers first", with(base, func(f *ComposeForm) { f.C, f.Delta = "0.7", "x" }), "delta", `--delta: "x" is not a number`},
		{"delta before the kernel", with(base, func(f *ComposeForm) { f.C, f.Delta = "0.7", "2" }), "delta", "--delta: delta is 2, must be in (0, 1)"},
		{"laplace b", ComposeForm{Mechanism: "laplace", D: "1", K: "1", C: "0.1", Steps: "1"}, "b", "--b: needed with --mechanism laplace"},
		{"laplace small b", ComposeForm{Mechanism: "laplace", B: "0.001", D: "1", K: "1", C: "0.1", Steps: "1"}, "b", "--mechanism laplace: sensitivity/b is 1000, must be in (0, 700]"},
		{"rr p", ComposeForm{Mechanism: "rr", D: "1", K: "1", C: "0.1", Steps: "1"}, "p-true", "--p-true: needed with --mechanism rr (or --noise-parameter)"},
		{"rr p 1", ComposeForm{Mechanism: "rr", PTrue: "1", D: "1", K: "1", C: "0.1", Steps: "1"}, "p-true", "--p-true: p-true is 1, must be in (0, 1)"},
		{"sgm q", ComposeForm{Mechanism: "subsampled-gaussian", Sigma: "1", D: "1", K: "1", C: "0.1", Steps: "1"}, "q", "--q: q is 0, must be in (0, 1] (needed with --mechanism subsampled-gaussian)"},
		{"sgm q 2", ComposeForm{Mechanism: "subsampled-gaussian", Sigma: "1", Q: "2", D: "1", K: "1", C: "0.1", Steps: "1"}, "q", "--q: q is 2, must be in (0, 1] (needed with --mechanism subsampled-gaussian)"},
		{"no mechanism", ComposeForm{D: "1", K: "1", C: "0.1", Steps: "1"}, "mechanism", "--mechanism: give --mechanism gaussian|laplace|rr|subsampled-gaussian"},
		{"rdp mechanism", ComposeForm{Mechanism: "rdp", D: "1", K: "1", C: "0.1", Steps: "1"}, "mechanism", `--mechanism: mechanism is "rdp", must be gaussian, laplace, rr or subsampled-gaussian`},
	} {
		_, err := ParseCompose(tc.f)
		// The first bad field's error: the CLI's message.
		fes, ok := err.(FieldErrors)
		if !ok || len(fes) == 0 {
			t.Errorf("%s: error %v, want FieldErrors", tc.desc, err)
			continue
		}
		fe := fes[0]
		if fe.Field != "compose-"+tc.field || fe.Message != tc.msg {
			t.Errorf("%s: field %q message %q, want %q %q", tc.desc, fe.Field, fe.Message, "compose-"+tc.field, tc.msg)
		}
	}
}

// TestComposeJSON runs the page's JSON path (parse, compose) and checks it
// against accountant.ComposeClaim called as bernamp compose calls it: the
// same four values, bit for bit (natively; browser_test.go compares the
// page with the binary).
func TestComposeJSON(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		form    ComposeForm
		profile func() (pld.Profile, error)
		curve   func() (rdp.Curve, error)
		source  accountant.Source // as bernamp compose names the mechanism
	}{
		{ComposeForm{Mechanism: "gaussian", Sigma: "2", D: "1", K: "1", C: "0.1", Steps: "100", RDP: true},
			func() (pld.Profile, error) { return pld.Gaussian(1, 2) }, func() (rdp.Curve, error) { return rdp.Gaussian(2, nil) },
			accountant.Source{Kind: "gaussian", Sensitivity: 1, Sigma: 2}},
		{ComposeForm{Mechanism: "laplace", B: "1", Sensitivity: "0.5", D: "2", K: "2", C: "0.2", Steps: "20", Delta: "1e-6"},
			func() (pld.Profile, error) { return pld.Laplace(0.5, 1) }, nil, accountant.Source{Kind: "laplace", Sensitivity: 0.5, B: 1}},
		{ComposeForm{Mechanism: "rr", PTrue: "0.8", D: "1", K: "3", C: "0.05", Steps: "10", Discretization: "1e-2"},
			func() (pld.Profile, error) { return pld.RandomizedResponse(0.8) }, nil, accountant.Source{Kind: "rr", PT: 0.8}},
		{ComposeForm{Mechanism: "subsampled-gaussian", Sigma: "1", Q: "0.05", D: "1", K: "1", C: "0.1", Steps: "50", RDP: true},
			func() (pld.Profile, error) { return pld.SubsampledGaussian(1, 1, 0.05) }, nil, accountant.Source{Kind: "subsampled-gaussian", Sensitivity: 1, Sigma: 1, Q: 0.05}},
	} {
		form, _ := json.Marshal(tc.form)
		var pa ParseComposeAnswer
		if err := json.Unmarshal(ParseComposeJSON(form), &pa); err != nil {
			t.Fatal(err)
		}
		if pa.Error != nil || pa.Plan == nil {
			t.Fatalf("%s: parse answer %+v", tc.form.Mechanism, pa)
		}
		req, _ := json.Marshal(pa.Plan)
		var ca ComposeAnswer
		if err := json.Unmarshal(SolveComposeJSON(context.Background(), req), &ca); err != nil {
			t.Fatal(err)
		}
		if ca.Error != "" || ca.Row == nil {
			t.Fatalf("%s: compose answer %+v", tc.form.Mechanism, ca)
		}
		r := *ca.Row
		prof, err := tc.profile()
		if err != nil {
			t.Fatal(err)
		}
		opt := pld.DefaultOptions()
		opt.H = pa.Plan.Discretization
		// eps_upper's certificate checked, as bernamp compose does by
		// default.
		routes := accountant.Routes{Conversion: rdp.Balle2020, NoAmp: true, Check: true, Settings: &bernamp.Settings{Timeout: 5 * time.Second, Workers: 1}}
		wantRoute := "off"
		switch {
		case tc.form.Mechanism == "subsampled-gaussian":
			wantRoute = "none"
		case tc.curve != nil:
			c, err := tc.curve()
			if err != nil {
				t.Fatal(err)
			}
			routes.Curve, wantRoute = &c, "computed"
		}
		q := accountant.Composition{Mechanism: prof, Kernel: accountant.Kernel{D: pa.Plan.D, K: pa.Plan.K, C: pa.Plan.C}, Steps: pa.Plan.Steps, Delta: pa.Plan.Delta, Source: tc.source}
		want, err := accountant.ComposeClaim(context.Background(), q, opt, routes, nil)
		if err != nil {
			t.Fatal(err)
		}
		same := func(name string, got *float64, w float64) {
			if math.IsNaN(w) {
				if got != nil {
					t.Errorf("%s %s: page %v, want null (not computed)", tc.form.Mechanism, name, *got)
				}
				return
			}
			if got == nil || *got != w {
				t.Errorf("%s %s: page %v, ComposeClaim %v", tc.form.Mechanism, name, got, w)
			}
		}
		same("eps_upper", r.EpsUpper, want.Upper)
		same("eps_lower", r.EpsLower, want.Lower)
		same("eps_rdp", r.EpsRDP, want.RDP)
		same("eps_unamplified", r.EpsNoAmp, want.NoAmp)
		if r.Check != bernamp.CheckVerified || want.Check.Status != bernamp.CheckVerified || r.CheckFailure != "" {
			t.Errorf("%s: check %q (%s), ComposeClaim's %q; want verified", tc.form.Mechanism, r.Check, r.CheckFailure, want.Check.Status)
		}
		if r.RDPRoute != wantRoute || len(r.Infinite) != 0 {
			t.Errorf("%s: rdp_route %q infinite %v, want %q and none", tc.form.Mechanism, r.RDPRoute, r.Infinite, wantRoute)
		}
		if r.EpsLower == nil || r.EpsUpper == nil || !(*r.EpsLower <= *r.EpsUpper) || r.EpsNoAmp == nil || !(*r.EpsUpper <= *r.EpsNoAmp) {
			t.Errorf("%s: want lower <= upper <= unamplified: %+v", tc.form.Mechanism, r)
		}
	}
}

// TestComposeNoInf checks that an eps that is +Inf (no eps up to 700
// reaches delta: the Gaussian at sigma 0.001, hardly amplified at d = 10^6)
// is null and named, never a number the
// page would show as Infinity, and that bad requests are errors.
func TestComposeNoInf(t *testing.T) {
	t.Parallel()
	pl, err := ParseCompose(ComposeForm{Mechanism: "gaussian", Sigma: "0.001", D: "1000000", K: "1", C: "0.1", Steps: "1", Delta: "1e-5"})
	if err != nil {
		t.Fatal(err)
	}
	b := SolveComposeJSON(context.Background(), mustMarshal(pl))
	if s := string(b); strings.Contains(s, "Inf") || strings.Contains(s, "NaN") {
		t.Errorf("answer %s", s)
	}
	var ca ComposeAnswer
	if err := json.Unmarshal(b, &ca); err != nil || ca.Row == nil {
		t.Fatalf("answer %s: %v", b, err)
	}
	if r := ca.Row; r.EpsUpper != nil || r.EpsNoAmp != nil || r.EpsLower == nil || strings.Join(r.Infinite, ",") != "eps_upper,eps_unamplified" {
		t.Errorf("row %+v, want eps_upper and eps_unamplified infinite (null), eps_lower finite", r)
	}
	if r := ca.Row; r.Check != bernamp.CheckNone {
		t.Errorf("check %q, want none (no certificate for an infinite eps_upper)", r.Check)
	}
	for _, bad := range []string{
		`{"mechanism": "gaussian", "sigma": 2, "sensitivity": 1, "d": 1, "k": 1, "c": 0.7, "steps": 1, "delta": 1e-5, "discretization": 1e-3}`,
		`{"mechanism": "gaussian", "sensitivity": 1, "d": 1, "k": 1, "c": 0.1, "steps": 1, "delta": 1e-5, "discretization": 1e-3}`,
		`{"mechanism": "gaussian", "sigma": 2, "sensitivity": 1, "d": 1, "k": 1, "c": 0.1, "steps": 1, "delta": 0, "discretization": 1e-3}`,
		`{"mechanism": "gaussian", "sigma": 2, "sensitivity": 1, "d": 1, "k": 0, "c": 0.1, "steps": 1, "delta": 1e-5, "discretization": 1e-3}`,
		`{"mechanism": "laplace", "b": 1, "sensitivity": 1, "d": 1, "k": 1, "c": 0.1, "steps": 1, "delta": 1e-5, "discretization": 2}`,
		`not json`,
	} {
		var a ComposeAnswer
		if err := json.Unmarshal(SolveComposeJSON(context.Background(), []byte(bad)), &a); err != nil || a.Error == "" || a.Row != nil {
			t.Errorf("%s: %+v, want an error", bad, a)
		}
	}
	// A grid too fine for the composition is the engine's error, not a
	// crash: 10^6 steps at 1e-4 need more than pld.MaxPoints points.
	pl, err = ParseCompose(ComposeForm{Mechanism: "gaussian", Sigma: "0.01", D: "1", K: "1", C: "0.1", Steps: "1000000", Discretization: "1e-4"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := SolveCompose(context.Background(), *pl); err == nil || !strings.Contains(err.Error(), "coarser") {
		t.Errorf("error %v, want the engine's advice for a coarser grid", err)
	}
}
