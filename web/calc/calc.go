// Package calc is the engine side of the calculator page (web/static): it
// reads the page's form, whose fields take the values of bernamp post's grid
// flags as typed (a comma list such as 1,2,4 or a range start:stop:step),
// validates them with package check and answers one point at a time with
// bernamp.Post, in JSON; curve.go does the same for a pasted accountant
// curve (bernamp curve --in) and compose.go for a composition over T steps
// (bernamp compose, accountant.ComposeClaim). web/wasm exposes it to
// JavaScript; it is also ordinary Go, so its tests run natively.
//
// Messages name the field the way the CLI names the flag ("--c: c is 0.7,
// must be in (0, 0.5)"); where the CLI stops at the first bad flag, the
// parsers here name every bad field of a form (FieldErrors), so the page
// marks each. The grid is the CLI's cartesian product in the
// order d, k, c, alpha, eps with eps varying fastest, so a page run and
// bernamp post on the same values give the same rows in the same order.
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
	"github.com/bernamp/bernamp/check"
	"github.com/bernamp/bernamp/internal/valuelist"
)

// MaxPoints is the largest grid the page runs (the CLI's limit without
// --force is 100000; a page keeps every row in memory and draws them).
const MaxPoints = 10_000

// Form is the page's form, each field as typed.
type Form struct {
	D       string `json:"d"`       // dimension of theta: list or range of integers >= 1
	K       string `json:"k"`       // Bernoulli samples released: list or range of integers >= 1
	C       string `json:"c"`       // range constant: list or range in (0, 0.5)
	Alpha   string `json:"alpha"`   // Rényi order: list or range, > 1 and finite
	Eps     string `json:"eps"`     // RDP level of the mechanism in nats: list or range, >= 0 and finite
	Timeout string `json:"timeout"` // time limit per point, a Go duration such as 400ms; "" or 0 means none
}

// FieldError is invalid input in one field of the form.
type FieldError struct {
	Field   string `json:"field"`   // d, k, c, alpha, eps or timeout; "" for the grid as a whole
	Message string `json:"message"` // the CLI's one-line message, such as "--c: c is 0.7, must be in (0, 0.5)"
}

func (e *FieldError) Error() string { return e.Message }

func fieldErr(field string, err error) *FieldError {
	return &FieldError{Field: field, Message: fmt.Sprintf("--%s: %v", field, err)}
}

// Plan is a validated form: the points of the grid, in grid order, and the
// time limit of each.
type Plan struct {
	Points  []bernamp.Params
	Timeout time.Duration // 0: none
}

// FieldErrors is every bad field of a form, one *FieldError per field in
// the form's order: the page shows each message next to its field. The
// CLI stops at the first bad flag; each message is the one the CLI gives
// when that field alone is wrong. errors.As finds the first.
type FieldErrors []*FieldError

// Error is the messages, one a line.
func (es FieldErrors) Error() string {
	msgs := make([]string, len(es))
	for i, e := range es {
		msgs[i] = e.Message
	}
	return strings.Join(msgs, "\n")
}

// Unwrap is the errors of es, for errors.Is and errors.As.
func (es FieldErrors) Unwrap() []error {
	errs := make([]error, len(es))
	for i, e := range es {
		errs[i] = e
	}
	return errs
}

// err is es as an error: nil when es is empty.
func (es FieldErrors) err() error {
	if len(es) == 0 {
		return nil
	}
	return es
}

// asFieldErrors is err as FieldErrors: itself, the single *FieldError it
// wraps, or an error without a field.
func asFieldErrors(err error) FieldErrors {
	var es FieldErrors
	if errors.As(err, &es) && len(es) > 0 {
		return es
	}
	var fe *FieldError
	if errors.As(err, &fe) {
		return FieldErrors{fe}
	}
	return FieldErrors{{Message: err.Error()}}
}

