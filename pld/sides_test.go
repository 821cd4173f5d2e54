package pld

import (
	"context"
	"fmt"
	"math"
	"testing"
)

// TestSidesOrdered: composed, the upper side (pessimistic PLD of the exact
// amplified profile) is never below the lower side (the attaining real
// mechanism composed optimistically), for eps at delta and delta at eps,
// symmetric and asymmetric mechanisms; and neither is NaN.
func TestSidesOrdered(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	g, _ := Gaussian(1, 1.5)
	l, _ := Laplace(1, 0.7)
	rr, _ := RandomizedResponse(0.8)
	sg, _ := SubsampledGaussian(1, 1, 0.05)
	opt := DefaultOptions()
	opt.H = 1e-3
	for _, p := range []Profile{g, l, rr, sg} {
		for _, n := range []int{1, 50} {
			for _, c := range []float64{0.05, 0.3} {
				for _, steps := range []int{1, 20} {
					name := fmt.Sprintf("%s n=%d c=%v T=%d", p.Name, n, c, steps)
					a, err := NewAccount(ctx, []Step{{Mechanism: p, N: n, C: c, Steps: steps}}, opt)
					if err != nil {
						t.Fatal(err)
					}
					up := a.EpsUpper(1e-5)
					lo, err := a.EpsLower(ctx, 1e-5)
					if err != nil {
						t.Fatal(err)
					}
					if !(lo <= up) {
						t.Errorf("%s: eps_lower %v > eps_upper %v", name, lo, up)
					}
					e := up / 2
					du := a.DeltaUpper(e)
					dl, err := a.DeltaLower(ctx, e)
					if err != nil {
						t.Fatal(err)
					}
					if !(dl <= du) {
						t.Errorf("%s: at eps %v delta_lower %v > delta_upper %v", name, e, dl, du)
					}
				}
			}
		}
	}
}

// TestHeterogeneousSplit: composing a mechanism 60 times and then 40 times
// (two step kinds, convolved with pessimistic truncation) answers what 100
// steps of it answer, to the truncation and rounding (1e-6 relative), in
// both directions of an asymmetric mechanism; and adding a third kind
// only raises eps.
func TestHeterogeneousSplit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	sg, _ := SubsampledGaussian(1, 1, 0.1)
	g, _ := Gaussian(1, 3)
	opt := DefaultOptions()
	opt.H = 1e-3
	whole, err := NewAccount(ctx, []Step{{Mechanism: sg, N: 2, C: 0.2, Steps: 100}}, opt)
	if err != nil {
		t.Fatal(err)
	}
	split, err := NewAccount(ctx, []Step{{Mechanism: sg, N: 2, C: 0.2, Steps: 60}, {Mechanism: sg, N: 2, C: 0.2, Steps: 40}}, opt)
	if err != nil {
		t.Fatal(err)
	}
	a, b := whole.EpsUpper(1e-6), split.EpsUpper(1e-6)
	if math.Abs(a-b) > 1e-6*a {
		t.Errorf("100 steps: eps %v; 60 + 40 steps: eps %v", a, b)
	}
	more, err := NewAccount(ctx, []Step{{Mechanism: sg, N: 2, C: 0.2, Steps: 60}, {Mechanism: sg, N: 2, C: 0.2, Steps: 40}, {Mechanism: g, Steps: 3}}, opt)
	if err != nil {
		t.Fatal(err)
	}
	if c := more.EpsUpper(1e-6); !(c > b) {
		t.Errorf("three more Gaussian steps: eps %v, not above %v", c, b)
	}
}

// TestWorkersIdentical: the answers do not depend on the number of
// workers (the profile's grid in chunks, the lower search's scan and both
// directions on goroutines), bit for bit, for two step kinds. With two
// workers the scan's goroutines share the account's cache of binomial
// terms, which once was filled concurrently (a concurrent map write).
func TestWorkersIdentical(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	g, _ := Gaussian(1, 2)
	sg, _ := SubsampledGaussian(1, 1, 0.2)
	steps := []Step{{Mechanism: g, N: 3, C: 0.2, Steps: 30}, {Mechanism: sg, N: 1, C: 0.1, Steps: 20}}
	var got [2][3]float64
	for i, w := range []int{1, 2} {
		opt := DefaultOptions()
		opt.H, opt.Workers = 1e-3, w
		a, err := NewAccount(ctx, steps, opt)
		if err != nil {
			t.Fatal(err)
		}
		lo, err := a.EpsLower(ctx, 1e-6)
		if err != nil {
			t.Fatal(err)
		}
		dl, err := a.DeltaLower(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		got[i] = [3]float64{a.EpsUpper(1e-6), lo, dl}
	}
	if got[0] != got[1] {
		t.Errorf("1 worker: %v; 2 workers: %v", got[0], got[1])
	}
}
