package calc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/bernamp/bernamp"
	"github.com/bernamp/bernamp/accountant"
	"github.com/bernamp/bernamp/check"
	"github.com/bernamp/bernamp/internal/valuelist"
	"github.com/bernamp/bernamp/pld"
	"github.com/bernamp/bernamp/rdp"
)

// ComposeDiscretization is the page's default PLD grid step in nats. The
// CLI's default (bernamp compose --discretization) is 1e-4, dp_accounting's;
// the page's ten times coarser grid keeps a composition in WebAssembly
// within seconds. Upper stays an upper bound at any step (the PLD is
// pessimistic), only looser.
const ComposeDiscretization = 1e-3

// ComposeRDPTimeout is the time limit per order of the RDP route's
// amplified curve, bernamp compose's --rdp-timeout default.
const ComposeRDPTimeout = 5 * time.Second

// ComposeForm is the page's compose panel, each field as typed: eps at
// delta after Steps adaptive steps of a mechanism whose output theta in
// [c, 1-c]^d is released as k Bernoulli samples, as bernamp compose
// answers it (single values; the CLI also takes lists and ranges). Only the
// parameters of the chosen mechanism are read.
type ComposeForm struct {
	Mechanism      string `json:"mechanism"`      // gaussian, laplace, rr or subsampled-gaussian
	Sigma          string `json:"sigma"`          // gaussian, subsampled-gaussian: noise standard deviation, > 0
	Sensitivity    string `json:"sensitivity"`    // gaussian, laplace, subsampled-gaussian; "" means 1, the CLI's default
	B              string `json:"b"`              // laplace: scale, > 0
	PTrue          string `json:"p-true"`         // rr: probability of reporting the true bit, in (0, 1)
	Q              string `json:"q"`              // subsampled-gaussian: Poisson sampling rate, in (0, 1]
	D              string `json:"d"`              // dimension of theta, an integer >= 1
	K              string `json:"k"`              // Bernoulli samples released, an integer >= 1
	C              string `json:"c"`              // range constant in (0, 0.5)
	Steps          string `json:"steps"`          // adaptive steps composed, an integer >= 1
	Delta          string `json:"delta"`          // in (0, 1); "" means 1e-5, the CLI's default
	Discretization string `json:"discretization"` // PLD grid step in (0, 1], 0 automatic as the CLI's; "" means ComposeDiscretization
	RDP            bool   `json:"rdp"`            // also the RDP route (slow in the page)
}

// ComposePlan is a ComposeForm read into numbers: the request of
// SolveCompose. A nil parameter was left empty (the CLI's flag not set).
type ComposePlan struct {
	Mechanism      string   `json:"mechanism"`
	Sigma          *float64 `json:"sigma,omitempty"`
	Sensitivity    float64  `json:"sensitivity"`
	B              *float64 `json:"b,omitempty"`
	PTrue          *float64 `json:"p_true,omitempty"`
	Q              *float64 `json:"q,omitempty"`
	D              int      `json:"d"`
	K              int      `json:"k"`
	C              float64  `json:"c"`
	Steps          int      `json:"steps"`
	Delta          float64  `json:"delta"`
	Discretization float64  `json:"discretization"`
	RDP            bool     `json:"rdp"`
}

// composeFieldErr is a FieldError on a field of the compose panel: Field
// is the page's id (compose-d, ...), the message the CLI's.
func composeFieldErr(field, format string, args ...any) *FieldError {
	return &FieldError{Field: "compose-" + field, Message: fmt.Sprintf(format, args...)}
}

// mechanismParams are the parameters each mechanism reads, in the page's
// order.
var mechanismParams = map[string][]string{
	"gaussian":            {"sigma", "sensitivity"},
	"laplace":             {"b", "sensitivity"},
	"rr":                  {"p-true"},
	"subsampled-gaussian": {"sigma", "q", "sensitivity"},
}

