package calc

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/bernamp/bernamp"
	"github.com/bernamp/bernamp/accountant"
	"github.com/bernamp/bernamp/check"
	"github.com/bernamp/bernamp/internal/valuelist"
	"github.com/bernamp/bernamp/rdp"
)

// CurveForm is the page's form for a pasted accountant curve, amplified
// order by order as bernamp curve --in does: one kernel B_k on [c, 1-c]^d
// (single values), the curve as pasted, the delta of the (eps, delta)
// summary and the time limit per order.
type CurveForm struct {
	Curve   string `json:"curve"`   // CSV alpha,eps or {"orders": [...], "rdp": [...]}, as accountant.Read reads it
	D       string `json:"d"`       // dimension of theta, an integer >= 1
	K       string `json:"k"`       // Bernoulli samples released, an integer >= 1
	C       string `json:"c"`       // range constant in (0, 0.5)
	Delta   string `json:"delta"`   // delta of the summary in (0, 1); "" means 1e-5, the CLI's default
	Timeout string `json:"timeout"` // time limit per order, as Form.Timeout
}

// Order is one order of a pasted curve: Eps nil means +Inf (no guarantee
// at that order; JSON has no infinity).
type Order struct {
	Alpha float64  `json:"alpha"`
	Eps   *float64 `json:"eps"`
}

// CurvePlan is a validated CurveForm: the curve's orders (sorted, made
// nondecreasing by accountant.Read) with the reader's warnings, the kernel,
// the summary's delta and the time limit per order.
type CurvePlan struct {
	Orders    []Order  `json:"orders"`
	Warnings  []string `json:"warnings,omitempty"`
	D         int      `json:"d"`
	K         int      `json:"k"`
	C         float64  `json:"c"`
	Delta     float64  `json:"delta"`
	TimeoutNS int64    `json:"timeout_ns"`
}

// curveFieldErr is a FieldError on a field of the curve form: Field is
// the page's id of the field (curve-d, ...), the message names the CLI's
// flag (--d: ...).
func curveFieldErr(field string, err error) *FieldError {
	return &FieldError{Field: "curve-" + field, Message: fmt.Sprintf("--%s: %v", field, err)}
}

// ParseCurve validates f and reads its curve with accountant.Read. The
// error, a FieldErrors, names every wrong field in the order curve, d, k,
// c, delta, timeout; a bad curve gets the reader's message after "--in: "
// (the CLI's message without the file name).
func ParseCurve(f CurveForm) (*CurvePlan, error) {
	var bad FieldErrors
	pl := &CurvePlan{Delta: 1e-5}
	if strings.TrimSpace(f.Curve) == "" {
		bad = append(bad, &FieldError{Field: "curve", Message: "--in: paste a curve: CSV alpha,eps or {\"orders\": [...], \"rdp\": [...]}"})
	} else if c, warnings, err := accountant.Read(strings.NewReader(f.Curve)); err != nil {
		bad = append(bad, &FieldError{Field: "curve", Message: "--in: " + bare(err)})
	} else {
		pl.Warnings, pl.Orders = warnings, make([]Order, len(c.Orders))
		for i, a := range c.Orders {
			pl.Orders[i].Alpha = a
			if e := c.Eps[i]; !math.IsInf(e, 1) {
				pl.Orders[i].Eps = &e
			}
		}
	}
	for _, x := range []struct {
		name, s string
		dst     *int
		chk     func(int) error
	}{{"d", f.D, &pl.D, check.D}, {"k", f.K, &pl.K, check.K}} {
		v, err := valuelist.Int(x.s)
		if err == nil {
			err = x.chk(v)
		}
		if err != nil {
			bad = append(bad, curveFieldErr(x.name, err))
			continue
		}
		*x.dst = v
	}
	v, err := valuelist.Float(f.C)
	if err == nil {
		err = check.C(v)
	}
	if err != nil {
		bad = append(bad, curveFieldErr("c", err))
	}
	pl.C = v
	if strings.TrimSpace(f.Delta) != "" {
		v, err := valuelist.Float(f.Delta)
		if err == nil {
			err = rdp.CheckDelta(v)
		}
		if err != nil {
			bad = append(bad, curveFieldErr("delta", err))
		}
		pl.Delta = v
	}
	if s := strings.TrimSpace(f.Timeout); s != "" && s != "0" {
		d, err := time.ParseDuration(s)
		if err != nil {
			bad = append(bad, curveFieldErr("timeout", fmt.Errorf("%q is not a duration such as 400ms or 30s", s)))
		} else if d < 0 {
			bad = append(bad, curveFieldErr("timeout", fmt.Errorf("timeout is %v, must be >= 0", d)))
		}
		pl.TimeoutNS = int64(d)
	}
	if len(bad) > 0 {
		return nil, bad
	}
	return pl, nil
}

