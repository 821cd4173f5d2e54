package accountant

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/bernamp/bernamp"
	"github.com/bernamp/bernamp/pld"
	"github.com/bernamp/bernamp/rdp"
)

// routeQuestions are the questions of the route tests at kernel k: eps at
// delta 1e-5 and delta at eps 1 + T/4 (below 1, at the Gaussian's sigma 2),
// after T = 1, 10 and 100 steps.
func routeQuestions(k Kernel) []Composition {
	var qs []Composition
	for _, t := range []int{1, 10, 100} {
		qs = append(qs, Composition{Kernel: k, Steps: t, Delta: 1e-5}, Composition{Kernel: k, Steps: t, Eps: 1 + float64(t)/4})
	}
	return qs
}

// amplifyAll is the curve amplified at every order with settings s
// (Amplify), as the route did before it was planned.
func amplifyAll(t *testing.T, c Curve, k Kernel, s *bernamp.Settings) rdp.Curve {
	t.Helper()
	amp, _, err := Amplify(context.Background(), c, k, s, 2)
	if err != nil {
		t.Fatal(err)
	}
	return amp
}

// everyOrder is q's answer from amp (amplifyAll), composed and converted
// as the route did before it was planned.
func everyOrder(t *testing.T, amp rdp.Curve, conv rdp.Conversion, q Composition) float64 {
	t.Helper()
	composed, _ := Compose(FromRDP(amp), q.Steps).Finite()
	if q.Delta > 0 {
		a, err := rdp.ToApprox(composed, q.Delta, conv)
		if err != nil {
			t.Fatal(err)
		}
		return a.Eps
	}
	d, _, err := rdp.DeltaAt(composed, q.Eps, conv)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestRDPRouteSameAsEveryOrder: the route solves only the orders that
// could lower an answer, and its answers equal those with every order
// solved (the pruning loses nothing), for each conversion, eps and delta
// questions, a curve with +Inf orders, and any number of workers. It fails
// if an order that matters is left at the closed form.
func TestRDPRouteSameAsEveryOrder(t *testing.T) {
	t.Parallel()
	gauss, err := rdp.Gaussian(2, nil)
	if err != nil {
		t.Fatal(err)
	}
	mixed := Curve{Orders: []float64{1.5, 2, 4, 8, 16, 64}, Eps: []float64{0.2, 0.3, 0.6, 1.5, math.Inf(1), math.Inf(1)}}
	for _, tc := range []struct {
		curve Curve
		k     Kernel
	}{
		{FromRDP(gauss), Kernel{D: 1, K: 1, C: 0.1}},
		{FromRDP(gauss), Kernel{D: 2, K: 1, C: 0.3}},
		{FromRDP(gauss), Kernel{D: 4, K: 1, C: 0.1}},
		{mixed, Kernel{D: 1, K: 2, C: 0.2}},
	} {
		s := &bernamp.Settings{Workers: 1}
		amp := amplifyAll(t, tc.curve, tc.k, s)
		for _, conv := range []rdp.Conversion{rdp.Balle2020, rdp.DPAccounting} {
			qs := routeQuestions(tc.k)
			var want []float64
			for _, q := range qs {
				want = append(want, everyOrder(t, amp, conv, q))
			}
			for _, workers := range []int{1, 3} {
				name := fmt.Sprintf("%v %v %s workers %d", tc.curve.Orders[:2], tc.k, conv, workers)
				r, err := NewRDPRoute(tc.curve, conv, qs, RouteOptions{Settings: s, Workers: workers})
				if err != nil {
					t.Fatal(err)
				}
				st := r.Stats()
				if st.Orders != len(tc.curve.Orders) || st.Useful == 0 || st.Useful >= st.Orders || st.Solved != 0 {
					t.Errorf("%s: stats %+v, want 0 < useful < orders = %d, none solved yet", name, st, len(tc.curve.Orders))
				}
				for i, q := range qs {
					got, err := r.Answer(context.Background(), q)
					if err != nil {
						t.Fatal(err)
					}
					if got != want[i] {
						t.Errorf("%s: steps %d delta %v eps %v: route %v, every order solved %v", name, q.Steps, q.Delta, q.Eps, got, want[i])
					}
				}
				if st := r.Stats(); st.Solved != st.Useful || st.Unsolved != 0 {
					t.Errorf("%s: solved %d, unsolved %d of %d useful", name, st.Solved, st.Unsolved, st.Useful)
				}
			}
		}
	}
}

// TestRDPRouteBudget: the useful orders are solved most to gain first; a
// budget too small for any solve leaves every one at the closed form UB:
// the answers are then the closed-form curve's, above those with every
// order solved and above the exact lower side (eps_lower, a real mechanism
// whose RDP curve is at most the Gaussian's); a budget for a few solves
// gives answers between the two.
func TestRDPRouteBudget(t *testing.T) {
	t.Parallel()
	gauss, err := rdp.Gaussian(2, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := FromRDP(gauss)
	k := Kernel{D: 1, K: 1, C: 0.1}
	qs := routeQuestions(k)
	s := &bernamp.Settings{Timeout: 5 * time.Second, Workers: 1, Check: true}
	prof, err := pld.Gaussian(1, 2)
	if err != nil {
		t.Fatal(err)
	}
	ampClosed, ampSolved := amplifyAll(t, c, k, &bernamp.Settings{BoundsOnly: true}), amplifyAll(t, c, k, s)
	for _, budget := range []time.Duration{1, 10 * MinOrderTime} {
		r, err := NewRDPRoute(c, rdp.Balle2020, qs, RouteOptions{Settings: s, Workers: 2, Budget: budget})
		if err != nil {
			t.Fatal(err)
		}
		rk := r.kernels[k]
		if len(rk.solve) <= RouteBatch {
			t.Fatalf("%d useful orders, want more than a batch", len(rk.solve))
		}
		for j := 1; j < len(rk.solve); j++ {
			if a, b := rk.gain[rk.solve[j-1]], rk.gain[rk.solve[j]]; !(a >= b && b > 0) {
				t.Errorf("useful orders %v (gain %v) before %v (gain %v): want the most to gain first", c.Orders[rk.solve[j-1]], a, c.Orders[rk.solve[j]], b)
			}
		}
		for _, q := range qs {
			got, err := r.Answer(context.Background(), q)
			if err != nil {
				t.Fatal(err)
			}
			closed, solved := everyOrder(t, ampClosed, rdp.Balle2020, q), everyOrder(t, ampSolved, rdp.Balle2020, q)
			what := fmt.Sprintf("budget %v: steps %d delta %v eps %v", budget, q.Steps, q.Delta, q.Eps)
			if budget == 1 && got != closed {
				t.Errorf("%s: route %v, want the closed form's %v", what, got, closed)
			}
			if !(solved <= got && got <= closed) || !(solved < closed) {
				t.Errorf("%s: route %v, want within [every order solved %v, closed form %v], an interval not empty", what, got, solved, closed)
			}
			if q.Delta > 0 {
				acc, err := pld.NewAccount(context.Background(), []pld.Step{{Mechanism: prof, N: k.D * k.K, C: k.C, Steps: q.Steps}}, pld.DefaultOptions())
				if err != nil {
					t.Fatal(err)
				}
				lo, err := acc.EpsLower(context.Background(), q.Delta)
				if err != nil {
					t.Fatal(err)
				}
				if !(got >= lo) {
					t.Errorf("%s: route %v below the exact lower side %v", what, got, lo)
				}
			}
		}
		st := r.Stats()
		if st.Solved+st.Unsolved != st.Useful || st.Unsolved == 0 || (budget == 1 && st.Solved != 0) {
			t.Errorf("budget %v: stats %+v, want every useful order solved or not, some not, none at 1 ns", budget, st)
		}
	}
}

// TestRDPRouteLimit: the time limit of each order of a batch under the
// budget, with and without the check, under and over the timeout, and the
// floor MinOrderTime where the budget is spent.
func TestRDPRouteLimit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		budget, left, timeout time.Duration
		n                     int
		check, settings       bool
		limit                 time.Duration
		ok                    bool
	}{
		{0, 0, 5 * time.Second, 8, true, true, 5 * time.Second, true},                               // no budget: the timeout
		{30 * time.Second, 30 * time.Second, 5 * time.Second, 1, true, true, 5 * time.Second, true}, // 15 s, capped at the timeout
		{30 * time.Second, 30 * time.Second, 5 * time.Second, 8, true, true, 1875 * time.Millisecond, true},
		{30 * time.Second, 30 * time.Second, 5 * time.Second, 8, false, true, 3750 * time.Millisecond, true}, // no check: all to the solve
		{30 * time.Second, 30 * time.Second, 0, 8, true, true, 1875 * time.Millisecond, true},                // no timeout
		{30 * time.Second, 320 * time.Millisecond, 5 * time.Second, 8, true, true, 20 * time.Millisecond, true},
		{30 * time.Second, 319 * time.Millisecond, 5 * time.Second, 8, true, true, 19937500, false},                      // under MinOrderTime: spent
		{30 * time.Second, -time.Second, 5 * time.Second, 8, true, true, -62500000, false},                               // overspent
		{30 * time.Second, 100 * time.Millisecond, 10 * time.Millisecond, 8, true, true, 6250 * time.Microsecond, false}, // a timeout under MinOrderTime is the floor
		{30 * time.Second, 200 * time.Millisecond, 10 * time.Millisecond, 8, true, true, 10 * time.Millisecond, true},
		{30 * time.Second, 30 * time.Second, 0, 8, false, false, 3750 * time.Millisecond, true}, // nil settings
	} {
		r := &RDPRoute{opt: RouteOptions{Budget: tc.budget}}
		if tc.settings {
			r.opt.Settings = &bernamp.Settings{Timeout: tc.timeout, Check: tc.check}
		}
		if limit, ok := r.limit(tc.left, tc.n); limit != tc.limit || ok != tc.ok {
			t.Errorf("%+v: %v %v, want %v %v", tc, limit, ok, tc.limit, tc.ok)
		}
	}
}