// ParseCompose reads f and validates it as bernamp compose validates its
// flags, with the CLI's messages and in its order: the numbers (the CLI's
// flag package parses them first), then d, k, c and steps, the kernel,
// delta, the discretization and the mechanism's parameters. The error is a
// FieldErrors naming every bad field of the page (one message a field, the
// one the CLI gives when that field alone is wrong); an unknown mechanism
// is the only error then, as the parameters depend on it.
func ParseCompose(f ComposeForm) (*ComposePlan, error) {
	pl := &ComposePlan{Mechanism: strings.TrimSpace(f.Mechanism), Sensitivity: 1, Delta: 1e-5, Discretization: ComposeDiscretization, RDP: f.RDP}
	params, ok := mechanismParams[pl.Mechanism]
	if !ok {
		return nil, FieldErrors{composeMechanismErr(pl.Mechanism)}
	}
	var bad FieldErrors
	opt := func(name, s string, dst **float64) {
		if strings.TrimSpace(s) == "" {
			return
		}
		v, err := valuelist.Float(s)
		if err != nil {
			bad = append(bad, composeFieldErr(name, "--%s: %v", name, err))
			return
		}
		*dst = &v
	}
	for _, name := range params {
		switch name {
		case "sigma":
			opt(name, f.Sigma, &pl.Sigma)
		case "b":
			opt(name, f.B, &pl.B)
		case "p-true":
			opt(name, f.PTrue, &pl.PTrue)
		case "q":
			opt(name, f.Q, &pl.Q)
		case "sensitivity":
			var v *float64
			if opt(name, f.Sensitivity, &v); v != nil {
				pl.Sensitivity = *v
			}
		}
	}
	for _, x := range []struct {
		name, s string
		dst     *float64
	}{{"delta", f.Delta, &pl.Delta}, {"discretization", f.Discretization, &pl.Discretization}} {
		var v *float64
		if opt(x.name, x.s, &v); v != nil {
			*x.dst = *v
		}
	}
	for _, x := range []struct {
		name, s string
		dst     *int
	}{{"d", f.D, &pl.D}, {"k", f.K, &pl.K}} {
		v, err := valuelist.Int(x.s)
		if err != nil {
			bad = append(bad, composeFieldErr(x.name, "--%s: %v", x.name, err))
		}
		*x.dst = v
	}
	v, err := valuelist.Float(f.C)
	if err != nil {
		bad = append(bad, composeFieldErr("c", "--c: %v", err))
	}
	pl.C = v
	if pl.Steps, err = valuelist.Int(f.Steps); err != nil {
		bad = append(bad, composeFieldErr("steps", "--steps: %v", err))
	}
	if _, err := pl.check(bad); err != nil {
		return nil, err
	}
	return pl, nil
}

func composeMechanismErr(m string) *FieldError {
	if m == "" {
		return composeFieldErr("mechanism", "--mechanism: give --mechanism gaussian|laplace|rr|subsampled-gaussian")
	}
	return composeFieldErr("mechanism", "--mechanism: mechanism is %q, must be gaussian, laplace, rr or subsampled-gaussian", m)
}

// composeJob is a validated ComposePlan: the mechanism's privacy profile
// and RDP curve (nil for the subsampled Gaussian, as in the CLI), the
// kernel.
type composeJob struct {
	profile pld.Profile
	curve   *rdp.Curve
	kernel  accountant.Kernel
	source  accountant.Source // the mechanism named for eps_upper's profile certificate
}

// job validates the plan's values after parsing, in the order and with the
// messages of bernamp compose (cmd/bernamp/compose.go, composeOptions.check),
// and builds the mechanism the way the CLI does. The error is a
// FieldErrors.
func (pl *ComposePlan) job() (composeJob, error) { return pl.check(nil) }

