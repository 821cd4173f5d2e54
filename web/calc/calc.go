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
// must be in (0, 0.5)"), and the grid is the CLI's cartesian product in the
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

// Parse validates f and expands its grid. The error, a *FieldError, names
// the first field in the order d, k, c, alpha, eps, timeout that is wrong.
func Parse(f Form) (*Plan, error) {
	var (
		d, k          []int
		c, alpha, eps []float64
	)
	for _, x := range []struct {
		name, s string
		dst     *[]int
		chk     func(int) error
	}{{"d", f.D, &d, check.D}, {"k", f.K, &k, check.K}} {
		vs, err := valuelist.Ints(x.s, MaxPoints)
		if err != nil {
			return nil, fieldErr(x.name, err)
		}
		for _, v := range vs {
			if err := x.chk(v); err != nil {
				return nil, fieldErr(x.name, err)
			}
		}
		*x.dst = vs
	}
	for _, x := range []struct {
		name, s string
		dst     *[]float64
		chk     func(float64) error
	}{{"c", f.C, &c, check.C}, {"alpha", f.Alpha, &alpha, check.Alpha}, {"eps", f.Eps, &eps, check.Eps}} {
		vs, err := valuelist.Floats(x.s, MaxPoints)
		if err != nil {
			return nil, fieldErr(x.name, err)
		}
		for _, v := range vs {
			if err := x.chk(v); err != nil {
				return nil, fieldErr(x.name, err)
			}
		}
		*x.dst = vs
	}
	var timeout time.Duration
	if s := strings.TrimSpace(f.Timeout); s != "" && s != "0" {
		var err error
		if timeout, err = time.ParseDuration(s); err != nil {
			return nil, fieldErr("timeout", fmt.Errorf("%q is not a duration such as 400ms or 30s", s))
		}
		if timeout < 0 {
			return nil, fieldErr("timeout", fmt.Errorf("timeout is %v, must be >= 0", timeout))
		}
	}
	// Each list has at most MaxPoints values (package valuelist),
	// so the float product is exact.
	size := float64(len(d)) * float64(len(k)) * float64(len(c)) * float64(len(alpha)) * float64(len(eps))
	if size > MaxPoints {
		return nil, &FieldError{Message: fmt.Sprintf("grid has %.0f points, more than the page's limit of %d; run it with bernamp post", size, MaxPoints)}
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
// certificates on) and the time limit given. A cancelled ctx ends the
// solve early with the bound proved so far, as in the CLI.
func Solve(ctx context.Context, p bernamp.Params, timeout time.Duration) (Row, error) {
	r, err := bernamp.Post(ctx, p, &bernamp.Settings{Timeout: timeout})
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
// grid order and the time limit per point in nanoseconds, or the error.
type ParseAnswer struct {
	Points    []Point     `json:"points,omitempty"`
	TimeoutNS int64       `json:"timeout_ns"`
	Error     *FieldError `json:"error,omitempty"`
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
// answer(plan, nil) on success, answer(zero, the field error) on failure
// (an error that is not a FieldError becomes one without a field). It is
// the JSON side of Parse, ParseCurve and ParseCompose.
func parseJSON[F, P, A any](form []byte, parse func(F) (P, error), answer func(P, *FieldError) A) []byte {
	var f F
	var zero P
	if err := json.Unmarshal(form, &f); err != nil {
		return mustMarshal(answer(zero, &FieldError{Message: "calc: bad form: " + err.Error()}))
	}
	pl, err := parse(f)
	if err != nil {
		var fe *FieldError
		if !errors.As(err, &fe) {
			fe = &FieldError{Message: err.Error()}
		}
		return mustMarshal(answer(zero, fe))
	}
	return mustMarshal(answer(pl, nil))
}

// ParseJSON is Parse from and to JSON: form is a Form, the answer a
// ParseAnswer.
func ParseJSON(form []byte) []byte {
	return parseJSON(form, Parse, func(pl *Plan, fe *FieldError) ParseAnswer {
		if fe != nil {
			return ParseAnswer{Error: fe}
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