// TestRDPRouteErrors: a question not planned, a bad question and a
// cancelled context are errors.
func TestRDPRouteErrors(t *testing.T) {
	t.Parallel()
	gauss, err := rdp.Gaussian(2, nil)
	if err != nil {
		t.Fatal(err)
	}
	k := Kernel{D: 1, K: 1, C: 0.1}
	r, err := NewRDPRoute(FromRDP(gauss), rdp.Balle2020, []Composition{{Kernel: k, Steps: 10, Delta: 1e-5}}, RouteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Answer(context.Background(), Composition{Kernel: k, Steps: 11, Delta: 1e-5}); err == nil {
		t.Error("unplanned question: no error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Answer(ctx, Composition{Kernel: k, Steps: 10, Delta: 1e-5}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	for _, q := range []Composition{{Kernel: k, Steps: 0, Delta: 1e-5}, {Kernel: k, Steps: 1, Delta: 1}, {Kernel: k, Steps: 1, Eps: math.Inf(1)}, {Kernel: Kernel{D: 1, K: 1, C: 0.5}, Steps: 1, Delta: 1e-5}} {
		if _, err := NewRDPRoute(FromRDP(gauss), rdp.Balle2020, []Composition{q}, RouteOptions{}); err == nil {
			t.Errorf("%+v: no error", q)
		}
	}
}
