package calc

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/bernamp/bernamp"
	"github.com/bernamp/bernamp/accountant"
	"github.com/bernamp/bernamp/rdp"
)

func curveForm(curve, d, k, c, delta, timeout string) CurveForm {
	return CurveForm{Curve: curve, D: d, K: k, C: c, Delta: delta, Timeout: timeout}
}

func TestParseCurve(t *testing.T) {
	t.Parallel()
	pl, err := ParseCurve(curveForm("alpha,eps\n4,1\n2,0.5\n64,inf\n", "2", "3", "0.25", "", "400ms"))
	if err != nil {
		t.Fatal(err)
	}
	if len(pl.Orders) != 3 || pl.Orders[0].Alpha != 2 || *pl.Orders[0].Eps != 0.5 || pl.Orders[1].Alpha != 4 || *pl.Orders[1].Eps != 1 ||
		pl.Orders[2].Alpha != 64 || pl.Orders[2].Eps != nil {
		t.Errorf("orders %+v, want 2:0.5, 4:1, 64:inf", pl.Orders)
	}
	if pl.D != 2 || pl.K != 3 || pl.C != 0.25 || pl.Delta != 1e-5 || pl.TimeoutNS != 400e6 || len(pl.Warnings) != 0 {
		t.Errorf("plan %+v, want d 2, k 3, c 0.25, delta 1e-5 (the CLI's default), 400ms", pl)
	}
	// JSON as an accountant holds it, with a dip the reader repairs.
	pl, err = ParseCurve(curveForm(`{"orders": [2, 3, 4], "rdp": [1, 0.9, Infinity]}`, "1", "1", "0.1", "1e-6", ""))
	if err != nil {
		t.Fatal(err)
	}
	if len(pl.Orders) != 3 || *pl.Orders[0].Eps != 0.9 || pl.Orders[2].Eps != nil || len(pl.Warnings) != 1 || pl.Delta != 1e-6 {
		t.Errorf("plan %+v, want eps 0.9 0.9 inf, one warning, delta 1e-6", pl)
	}
	for _, tc := range []struct {
		desc  string
		f     CurveForm
		field string
		msg   string
	}{
		{"no curve", curveForm(" \n", "1", "1", "0.1", "", ""), "curve", `--in: paste a curve: CSV alpha,eps or {"orders": [...], "rdp": [...]}`},
		{"repeated order", curveForm("2,0.5\n2,1\n", "1", "1", "0.1", "", ""), "curve", "--in: line 2: alpha 2 repeats line 1"},
		{"order 1", curveForm("alpha,eps\n1,0.5\n", "1", "1", "0.1", "", ""), "curve", "--in: line 2: alpha is 1, must be > 1 and finite"},
		{"json lengths", curveForm(`{"orders": [2, 3], "rdp": [1]}`, "1", "1", "0.1", "", ""), "curve", "--in: JSON: 2 orders and 1 rdp values"},
		{"curve first", curveForm("2,-1\n", "0", "1", "0.1", "", ""), "curve", "--in: line 1: eps is -1, must be >= 0 (or inf)"},
		{"d zero", curveForm("2,1\n", "0", "1", "0.1", "", ""), "curve-d", "--d: d is 0, must be >= 1"},
		{"d list", curveForm("2,1\n", "1,2", "1", "0.1", "", ""), "curve-d", `--d: "1,2" is not an integer`},
		{"k word", curveForm("2,1\n", "1", "two", "0.1", "", ""), "curve-k", `--k: "two" is not an integer`},
		{"c too big", curveForm("2,1\n", "1", "1", "0.7", "", ""), "curve-c", "--c: c is 0.7, must be in (0, 0.5)"},
		{"delta 1", curveForm("2,1\n", "1", "1", "0.1", "1", ""), "curve-delta", "--delta: delta is 1, must be in (0, 1)"},
		{"timeout unitless", curveForm("2,1\n", "1", "1", "0.1", "", "5"), "curve-timeout", `--timeout: "5" is not a duration such as 400ms or 30s`},
	} {
		_, err := ParseCurve(tc.f)
		// The first bad field's error: the CLI's message.
		fes, ok := err.(FieldErrors)
		if !ok || len(fes) == 0 {
			t.Errorf("%s: error %v, want FieldErrors", tc.desc, err)
			continue
		}
		fe := fes[0]
		if fe.Field != tc.field || fe.Message != tc.msg {
			t.Errorf("%s: field %q message %q, want %q %q", tc.desc, fe.Field, fe.Message, tc.field, tc.msg)
		}
	}
}

