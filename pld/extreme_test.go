package pld_test

import (
	"math"
	"strconv"
	"testing"

	"github.com/bernamp/bernamp/internal/testref"
	"github.com/bernamp/bernamp/pld"
)

// TestAmplifyExtremes compares Amplify(Gaussian(1, sigma), n, c).Forward(eps)
// with testdata/ref/amplified_profile.csv: the exact amplified Gaussian
// profile of design/math.md 3d at 50 digits (mpmath, amplified_profile.py,
// at the same doubles), on the grid n in {1, 7, 1000, 10^6, 10^9}, c in
// {1e-6, 1e-3, 0.1, 0.3, 0.49}, sigma in {0.5, 2, 8}, eps in {0, 0.01, 1,
// 5, 20, 50} (450 rows).
//
// Amplify's value is an upper bound, so it must be >= the reference; the
// reference is the 50-digit value rounded to the nearest double (half an
// ulp), and Amplify rounds every step up by far more than that, so no
// relative slack is allowed on that side: only 1e-300 absolute, for values
// that underflow (the Gaussian profile is padded by 2^-1000 ~ 9e-302
// absolute, which Amplify carries into delta' where the reference is 0 or
// subnormal). On the upper side it may exceed the reference by its rounding
// pads: 1e-9 relative (plus the same 1e-300). Measured: at most 2.5e-10, at
// n = 1000, c = 0.49, sigma = 8, eps = 1 (delta' = 4.3e-290 from delta_M =
// 1.6e-17): there M_t delta and m_t (delta + g - 1) are 49 times delta', so
// Amplify's binomial error model (about 2.7e-12 relative at n = 1000) costs
// 1.3e-10, and the Gaussian's padding ((32 + 4 z^2) ulps of each Phi, 67
// times delta_M after their cancellation, 4.7e-12) times M_t delta / delta'
// = 25 costs 1.2e-10. Points closer to the zero of delta' would be looser
// (the excess is relative to the terms, not to their difference); the grid
// has none.
//
// Every profile is also evaluated up to eps = 700 (pld.MaxEps): finite, in
// [0, 1] and non-increasing (up to the same tolerances).
func TestAmplifyExtremes(t *testing.T) {
	rows := testref.Rows(t, "../testdata/ref/amplified_profile.csv", 450)
	type key struct {
		sigma float64
		n     int
		c     float64
	}
	amps := map[key]pld.Profile{}
	const absTol = 1e-300
	const relTol = 1e-9
	worst, worstRow := 0.0, ""
	positive := 0
	for _, rec := range rows {
		n, err := strconv.Atoi(rec[0])
		if err != nil {
			t.Fatal(err)
		}
		c, sigma, eps, ref := testref.Float(t, rec[1]), testref.Float(t, rec[2]), testref.Float(t, rec[3]), testref.Float(t, rec[4])
		k := key{sigma, n, c}
		a, ok := amps[k]
		if !ok {
			g, err := pld.Gaussian(1, sigma)
			if err != nil {
				t.Fatal(err)
			}
			if a, err = pld.Amplify(g, n, c); err != nil {
				t.Fatal(err)
			}
			amps[k] = a
		}
		got := a.Forward(eps)
		if math.IsNaN(got) || math.IsInf(got, 0) || got < 0 || got > 1 {
			t.Errorf("n=%d c=%v sigma=%v eps=%v: Forward = %v, want a finite value in [0, 1]", n, c, sigma, eps, got)
			continue
		}
		if got < ref-absTol {
			t.Errorf("n=%d c=%v sigma=%v eps=%v: Forward = %.17g below the exact %.17g (not an upper bound)", n, c, sigma, eps, got, ref)
		}
		if got > ref*(1+relTol)+absTol {
			t.Errorf("n=%d c=%v sigma=%v eps=%v: Forward = %.17g above the exact %.17g by %.3g relative (> %g)", n, c, sigma, eps, got, ref, got/ref-1, relTol)
		}
		if ref >= absTol {
			positive++
			if r := got/ref - 1; r > worst {
				worst, worstRow = r, rec[0]+","+rec[1]+","+rec[2]+","+rec[3]
			}
		}
	}
	t.Logf("%d rows, %d with delta' >= 1e-300; largest relative excess %.3g at n,c,sigma,eps = %s", len(rows), positive, worst, worstRow)
	sweep := []float64{0, 1e-12, 0.01, 0.5, 1, 5, 10, 20, 50, 100, 300, 699.5, pld.MaxEps}
	for k, a := range amps {
		prev := math.Inf(1)
		for _, e := range sweep {
			v := a.Forward(e)
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > 1 {
				t.Errorf("n=%d c=%v sigma=%v eps=%v: Forward = %v, want a finite value in [0, 1]", k.n, k.c, k.sigma, e, v)
			}
			if v > prev*(1+relTol)+absTol {
				t.Errorf("n=%d c=%v sigma=%v: Forward(%v) = %v above a value at a smaller eps, %v", k.n, k.c, k.sigma, e, v, prev)
			}
			prev = v
		}
		if a.Reverse != nil {
			t.Errorf("n=%d c=%v sigma=%v: Reverse is set for a symmetric input", k.n, k.c, k.sigma)
		}
	}
	if positive < 200 {
		t.Errorf("only %d rows with delta' >= 1e-300: the table does not test what it should", positive)
	}
}