// Parse validates f and expands its grid. The error, a FieldErrors, names
// every field that is wrong, in the order d, k, c, alpha, eps, timeout,
// each with the CLI's message (for a field, the first bad value of its
// list); a grid too large for the page is an error without a field,
// checked once every field is valid.
func Parse(f Form) (*Plan, error) {
	var (
		d, k          []int
		c, alpha, eps []float64
		bad           FieldErrors
	)
	for _, x := range []struct {
		name, s string
		dst     *[]int
		chk     func(int) error
	}{{"d", f.D, &d, check.D}, {"k", f.K, &k, check.K}} {
		vs, err := valuelist.Ints(x.s, MaxPoints)
		for i := 0; err == nil && i < len(vs); i++ {
			err = x.chk(vs[i])
		}
		if err != nil {
			bad = append(bad, fieldErr(x.name, err))
			continue
		}
		*x.dst = vs
	}
	for _, x := range []struct {
		name, s string
		dst     *[]float64
		chk     func(float64) error
	}{{"c", f.C, &c, check.C}, {"alpha", f.Alpha, &alpha, check.Alpha}, {"eps", f.Eps, &eps, check.Eps}} {
		vs, err := valuelist.Floats(x.s, MaxPoints)
		for i := 0; err == nil && i < len(vs); i++ {
			err = x.chk(vs[i])
		}
		if err != nil {
			bad = append(bad, fieldErr(x.name, err))
			continue
		}
		*x.dst = vs
	}
	var timeout time.Duration
	if s := strings.TrimSpace(f.Timeout); s != "" && s != "0" {
		var err error
		if timeout, err = time.ParseDuration(s); err != nil {
			bad = append(bad, fieldErr("timeout", fmt.Errorf("%q is not a duration such as 400ms or 30s", s)))
		} else if timeout < 0 {
			bad = append(bad, fieldErr("timeout", fmt.Errorf("timeout is %v, must be >= 0", timeout)))
		}
	}
	if len(bad) > 0 {
		return nil, bad
	}
	// Each list has at most MaxPoints values (package valuelist),
	// so the float product is exact.
	size := float64(len(d)) * float64(len(k)) * float64(len(c)) * float64(len(alpha)) * float64(len(eps))
	if size > MaxPoints {
		return nil, FieldErrors{{Message: fmt.Sprintf("grid has %.0f points, more than the page's limit of %d; run it with bernamp post", size, MaxPoints)}}
	}
	pl := &Plan{Timeout: timeout, Points: make([]bernamp.Params, 0, int(size))}
	for _, dv := range d {
		for _, kv := range k {
			for _, cv := range c {
				for _, av := range alpha {
					for _, ev := range eps {
						pl.Points = append(pl.Points, bernamp.Params{D: dv, K: kv, C: cv, Alpha: av, Eps: ev})
					}
				}
			}
		}
	}
	return pl, nil
}

// Row is the answer at one point: the columns of bernamp post --format json
// that the page shows, same names, same values. LB <= Post <= PostUpper <=
// UB is a proved interval for the amplified level; a claim uses PostUpper.
type Row struct {
	D           int     `json:"d"`
	K           int     `json:"k"`
	C           float64 `json:"c"`
	Alpha       float64 `json:"alpha"`
	Eps         float64 `json:"eps"`
	LB          float64 `json:"lb"`           // Theorem 4 lower bound (below Post)
	UB          float64 `json:"ub"`           // min(eps, d k r_alpha(c)) (above Post)
	Post        float64 `json:"post"`         // verified witness value (below Post)
	PostUpper   float64 `json:"post_upper"`   // proved upper bound (above Post)
	Status      string  `json:"status"`       // certified, witness or bounds
	Conjecture  string  `json:"conjecture"`   // proved, open or refuted
	Method      string  `json:"method"`       // how post_upper was proved
	UBAsymptote float64 `json:"ub_asymptote"` // d k r_alpha(c), rounded up
	Seconds     float64 `json:"seconds"`      // wall time, rounded to 1e-4 s
}

// Solve runs bernamp.Post at p with the CLI's defaults (tol 1e-9, the
// certificates on and re-checked by the independent checker) and the
// time limit given. A cancelled ctx ends the
// solve early with the bound proved so far, as in the CLI.
func Solve(ctx context.Context, p bernamp.Params, timeout time.Duration) (Row, error) {
	r, err := bernamp.Post(ctx, p, &bernamp.Settings{Timeout: timeout, Check: true})
	if err != nil {
		return Row{}, err
	}
	return Row{D: r.D, K: r.K, C: r.C, Alpha: r.Alpha, Eps: r.Eps,
		LB: r.LB, UB: r.UB, Post: r.Post, PostUpper: r.PostUpper, Status: r.Status,
		Conjecture: r.Conjecture, Method: r.Method, UBAsymptote: r.UBAsymptote,
		Seconds: math.Round(r.Seconds*1e4) / 1e4}, nil
}

