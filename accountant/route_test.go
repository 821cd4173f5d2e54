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
				if st.Orders != len(tc.curve.Orders) || st.Useful == 0 || st.Useful >= st.Orders || st.Planned != st.Useful || st.Unsolved != 0 {
					t.Errorf("%s: stats %+v, want 0 < useful = planned < orders = %d", name, st, len(tc.curve.Orders))
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
				if st := r.Stats(); st.Solved != st.Planned {
					t.Errorf("%s: solved %d of %d planned", name, st.Solved, st.Planned)
				}
			}
		}
	}
}

// TestRDPRouteBudget: a budget too small for any solve leaves every useful
// order at the closed form UB: the answers are then the closed-form
// curve's, above those with every order solved and above the exact lower
// side (eps_lower, a real mechanism whose RDP curve is at most the
// Gaussian's); a budget for ten solves at MinOrderTime solves the ten with
// the most to gain, and its answers lie between the two.
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
	for _, budget := range []time.Duration{1, 20 * MinOrderTime} {
		r, err := NewRDPRoute(c, rdp.Balle2020, qs, RouteOptions{Settings: s, Workers: 2, Budget: budget})
		if err != nil {
			t.Fatal(err)
		}
		st := r.Stats()
		wantPlanned := 0
		if budget > 1 {
			wantPlanned = 10 // 20 MinOrderTime over a solve and a check each
		}
		if st.Planned != wantPlanned || st.Unsolved != st.Useful-wantPlanned || st.Useful <= wantPlanned || (wantPlanned > 0 && st.Limit != MinOrderTime) {
			t.Fatalf("budget %v: stats %+v, want %d planned at %v and the rest unsolved", budget, st, wantPlanned, MinOrderTime)
		}
		rk := r.kernels[k]
		least := math.Inf(1)
		planned := map[int]bool{}
		for _, i := range rk.solve {
			least = min(least, rk.gain[i])
			planned[i] = true
		}
		for i, g := range rk.gain {
			if g > least && !planned[i] {
				t.Errorf("budget %v: order %v (gain %v) unsolved, order of gain %v solved", budget, c.Orders[i], g, least)
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
	}
}

// TestRDPRouteShare: the budget's share per order, with and without the
// check, under and over --rdp-timeout, and the floor MinOrderTime.
func TestRDPRouteShare(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		n        int
		budget   time.Duration
		timeout  time.Duration
		check    bool
		m        int
		limit    time.Duration
		settings bool
	}{
		{10, 0, 5 * time.Second, true, 10, 5 * time.Second, true},              // no budget: each at the timeout
		{1, 30 * time.Second, 5 * time.Second, true, 1, 5 * time.Second, true}, // share 15 s, capped at the timeout
		{10, 30 * time.Second, 5 * time.Second, true, 10, 1500 * time.Millisecond, true},
		{10, 30 * time.Second, 5 * time.Second, false, 10, 3 * time.Second, true}, // no check: the whole share to the solve
		{10, 30 * time.Second, 0, true, 10, 1500 * time.Millisecond, true},        // no timeout
		{1000, 30 * time.Second, 5 * time.Second, true, 750, MinOrderTime, true},  // share 15 ms: 750 at 20 ms
		{1000, 1, 5 * time.Second, true, 0, MinOrderTime, true},                   // nothing solved
		{10, 30 * time.Second, 10 * time.Millisecond, true, 10, 10 * time.Millisecond, true},
		{5000, 30 * time.Second, 2 * time.Millisecond, true, 5000, 2 * time.Millisecond, true}, // share 3 ms > the 2 ms timeout
		{0, 30 * time.Second, 5 * time.Second, true, 0, 5 * time.Second, true},
		{10, 30 * time.Second, 0, false, 10, 3 * time.Second, false}, // nil settings
	} {
		r := &RDPRoute{opt: RouteOptions{Budget: tc.budget}}
		if tc.settings {
			r.opt.Settings = &bernamp.Settings{Timeout: tc.timeout, Check: tc.check}
		}
		if m, limit := r.share(tc.n); m != tc.m || limit != tc.limit {
			t.Errorf("%d orders, budget %v, timeout %v, check %v: %d at %v, want %d at %v", tc.n, tc.budget, tc.timeout, tc.check, m, limit, tc.m, tc.limit)
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