// bare is the message of a library error without its "pkg.Func: " prefix,
// as the CLI prints it.
func bare(err error) string {
	msg := err.Error()
	if name, rest, ok := strings.Cut(msg, ": "); ok && strings.Contains(name, ".") && !strings.Contains(name, " ") {
		return rest
	}
	return msg
}

// OrderRow is the answer at one order: the columns of bernamp curve
// --format json that the page shows, same names, same values. Eps is nil
// for +Inf; LB <= Post <= PostUpper is proved, and PostUpper is the level
// to claim at Alpha.
type OrderRow struct {
	Alpha     float64  `json:"alpha"`
	Eps       *float64 `json:"eps"`        // the mechanism's level; nil: inf
	LB        float64  `json:"lb"`         // below Post
	Post      float64  `json:"post"`       // verified witness value, below Post
	PostUpper float64  `json:"post_upper"` // proved upper bound, above Post
	UB        float64  `json:"ub"`         // min(eps, d k r_alpha(c))
	Status    string   `json:"status"`
	Method    string   `json:"method"`
	Seconds   float64  `json:"seconds"`
}

// SolveOrder amplifies one order with accountant.Post (bernamp.Post, or
// the asymptote d k r_alpha(c) for eps = +Inf) with the CLI's defaults and
// the time limit given, as bernamp curve does at each order.
func SolveOrder(ctx context.Context, d, k int, c float64, o Order, timeout time.Duration) (OrderRow, error) {
	eps := math.Inf(1)
	if o.Eps != nil {
		eps = *o.Eps
	}
	r, err := accountant.Post(ctx, accountant.Kernel{D: d, K: k, C: c}, o.Alpha, eps, &bernamp.Settings{Timeout: timeout, Check: true})
	if err != nil {
		return OrderRow{}, err
	}
	return OrderRow{Alpha: o.Alpha, Eps: o.Eps, LB: r.LB, Post: r.Post, PostUpper: r.PostUpper, UB: r.UB,
		Status: r.Status, Method: r.Method, Seconds: math.Round(r.Seconds*1e4) / 1e4}, nil
}

// Approx is one (eps, delta)-DP guarantee of the summary: accountant.Approx,
// the conversion bernamp curve's summary uses.
type Approx = accountant.Approx

// CurveSummary is the summary of bernamp curve's rows "mechanism" (the
// pasted curve, not amplified) and "bernamp" (post_upper made monotone by
// accountant.Repair), converted by rdp.Balle2020 (the CLI's default), one
// release.
type CurveSummary struct {
	Mechanism Approx `json:"mechanism"`
	Bernamp   Approx `json:"bernamp"`
}

// Summarize converts the pasted curve and its amplified levels (postUpper,
// one per order of orders) to (eps, delta)-DP by bernamp curve's summary
// (accountant.SummaryOf, its rows mechanism and bernamp): orders with +Inf
// prove nothing and are left out; the amplified curve is made
// nondecreasing (the least level at any larger order, valid as R_alpha is
// nondecreasing in alpha).
func Summarize(orders []Order, postUpper []float64, delta float64) (CurveSummary, error) {
	if len(orders) != len(postUpper) || len(orders) == 0 {
		return CurveSummary{}, fmt.Errorf("calc: %d orders and %d post_upper values", len(orders), len(postUpper))
	}
	in := accountant.Curve{Orders: make([]float64, len(orders)), Eps: make([]float64, len(orders))}
	for i, o := range orders {
		in.Orders[i], in.Eps[i] = o.Alpha, math.Inf(1)
		if o.Eps != nil {
			in.Eps[i] = *o.Eps
		}
	}
	if err := in.Validate(); err != nil {
		return CurveSummary{}, fmt.Errorf("calc: %w", err)
	}
	for i, v := range postUpper {
		if !(v >= 0) || math.IsInf(v, 1) {
			return CurveSummary{}, fmt.Errorf("calc: post_upper %v at alpha %v, must be >= 0 and finite", v, in.Orders[i])
		}
	}
	rows, _, err := accountant.SummaryOf(in, []accountant.Column{{Name: "bernamp", Eps: postUpper}}, delta, rdp.Balle2020, 1)
	if err != nil {
		return CurveSummary{}, err
	}
	approx := func(r accountant.SummaryRow) Approx {
		return Approx{Eps: r.Eps, Delta: r.Delta, Order: r.Order, Warning: r.Warning}
	}
	return CurveSummary{Mechanism: approx(rows[0]), Bernamp: approx(rows[1])}, nil
}