// check is job after the parse errors bad: a field already in bad (a number
// that did not parse) is not judged again, and a check that reads it (the
// kernel's d k, a mechanism's constructor) is left out. The error is a
// FieldErrors with one message a field: bad, then the values' errors.
func (pl *ComposePlan) check(bad FieldErrors) (composeJob, error) {
	var job composeJob
	has := func(names ...string) bool {
		for _, e := range bad {
			for _, n := range names {
				if e.Field == "compose-"+n {
					return true
				}
			}
		}
		return false
	}
	add := func(fe *FieldError) {
		if !has(strings.TrimPrefix(fe.Field, "compose-")) {
			bad = append(bad, fe)
		}
	}
	if !has("delta") && !(pl.Delta > 0 && pl.Delta < 1) {
		add(composeFieldErr("delta", "--delta: delta is %v, must be in (0, 1)", pl.Delta))
	}
	if !has("discretization") && !(pl.Discretization >= 0 && pl.Discretization <= 1) {
		add(composeFieldErr("discretization", "--discretization: discretization is %v, must be in (0, 1] (or 0: automatic)", pl.Discretization))
	}
	if !has("steps") && pl.Steps < 1 {
		add(composeFieldErr("steps", "--steps: steps is %d, must be >= 1", pl.Steps))
	}
	d, k := pl.D, pl.K
	if !has("d") {
		if err := check.D(d); err != nil {
			add(composeFieldErr("d", "--d: %v", err))
		}
	}
	if !has("k") {
		if err := check.K(k); err != nil {
			add(composeFieldErr("k", "--k: %v", err))
		}
	}
	if !has("d", "k") {
		if err := check.N(d, k); err != nil {
			add(composeFieldErr("d", "--d: %v", err))
		} else if d > pld.MaxN/k {
			add(composeFieldErr("d", "--d, --k: d k = %d x %d exceeds %d", d, k, pld.MaxN))
		}
	}
	job.kernel = accountant.Kernel{D: d, K: k, C: pl.C}
	if !has("c") {
		if err := check.C(pl.C); err != nil {
			add(composeFieldErr("c", "--d, --k, --c: %v", err))
		}
	}
	// need is the positive finite parameter name, or false after its
	// error.
	need := func(name string, v *float64) (float64, bool) {
		if has(name) {
			return 0, false
		}
		if v == nil {
			add(composeFieldErr(name, "--%s: needed with --mechanism %s", name, pl.Mechanism))
			return 0, false
		}
		if !(*v > 0) || math.IsInf(*v, 1) {
			add(composeFieldErr(name, "--%s: %s is %v, must be > 0 and finite", name, name, *v))
			return 0, false
		}
		return *v, true
	}
	sensOK := !has("sensitivity")
	if s := pl.Sensitivity; sensOK && (!(s > 0) || math.IsInf(s, 1)) {
		add(composeFieldErr("sensitivity", "--sensitivity: sensitivity is %v, must be > 0 and finite", s))
		sensOK = false
	}
	// A constructor's error is shown at the parameter it is about.
	var (
		curve rdp.Curve
		err   error
	)
	switch pl.Mechanism {
	case "gaussian":
		if sigma, ok := need("sigma", pl.Sigma); ok && sensOK {
			job.profile, err = pld.Gaussian(pl.Sensitivity, sigma)
			job.source = accountant.Source{Kind: "gaussian", Sensitivity: pl.Sensitivity, Sigma: sigma}
			if err == nil {
				curve, err = rdp.Gaussian(sigma/pl.Sensitivity, nil)
				job.curve = &curve
			}
			if err != nil {
				add(composeFieldErr("sigma", "--mechanism %s: %s", pl.Mechanism, bare(err)))
			}
		}
	case "laplace":
		if b, ok := need("b", pl.B); ok && sensOK {
			job.profile, err = pld.Laplace(pl.Sensitivity, b)
			job.source = accountant.Source{Kind: "laplace", Sensitivity: pl.Sensitivity, B: b}
			if err == nil {
				curve, err = rdp.Laplace(b/pl.Sensitivity, nil)
				job.curve = &curve
			}
			if err != nil {
				add(composeFieldErr("b", "--mechanism %s: %s", pl.Mechanism, bare(err)))
			}
		}
	case "rr":
		switch {
		case has("p-true"):
		case pl.PTrue == nil:
			add(composeFieldErr("p-true", "--p-true: needed with --mechanism rr (or --noise-parameter)"))
		case !(*pl.PTrue > 0 && *pl.PTrue < 1):
			add(composeFieldErr("p-true", "--p-true: p-true is %v, must be in (0, 1)", *pl.PTrue))
		default:
			p := *pl.PTrue
			if curve, err = rdp.RandomizedResponse(p, nil); err != nil {
				add(composeFieldErr("p-true", "--mechanism: %s", bare(err)))
				break
			}
			job.curve = &curve
			job.source = accountant.Source{Kind: "rr", PT: p}
			if job.profile, err = pld.RandomizedResponse(p); err != nil {
				add(composeFieldErr("p-true", "--p-true: %s", bare(err)))
			}
		}
	case "subsampled-gaussian":
		sigma, ok := need("sigma", pl.Sigma)
		qOK := !has("q")
		if qOK && (pl.Q == nil || !(*pl.Q > 0 && *pl.Q <= 1)) {
			q := 0.0
			if pl.Q != nil {
				q = *pl.Q
			}
			add(composeFieldErr("q", "--q: q is %v, must be in (0, 1] (needed with --mechanism subsampled-gaussian)", q))
			qOK = false
		}
		if ok && qOK && sensOK {
			job.source = accountant.Source{Kind: "subsampled-gaussian", Sensitivity: pl.Sensitivity, Sigma: sigma, Q: *pl.Q}
			if job.profile, err = pld.SubsampledGaussian(pl.Sensitivity, sigma, *pl.Q); err != nil {
				add(composeFieldErr("sigma", "--mechanism %s: %s", pl.Mechanism, bare(err)))
			}
		}
	default:
		add(composeMechanismErr(pl.Mechanism))
	}
	return job, bad.err()
}