// TestCurveJSON runs the page's JSON path on a pasted curve (parse, one
// solve per order, summary) and checks it against accountant.Amplify on
// the same curve (the path of bernamp curve and calibrate): the same
// interval at every order, and a summary equal to rdp.ToApprox of
// Amplify's curve (made monotone by rdp.FromBounds, not by the page's
// accountant.Repair). The inf order must enclose the 60-digit asymptote
// d k r_alpha(c) of testdata/accountant/asymptote.csv (1, 1, 0.1, 63:
// 2.195525214180447929056669).
func TestCurveJSON(t *testing.T) {
	t.Parallel()
	const in = `{"orders": [2, 5, 10.5, 63], "rdp": [0.4, 1.1, 2.5, Infinity]}`
	form, _ := json.Marshal(curveForm(in, "1", "1", "0.1", "1e-6", ""))
	var pa ParseCurveAnswer
	if err := json.Unmarshal(ParseCurveJSON(form), &pa); err != nil {
		t.Fatal(err)
	}
	if pa.Error != nil || pa.Plan == nil || len(pa.Plan.Orders) != 4 {
		t.Fatalf("parse answer %+v", pa)
	}
	var upper []float64
	var rows []OrderRow
	for _, o := range pa.Plan.Orders {
		req, _ := json.Marshal(OrderRequest{D: pa.Plan.D, K: pa.Plan.K, C: pa.Plan.C, Order: o})
		var oa OrderAnswer
		if err := json.Unmarshal(SolveOrderJSON(context.Background(), req), &oa); err != nil {
			t.Fatal(err)
		}
		if oa.Error != "" || oa.Row == nil {
			t.Fatalf("order %v: %+v", o.Alpha, oa)
		}
		rows = append(rows, *oa.Row)
		upper = append(upper, oa.Row.PostUpper)
	}
	c, _, err := accountant.Read(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	amp, res, err := accountant.Amplify(context.Background(), c, accountant.Kernel{D: 1, K: 1, C: 0.1}, &bernamp.Settings{}, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		w := res[i]
		if r.Alpha != w.Alpha || r.LB != w.LB || r.Post != w.Post || r.PostUpper != w.PostUpper || r.Status != w.Status || r.Method != w.Method {
			t.Errorf("order %v: page %+v, Amplify %+v", r.Alpha, r, w)
		}
	}
	if r := rows[3]; r.Eps != nil || !(r.LB <= 2.195525214180447929056669 && 2.195525214180447929056669 <= r.PostUpper) || r.PostUpper-r.LB > 1e-12 {
		t.Errorf("inf order: %+v, want an interval around 2.1955252141804479", r)
	}
	req, _ := json.Marshal(SummaryRequest{Orders: pa.Plan.Orders, PostUpper: upper, Delta: pa.Plan.Delta})
	var sa SummaryAnswer
	if err := json.Unmarshal(SummarizeJSON(req), &sa); err != nil {
		t.Fatal(err)
	}
	if sa.Error != "" || sa.Summary == nil {
		t.Fatalf("summary answer %+v", sa)
	}
	want, err := rdp.ToApprox(amp, 1e-6, rdp.Balle2020)
	if err != nil {
		t.Fatal(err)
	}
	if b := sa.Summary.Bernamp; b.Eps == nil || *b.Eps != want.Eps || *b.Order != want.Order || b.Delta != 1e-6 {
		t.Errorf("amplified summary %+v, want %+v", b, want)
	}
	mech, _ := rdp.ToApprox(rdp.Curve{Orders: []float64{2, 5, 10.5}, Eps: []float64{0.4, 1.1, 2.5}}, 1e-6, rdp.Balle2020)
	if m := sa.Summary.Mechanism; m.Eps == nil || *m.Eps != mech.Eps || !(*sa.Summary.Bernamp.Eps <= *m.Eps) {
		t.Errorf("mechanism summary %+v, want %v (and at least the amplified)", m, mech.Eps)
	}
	// Every order inf: the pasted curve proves nothing, the amplified one does.
	inf := []Order{{Alpha: 2}, {Alpha: 4}}
	s, err := Summarize(inf, []float64{0.5, 0.7}, 1e-5)
	if err != nil || s.Mechanism.Eps != nil || s.Bernamp.Eps == nil {
		t.Errorf("all inf: %+v, %v; want no mechanism eps and an amplified one", s, err)
	}
	// Bad requests are errors, not NaN.
	for _, bad := range []string{
		`{"orders": [{"alpha": 2, "eps": 1}], "post_upper": [0.5, 0.6], "delta": 1e-5}`,
		`{"orders": [{"alpha": 2, "eps": 1}], "post_upper": [0.5], "delta": 0}`,
		`{"orders": [{"alpha": 1, "eps": 1}], "post_upper": [0.5], "delta": 1e-5}`,
		`{"orders": [{"alpha": 2, "eps": 1}], "post_upper": [-1], "delta": 1e-5}`,
	} {
		if err := json.Unmarshal(SummarizeJSON([]byte(bad)), &sa); err != nil || sa.Error == "" {
			t.Errorf("%s: %+v, want an error", bad, sa)
		}
	}
	var oa OrderAnswer
	if err := json.Unmarshal(SolveOrderJSON(context.Background(), []byte(`{"d":1,"k":1,"c":0.7,"order":{"alpha":2,"eps":1}}`)), &oa); err != nil || oa.Error == "" {
		t.Errorf("c 0.7: %+v, want an error", oa)
	}
	if math.IsNaN(upper[0]) || !slices.IsSorted(amp.Eps) {
		t.Errorf("amplified %v", amp.Eps)
	}
}
