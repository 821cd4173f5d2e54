package accountant

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/bernamp/bernamp"
	"github.com/bernamp/bernamp/mixing"
	"github.com/bernamp/bernamp/rdp"
)

// TestCompare: the orders of bernamp curve come in curve order whatever
// the workers, each is Post's answer beside mixing.Renyi's three bounds
// (+Inf where the mechanism's eps is), passes the cross-check, and each
// broken side is caught.
func TestCompare(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := Curve{Orders: []float64{2, 8, 32}, Eps: []float64{0.25, 1, inf}}
	k := Kernel{D: 1, K: 2, C: 0.1}
	b, err := mixing.New(mixing.Kernel{D: 1, K: 2, C: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	s := &bernamp.Settings{}
	var runs [2][]Order
	for w, workers := range []int{1, 3} {
		err := Compare(ctx, c, k, s, workers, func(i int, o Order) error {
			if i != len(runs[w]) {
				t.Errorf("workers %d: order %d emitted after %d", workers, i, len(runs[w]))
			}
			runs[w] = append(runs[w], o)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for i, o := range runs[0] {
		p := runs[1][i]
		if o.PostUpper != p.PostUpper || o.LB != p.LB || o.Dobrushin != p.Dobrushin {
			t.Errorf("order %v: workers 1 and 3 differ: %+v, %+v", c.Orders[i], o, p)
		}
		r, err := Post(ctx, k, c.Orders[i], c.Eps[i], s)
		if err != nil {
			t.Fatal(err)
		}
		if o.Alpha != c.Orders[i] || o.PostUpper != r.PostUpper || o.LB != r.LB {
			t.Errorf("order %v: %+v, Post %+v", c.Orders[i], o.Result, r)
		}
		for _, x := range []struct {
			got, gamma float64
		}{{o.Dobrushin, b.Dobrushin}, {o.Doeblin, b.Doeblin}, {o.UltraMixing, b.UltraMixing}} {
			want := inf
			if !math.IsInf(c.Eps[i], 1) {
				want = mixing.Renyi(x.gamma, c.Orders[i], c.Eps[i])
			}
			if x.got != want {
				t.Errorf("order %v: comparator %v, want %v", c.Orders[i], x.got, want)
			}
		}
		if msg := o.CrossCheck(); msg != "" {
			t.Errorf("order %v: %s", c.Orders[i], msg)
		}
		for name, broken := range map[string]func(q *Order){
			"lb=":          func(q *Order) { q.Post = q.LB * (1 - 1e-9) },
			"post_upper=":  func(q *Order) { q.PostUpper = q.Post * (1 - 1e-9) },
			"> ub=":        func(q *Order) { q.UB = q.PostUpper * (1 - 1e-9) },
			"> doeblin=":   func(q *Order) { q.Doeblin = q.LB / 2 },
			"ultra_mixing": func(q *Order) { q.UltraMixing = q.LB / 2 },
		} {
			q := o
			broken(&q)
			if msg := q.CrossCheck(); !strings.Contains(msg, name) {
				t.Errorf("order %v, %s broken: cross-check says %q", c.Orders[i], name, msg)
			}
		}
	}
	if err := Compare(ctx, Curve{Orders: []float64{2, 1.5}, Eps: []float64{1, 1}}, k, s, 1, nil); err == nil {
		t.Error("decreasing orders: no error")
	}
}

// TestSummary: the rows of bernamp curve's summary, by name and in order;
// the bernamp row is the amplified curve made nondecreasing and converted
// (so at least the exact conversion of the largest order's bound, never
// below the mechanism's row when the mechanism is amplified); the thm1
// rows only for one release; the returned curve is the composed one.
func TestSummary(t *testing.T) {
	t.Parallel()
	g, err := rdp.Gaussian(1, []float64{2, 4, 8, 16, 32})
	if err != nil {
		t.Fatal(err)
	}
	in := FromRDP(g)
	k := Kernel{D: 1, K: 1, C: 0.2}
	var orders []Order
	if err := Compare(context.Background(), in, k, &bernamp.Settings{}, 2, func(_ int, o Order) error { orders = append(orders, o); return nil }); err != nil {
		t.Fatal(err)
	}
	want1 := []string{"mechanism", "bernamp", "rdp_dobrushin", "rdp_doeblin", "rdp_ultra_mixing", "thm1_dobrushin", "thm1_dobrushin_hs", "thm1_doeblin", "thm1_ultra_mixing"}
	for _, tc := range []struct {
		t     int
		names []string
	}{{1, want1}, {3, want1[:5]}} {
		rows, amp, err := Summary(in, orders, k, 1e-5, rdp.Balle2020, tc.t)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, r := range rows {
			names = append(names, r.Bound)
			if r.Delta != 1e-5 {
				t.Errorf("t=%d %s: delta %v", tc.t, r.Bound, r.Delta)
			}
		}
		if !slices.Equal(names, tc.names) {
			t.Errorf("t=%d: rows %v, want %v", tc.t, names, tc.names)
		}
		for i, o := range orders {
			if want := o.PostUpper * float64(tc.t); math.Abs(amp.Eps[i]-want) > 1e-12*want {
				t.Errorf("t=%d: amplified curve at %v is %v, want %d x %v", tc.t, amp.Orders[i], amp.Eps[i], tc.t, o.PostUpper)
			}
		}
		mech, bern := rows[0], rows[1]
		if mech.Eps == nil || bern.Eps == nil || !(*bern.Eps < *mech.Eps) {
			t.Errorf("t=%d: mechanism %v, bernamp %v: amplification lost", tc.t, mech.Eps, bern.Eps)
		}
	}
	if _, _, err := Summary(in, orders[:2], k, 1e-5, rdp.Balle2020, 1); err == nil {
		t.Error("2 orders for a curve of 5: no error")
	}
}
