package calc

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/bernamp/bernamp"
)

func form(d, k, c, alpha, eps, timeout string) Form {
	return Form{D: d, K: k, C: c, Alpha: alpha, Eps: eps, Timeout: timeout}
}

func TestParseGrid(t *testing.T) {
	t.Parallel()
	pl, err := Parse(form("1,2", "3", "0.1", "5", "0.1:0.5:0.1", "400ms"))
	if err != nil {
		t.Fatal(err)
	}
	if pl.Timeout.Milliseconds() != 400 {
		t.Errorf("timeout %v, want 400ms", pl.Timeout)
	}
	// d, k, c, alpha, eps with eps fastest; the range is rounded to 12
	// digits, so 0.1+2*0.1 is 0.3 exactly.
	eps := []float64{0.1, 0.2, 0.3, 0.4, 0.5}
	var want []bernamp.Params
	for _, d := range []int{1, 2} {
		for _, e := range eps {
			want = append(want, bernamp.Params{D: d, K: 3, C: 0.1, Alpha: 5, Eps: e})
		}
	}
	if !reflect.DeepEqual(pl.Points, want) {
		t.Errorf("points %v, want %v", pl.Points, want)
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		desc  string
		f     Form
		field string
		msg   string
	}{
		{"c too big", form("1", "1", "0.7", "5", "1", ""), "c", "--c: c is 0.7, must be in (0, 0.5)"},
		{"d zero", form("0", "1", "0.1", "5", "1", ""), "d", "--d: d is 0, must be >= 1"},
		{"k not integer", form("1", "two", "0.1", "5", "1", ""), "k", `--k: "two" is not an integer`},
		{"alpha one", form("1", "1", "0.1", "1", "1", ""), "alpha", "--alpha: alpha is 1, must be > 1 and finite"},
		{"alpha NaN", form("1", "1", "0.1", "NaN", "1", ""), "alpha", "--alpha: alpha is NaN, must be > 1 and finite"},
		{"eps backwards", form("1", "1", "0.1", "5", "1:0:1", ""), "eps", `--eps: range "1:0:1": stop 0 is less than start 1`},
		{"eps empty", form("1", "1", "0.1", "5", " ", ""), "eps", "--eps: empty list"},
		{"eps Inf", form("1", "1", "0.1", "5", "+Inf", ""), "eps", "--eps: eps is +Inf, must be >= 0 and finite"},
		{"d before c", form("0", "1", "0.7", "5", "1", ""), "d", "--d: d is 0, must be >= 1"},
		{"timeout negative", form("1", "1", "0.1", "5", "1", "-1s"), "timeout", "--timeout: timeout is -1s, must be >= 0"},
		{"timeout unitless", form("1", "1", "0.1", "5", "1", "5"), "timeout", `--timeout: "5" is not a duration such as 400ms or 30s`},
		{"grid too large", form("1:101:1", "1", "0.1", "5", "0:9.9:0.1", ""), "", "grid has 10100 points, more than the page's limit of 10000; run it with bernamp post"},
	} {
		_, err := Parse(tc.f)
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

// TestSolveJSON checks the JSON path against bernamp.Post at the same point.
func TestSolveJSON(t *testing.T) {
	t.Parallel()
	var pa ParseAnswer
	if err := json.Unmarshal(ParseJSON([]byte(`{"d":"1","k":"2","c":"0.1","alpha":"5","eps":"1","timeout":""}`)), &pa); err != nil {
		t.Fatal(err)
	}
	if pa.Error != nil || len(pa.Points) != 1 {
		t.Fatalf("parse answer %+v, want one point", pa)
	}
	req, _ := json.Marshal(SolveRequest{Point: pa.Points[0]})
	var sa SolveAnswer
	if err := json.Unmarshal(SolveJSON(context.Background(), req), &sa); err != nil {
		t.Fatal(err)
	}
	if sa.Error != "" || sa.Row == nil {
		t.Fatalf("solve answer %+v, want a row", sa)
	}
	r, err := bernamp.Post(context.Background(), bernamp.Params{D: 1, K: 2, C: 0.1, Alpha: 5, Eps: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := *sa.Row
	if got.LB != r.LB || got.UB != r.UB || got.Post != r.Post || got.PostUpper != r.PostUpper ||
		got.Status != r.Status || got.Conjecture != r.Conjecture || got.Method != r.Method || got.UBAsymptote != r.UBAsymptote {
		t.Errorf("SolveJSON row %+v, bernamp.Post %+v", got, r)
	}
	// A bad point sent straight to SolveJSON is refused by bernamp.Post.
	bad, _ := json.Marshal(SolveRequest{Point: Point{D: 1, K: 1, C: 0.7, Alpha: 5, Eps: 1}})
	if err := json.Unmarshal(SolveJSON(context.Background(), bad), &sa); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sa.Error, "c is 0.7") {
		t.Errorf("error %q, want the message of check.C", sa.Error)
	}
	var bad2 ParseAnswer
	if err := json.Unmarshal(ParseJSON([]byte(`{"d":"1","k":"1","c":"0.7","alpha":"5","eps":"1"}`)), &bad2); err != nil {
		t.Fatal(err)
	}
	if bad2.Error == nil || bad2.Error.Field != "c" || len(bad2.Points) != 0 {
		t.Errorf("parse answer %+v, want the error of field c", bad2)
	}
}