// ParseCurveAnswer is the JSON answer of ParseCurveJSON.
// Errors has every bad field, Error is the first of them.
type ParseCurveAnswer struct {
	Plan   *CurvePlan    `json:"plan,omitempty"`
	Error  *FieldError   `json:"error,omitempty"`
	Errors []*FieldError `json:"errors,omitempty"`
}

// OrderRequest is the JSON request of SolveOrderJSON.
type OrderRequest struct {
	D         int     `json:"d"`
	K         int     `json:"k"`
	C         float64 `json:"c"`
	Order     Order   `json:"order"`
	TimeoutNS int64   `json:"timeout_ns"`
}

// OrderAnswer is the JSON answer of SolveOrderJSON.
type OrderAnswer struct {
	Row   *OrderRow `json:"row,omitempty"`
	Error string    `json:"error,omitempty"`
}

// SummaryRequest is the JSON request of SummarizeJSON.
type SummaryRequest struct {
	Orders    []Order   `json:"orders"`
	PostUpper []float64 `json:"post_upper"`
	Delta     float64   `json:"delta"`
}

// SummaryAnswer is the JSON answer of SummarizeJSON.
type SummaryAnswer struct {
	Summary *CurveSummary `json:"summary,omitempty"`
	Error   string        `json:"error,omitempty"`
}

// ParseCurveJSON is ParseCurve from and to JSON: form is a CurveForm.
func ParseCurveJSON(form []byte) []byte {
	return parseJSON(form, ParseCurve, func(pl *CurvePlan, fes FieldErrors) ParseCurveAnswer {
		a := ParseCurveAnswer{Plan: pl, Errors: fes}
		if len(fes) > 0 {
			a.Error = fes[0]
		}
		return a
	})
}

// SolveOrderJSON is SolveOrder from and to JSON: req is an OrderRequest.
// The kernel and the order are validated again (accountant.Post does).
func SolveOrderJSON(ctx context.Context, req []byte) []byte {
	var q OrderRequest
	if err := json.Unmarshal(req, &q); err != nil {
		return mustMarshal(OrderAnswer{Error: "calc: bad request: " + err.Error()})
	}
	if q.TimeoutNS < 0 {
		return mustMarshal(OrderAnswer{Error: "calc: timeout_ns is " + strconv.FormatInt(q.TimeoutNS, 10) + ", must be >= 0"})
	}
	r, err := SolveOrder(ctx, q.D, q.K, q.C, q.Order, time.Duration(q.TimeoutNS))
	if err != nil {
		return mustMarshal(OrderAnswer{Error: err.Error()})
	}
	return mustMarshal(OrderAnswer{Row: &r})
}

// SummarizeJSON is Summarize from and to JSON: req is a SummaryRequest.
func SummarizeJSON(req []byte) []byte {
	var q SummaryRequest
	if err := json.Unmarshal(req, &q); err != nil {
		return mustMarshal(SummaryAnswer{Error: "calc: bad request: " + err.Error()})
	}
	if err := rdp.CheckDelta(q.Delta); err != nil {
		return mustMarshal(SummaryAnswer{Error: "calc: " + err.Error()})
	}
	s, err := Summarize(q.Orders, q.PostUpper, q.Delta)
	if err != nil {
		return mustMarshal(SummaryAnswer{Error: err.Error()})
	}
	return mustMarshal(SummaryAnswer{Summary: &s})
}