// ComposeRow is the answer of the compose panel: the columns of bernamp
// compose --format json (with --delta), same names, same values. A value
// is null when it is +Inf (named in Infinite: no finite eps at delta) or
// was not computed (RDPRoute says why for eps_rdp; eps_lower has no
// dominating pair); JSON has no NaN or infinity, and the page shows none.
type ComposeRow struct {
	Mechanism string   `json:"mechanism"`
	D         int      `json:"d"`
	K         int      `json:"k"`
	C         float64  `json:"c"`
	Steps     int      `json:"steps"`
	Delta     float64  `json:"delta"`
	EpsLower  *float64 `json:"eps_lower"`       // below the exact eps: one real mechanism composed (optimistic)
	EpsUpper  *float64 `json:"eps_upper"`       // above the exact eps: the exact amplified profile composed (pessimistic); claim it
	EpsRDP    *float64 `json:"eps_rdp"`         // the RDP route (an upper bound)
	EpsNoAmp  *float64 `json:"eps_unamplified"` // the mechanism's own PLD composed, no amplification
	Infinite  []string `json:"infinite,omitempty"`
	// RDPRoute is "computed", "off" (not asked for) or "none" (the
	// mechanism has no RDP curve here: the subsampled Gaussian).
	RDPRoute string `json:"rdp_route"`
	// Check is what the independent checker said of eps_upper's profile
	// certificate, as bernamp compose's check column: verified, rejected
	// (eps_upper is then not certified; CheckFailure says why) or none
	// (not covered: an infinite eps_upper, or past the checker's caps).
	Check          string  `json:"check"`
	CheckFailure   string  `json:"check_failure,omitempty"`
	Discretization float64 `json:"discretization"`
	Seconds        float64 `json:"seconds"`       // of eps_upper and eps_lower (ComposeClaim's), rounded to 1e-4 s
	TotalSeconds   float64 `json:"total_seconds"` // the whole call, the check and the RDP route included
}