// Point is one grid point as the page sends it back to SolveJSON.
type Point struct {
	D     int     `json:"d"`
	K     int     `json:"k"`
	C     float64 `json:"c"`
	Alpha float64 `json:"alpha"`
	Eps   float64 `json:"eps"`
}

// ParseAnswer is the JSON answer of ParseJSON: the points of the grid in
// grid order and the time limit per point in nanoseconds, or the errors:
// Errors has every bad field (FieldErrors), Error is the first of them.
type ParseAnswer struct {
	Points    []Point       `json:"points,omitempty"`
	TimeoutNS int64         `json:"timeout_ns"`
	Error     *FieldError   `json:"error,omitempty"`
	Errors    []*FieldError `json:"errors,omitempty"`
}

// SolveRequest is the JSON request of SolveJSON.
type SolveRequest struct {
	Point     Point `json:"point"`
	TimeoutNS int64 `json:"timeout_ns"` // 0: none
}

// SolveAnswer is the JSON answer of SolveJSON: the row or an error.
type SolveAnswer struct {
	Row   *Row   `json:"row,omitempty"`
	Error string `json:"error,omitempty"`
}

// parseJSON decodes a form of type F, parses it, and marshals the answer:
// answer(plan, nil) on success, answer(zero, the field errors) on failure
// (FieldErrors lists every bad field; an error that is neither FieldErrors
// nor a FieldError becomes one without a field). It is the JSON side of
// Parse, ParseCurve and ParseCompose.
func parseJSON[F, P, A any](form []byte, parse func(F) (P, error), answer func(P, FieldErrors) A) []byte {
	var f F
	var zero P
	if err := json.Unmarshal(form, &f); err != nil {
		return mustMarshal(answer(zero, FieldErrors{{Message: "calc: bad form: " + err.Error()}}))
	}
	pl, err := parse(f)
	if err != nil {
		return mustMarshal(answer(zero, asFieldErrors(err)))
	}
	return mustMarshal(answer(pl, nil))
}

// ParseJSON is Parse from and to JSON: form is a Form, the answer a
// ParseAnswer.
func ParseJSON(form []byte) []byte {
	return parseJSON(form, Parse, func(pl *Plan, fes FieldErrors) ParseAnswer {
		if len(fes) > 0 {
			return ParseAnswer{Error: fes[0], Errors: fes}
		}
		a := ParseAnswer{TimeoutNS: int64(pl.Timeout), Points: make([]Point, len(pl.Points))}
		for i, p := range pl.Points {
			a.Points[i] = Point{D: p.D, K: p.K, C: p.C, Alpha: p.Alpha, Eps: p.Eps}
		}
		return a
	})
}

// SolveJSON is Solve from and to JSON: req is a SolveRequest, the answer a
// SolveAnswer. The point is validated again (bernamp.Post does).
func SolveJSON(ctx context.Context, req []byte) []byte {
	var q SolveRequest
	if err := json.Unmarshal(req, &q); err != nil {
		return mustMarshal(SolveAnswer{Error: "calc: bad request: " + err.Error()})
	}
	if q.TimeoutNS < 0 {
		return mustMarshal(SolveAnswer{Error: fmt.Sprintf("calc: timeout_ns is %d, must be >= 0", q.TimeoutNS)})
	}
	p := bernamp.Params{D: q.Point.D, K: q.Point.K, C: q.Point.C, Alpha: q.Point.Alpha, Eps: q.Point.Eps}
	r, err := Solve(ctx, p, time.Duration(q.TimeoutNS))
	if err != nil {
		return mustMarshal(SolveAnswer{Error: err.Error()})
	}
	return mustMarshal(SolveAnswer{Row: &r})
}

// mustMarshal marshals v, which holds no NaN or Inf (bernamp.Post never
// returns them) and no unsupported types: an error is a bug.
func mustMarshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("calc: " + err.Error())
	}
	return b
}
