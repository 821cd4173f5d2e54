package accountant

import (
	"bytes"
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/bernamp/bernamp"
	"github.com/bernamp/bernamp/bounds"
	"github.com/bernamp/bernamp/internal/testref"
	"github.com/bernamp/bernamp/rdp"
)

var inf = math.Inf(1)

func TestRead(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in string
		orders   []float64
		eps      []float64
		warnings int
		err      string
	}{
		{"csv", "alpha,eps\n4,2\n2,1\n", []float64{2, 4}, []float64{1, 2}, 0, ""},
		{"csv inf", "# dp_accounting\n2,1\n64,inf\n128,Inf\n", []float64{2, 64, 128}, []float64{1, inf, inf}, 0, ""},
		{"csv dip", "2,1\n3,0.9999999\n4,2\n", []float64{2, 3, 4}, []float64{0.9999999, 0.9999999, 2}, 1, ""},
		{"csv inf then finite", "2,inf\n3,1\n", []float64{2, 3}, []float64{1, 1}, 1, ""},
		{"json", `{"orders": [2, 4], "rdp": [1, 2]}`, []float64{2, 4}, []float64{1, 2}, 0, ""},
		{"json python inf", ` {"orders": [1.5, 2, 4], "rdp": [0.5, 1, Infinity], "note": "NaN in a string"}`, []float64{1.5, 2, 4}, []float64{0.5, 1, inf}, 0, ""},
		{"json string inf", `{"orders": [2], "rdp": ["inf"]}`, []float64{2}, []float64{inf}, 0, ""},
		{"json dip", `{"orders": [2, 4, 8], "rdp": [1, 0.5, 3]}`, []float64{2, 4, 8}, []float64{0.5, 0.5, 3}, 1, ""},
		{"csv nan", "2,nan\n", nil, nil, 0, "line 1: eps is NaN"},
		{"csv negative", "2,1\n3,-1\n", nil, nil, 0, "line 2: eps is -1"},
		{"csv minus inf", "2,-inf\n", nil, nil, 0, "line 1: eps is -Inf"},
		{"csv order 1", "1,0.5\n", nil, nil, 0, "line 1: alpha"},
		{"csv repeat", "2,1\n2,1\n", nil, nil, 0, "line 2: alpha 2 repeats line 1"},
		{"csv fields", "2,1,3\n", nil, nil, 0, "line 1: 3 fields"},
		{"csv empty", "alpha,eps\n", nil, nil, 0, "no alpha,eps records"},
		{"json lengths", `{"orders": [2, 3], "rdp": [1]}`, nil, nil, 0, "2 orders and 1 rdp values"},
		{"json missing", `{"orders": [2]}`, nil, nil, 0, `arrays "orders" and "rdp"`},
		{"json nan", `{"orders": [2], "rdp": [NaN]}`, nil, nil, 0, "rdp[0]: eps is NaN"},
		{"json inf order", `{"orders": [Infinity], "rdp": [1]}`, nil, nil, 0, "orders[0]"},
		{"json repeat", `{"orders": [2, 2], "rdp": [1, 1]}`, nil, nil, 0, "index 1: alpha 2 repeats index 0"},
		// Cases of the former rdp.ReadCSV, the one reader of curves now.
		{"csv header comments blanks spaces", "# from dp_accounting\nalpha,eps\n\n 1.5, 0.1\n2,0.2\n", []float64{1.5, 2}, []float64{0.1, 0.2}, 0, ""},
		{"csv unsorted", "3,0.3\n2,0.2\n1.1,0.1\n", []float64{1.1, 2, 3}, []float64{0.1, 0.2, 0.3}, 0, ""},
		{"csv crlf", "alpha,eps\r\n2,1\r\n4,2\r\n", []float64{2, 4}, []float64{1, 2}, 0, ""},
		{"csv dip unsorted", "3,0.4\n2,0.5\n", []float64{2, 3}, []float64{0.4, 0.4}, 1, ""},
		{"csv order below 1", "alpha,eps\n2,0.2\n0.5,0.1\n", nil, nil, 0, "line 3: alpha is 0.5"},
		{"csv order inf", "inf,1\n", nil, nil, 0, "line 1: alpha"},
		{"csv one field", "2\n", nil, nil, 0, "line 1: 1 fields"},
		{"csv alpha not a number", "2,0.5\nx,0.6\n", nil, nil, 0, `line 2: alpha "x" is not a number`},
		{"csv eps not a number", "2,abc\n", nil, nil, 0, `line 1: eps "abc" is not a number`},
		{"csv nothing", "", nil, nil, 0, "no alpha,eps records"},
		{"json not an object", `{"orders": 2}`, nil, nil, 0, "JSON"},
		{"json empty", `{"orders": [], "rdp": []}`, nil, nil, 0, "no orders"},
	} {
		c, w, err := Read(strings.NewReader(tc.in))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err = %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !slices.Equal(c.Orders, tc.orders) || !slices.Equal(c.Eps, tc.eps) || len(w) != tc.warnings {
			t.Errorf("%s: got %v %v warnings %q, want %v %v and %d warnings", tc.name, c.Orders, c.Eps, w, tc.orders, tc.eps, tc.warnings)
		}
	}
}