// SolveCompose answers pl with accountant.ComposeClaim as bernamp compose
// does: the pld defaults with the plan's discretization, the unamplified
// PLD, eps_upper's profile certificate checked by the independent checker
// (Routes.Check, the CLI's default), and when asked (and the mechanism has an RDP curve) the RDP route
// with the CLI's conversion (Balle et al. 2020) and time limit per order
// (ComposeRDPTimeout). The plan is validated again.
func SolveCompose(ctx context.Context, pl ComposePlan) (ComposeRow, error) {
	job, err := pl.job()
	if err != nil {
		return ComposeRow{}, err
	}
	start := time.Now()
	opt := pld.DefaultOptions()
	opt.H, opt.Workers = pl.Discretization, 1
	routes := accountant.Routes{Conversion: rdp.Balle2020, NoAmp: true, Workers: 1, Check: true,
		Settings: &bernamp.Settings{Timeout: ComposeRDPTimeout, Workers: 1, Check: true}}
	row := ComposeRow{Mechanism: pl.Mechanism, D: pl.D, K: pl.K, C: pl.C, Steps: pl.Steps, Delta: pl.Delta,
		Discretization: pl.Discretization, RDPRoute: "off"}
	switch {
	case job.curve == nil:
		row.RDPRoute = "none"
	case pl.RDP:
		routes.Curve = job.curve
		row.RDPRoute = "computed"
	}
	q := accountant.Composition{Mechanism: job.profile, Kernel: job.kernel, Steps: pl.Steps, Delta: pl.Delta, Source: job.source}
	c, err := accountant.ComposeClaim(ctx, q, opt, routes, nil)
	if err != nil {
		return ComposeRow{}, err
	}
	val := func(name string, v float64) *float64 {
		switch {
		case math.IsNaN(v):
			return nil
		case math.IsInf(v, 0):
			row.Infinite = append(row.Infinite, name)
			return nil
		}
		return &v
	}
	row.Discretization = c.H // the step used (chosen when 0 asked for the automatic one)
	row.EpsLower = val("eps_lower", c.Lower)
	row.EpsUpper = val("eps_upper", c.Upper)
	row.EpsRDP = val("eps_rdp", c.RDP)
	row.EpsNoAmp = val("eps_unamplified", c.NoAmp)
	row.Check = c.Check.Status
	if c.Check.Status != bernamp.CheckVerified {
		row.CheckFailure = c.Check.Failure
	}
	row.Seconds = math.Round(c.Seconds*1e4) / 1e4
	row.TotalSeconds = math.Round(time.Since(start).Seconds()*1e4) / 1e4
	return row, nil
}

// ParseComposeAnswer is the JSON answer of ParseComposeJSON.
// Errors has every bad field, Error is the first of them.
type ParseComposeAnswer struct {
	Plan   *ComposePlan  `json:"plan,omitempty"`
	Error  *FieldError   `json:"error,omitempty"`
	Errors []*FieldError `json:"errors,omitempty"`
}

// ComposeAnswer is the JSON answer of SolveComposeJSON: the row, or the
// error (Field set when the plan is invalid).
type ComposeAnswer struct {
	Row   *ComposeRow `json:"row,omitempty"`
	Error string      `json:"error,omitempty"`
	Field string      `json:"field,omitempty"`
}

// ParseComposeJSON is ParseCompose from and to JSON: form is a
// ComposeForm.
func ParseComposeJSON(form []byte) []byte {
	return parseJSON(form, ParseCompose, func(pl *ComposePlan, fes FieldErrors) ParseComposeAnswer {
		a := ParseComposeAnswer{Plan: pl, Errors: fes}
		if len(fes) > 0 {
			a.Error = fes[0]
		}
		return a
	})
}

// SolveComposeJSON is SolveCompose from and to JSON: req is a
// ComposePlan.
func SolveComposeJSON(ctx context.Context, req []byte) []byte {
	var pl ComposePlan
	if err := json.Unmarshal(req, &pl); err != nil {
		return mustMarshal(ComposeAnswer{Error: "calc: bad request: " + err.Error()})
	}
	r, err := SolveCompose(ctx, pl)
	if err != nil {
		a := ComposeAnswer{Error: err.Error()}
		var fe *FieldError
		if errors.As(err, &fe) {
			a.Field = fe.Field
		}
		return mustMarshal(a)
	}
	return mustMarshal(ComposeAnswer{Row: &r})
}