func TestComposeSum(t *testing.T) {
	t.Parallel()
	a := Curve{Orders: []float64{2, 4, 8}, Eps: []float64{0.25, 0.5, inf}}
	b := Curve{Orders: []float64{2, 8, 16}, Eps: []float64{0.5, 1, 2}}
	s, w, err := Sum(a, b)
	if err != nil || !slices.Equal(s.Orders, []float64{2, 8}) || len(w) != 1 {
		t.Fatalf("Sum = %v, %q, %v", s, w, err)
	}
	// 0.25 + 0.5 is exact; the sum is rounded up by one ulp at most.
	if s.Eps[0] < 0.75 || s.Eps[0] > math.Nextafter(0.75, 1) || !math.IsInf(s.Eps[1], 1) {
		t.Errorf("Sum eps = %v, want [0.75 (rounded up), inf]", s.Eps)
	}
	if _, _, err := Sum(a, Curve{Orders: []float64{3}, Eps: []float64{1}}); err == nil {
		t.Error("Sum of curves with no common order: no error")
	}
	c := Compose(Curve{Orders: []float64{2, 3}, Eps: []float64{0.1, 0}}, 1000)
	if c.Eps[0] < 100 || c.Eps[0] > 100*(1+1e-15) || c.Eps[1] != 0 {
		t.Errorf("Compose(0.1, 0; 1000) = %v, want [100 rounded up, 0]", c.Eps)
	}
}

func TestWriteRoundTrip(t *testing.T) {
	t.Parallel()
	c := Curve{Orders: rdp.DefaultOrders()}
	for _, a := range c.Orders {
		c.Eps = append(c.Eps, math.Log1p(a)/3) // not short decimals
	}
	for name, write := range map[string]func(*bytes.Buffer) error{
		"csv":  func(b *bytes.Buffer) error { return WriteCSV(b, c) },
		"json": func(b *bytes.Buffer) error { return WriteJSON(b, c) },
	} {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		back, w, err := Read(&b)
		if err != nil || len(w) > 0 || !slices.Equal(back.Orders, c.Orders) || !slices.Equal(back.Eps, c.Eps) {
			t.Errorf("%s: round trip differs (%v, %q)", name, err, w)
		}
	}
	if err := WriteJSON(&bytes.Buffer{}, Curve{Orders: []float64{2}, Eps: []float64{inf}}); err == nil {
		t.Error("WriteJSON wrote inf")
	}
}

// TestInfiniteOrder checks that an order with eps = inf has the finite
// amplified level d k r_alpha(c): Post's interval at eps = inf encloses the
// 60-digit value of testdata/accountant/asymptote.csv within 1e-12, and
// bernamp.Post's proved interval at a large finite eps tends to it from
// below (the Theorem 4 pair) and stays under it (the closed form).
func TestInfiniteOrder(t *testing.T) {
	t.Parallel()
	for _, rec := range testref.Rows(t, "../testdata/accountant/asymptote.csv", 80) {
		d, k := int(testref.Float(t, rec[0])), int(testref.Float(t, rec[1]))
		c, alpha, want := testref.Float(t, rec[2]), testref.Float(t, rec[3]), testref.Float(t, rec[4])
		r, err := Post(context.Background(), Kernel{d, k, c}, alpha, inf, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !(r.LB <= want && want <= r.PostUpper && r.PostUpper-r.LB <= 1e-12*want) || r.Method != MethodAsymptote {
			t.Errorf("%v: inf order gives [%v, %v] (%s), want it to enclose %v tightly", rec, r.LB, r.PostUpper, r.Method, want)
		}
		if d*k > 3 || alpha > 63 {
			continue // the limit below is a check of the closed forms; a few points suffice
		}
		// At eps = 60 the Theorem 4 pair has p = r_alpha^-1(60) < e^-55,
		// so LB is within 1e-6 relative of the limit (and below it up to
		// bounds.Lower's float64 accuracy, 1e-14 relative, which does not
		// round down).
		lb := bounds.Lower(d, k, c, alpha, 60)
		ub := bounds.UpperBound(d, k, c, alpha, 60).Value()
		if !(lb <= want*(1+1e-14) && want <= ub && want-lb <= 1e-6*want) {
			t.Errorf("%v: at eps = 60 LB %v, UB %v, want LB <= %v <= UB and LB within 1e-6", rec, lb, ub, want)
		}
	}
}

// TestAmplifyInf checks a curve mixing finite and inf orders: every
// amplified level is finite and at most the input's, and the inf orders
// carry the asymptote.
func TestAmplifyInf(t *testing.T) {
	t.Parallel()
	c := Curve{Orders: []float64{2, 8, 64}, Eps: []float64{0.25, 1, inf}}
	k := Kernel{D: 1, K: 1, C: 0.1}
	amp, res, err := Amplify(context.Background(), c, k, &bernamp.Settings{}, 2)
	if err != nil {
		t.Fatal(err)
	}
	asym := bounds.UpperBound(1, 1, 0.1, 64, 0).Asymptote
	if amp.Eps[2] != asym || res[2].Method != MethodAsymptote {
		t.Errorf("inf order: %v (%s), want %v", amp.Eps[2], res[2].Method, asym)
	}
	for i := range 2 {
		if !(amp.Eps[i] <= c.Eps[i] && amp.Eps[i] >= res[i].LB) {
			t.Errorf("order %v: amplified %v outside [lb %v, eps %v]", c.Orders[i], amp.Eps[i], res[i].LB, c.Eps[i])
		}
	}
}
