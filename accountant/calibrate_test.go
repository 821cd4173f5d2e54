package accountant

import (
	"context"
	"math"
	"testing"

	"github.com/bernamp/bernamp"
	"github.com/bernamp/bernamp/internal/testref"
	"github.com/bernamp/bernamp/rdp"
)

var calOrders = []float64{2, 4, 8, 16, 32, 64}

func infCurve() Curve {
	c := Curve{Orders: calOrders, Eps: make([]float64, len(calOrders))}
	for i := range c.Eps {
		c.Eps[i] = inf
	}
	return c
}

// TestCalibrateSamplingAlone solves for c and k on a curve with eps = inf
// at every order, where the amplified curve is d k r_alpha(c) and the
// answers are known in closed form: testdata/accountant/calibrate.csv
// (mpmath bisection at 60 digits, gen_accountant.py). The c found must be
// at or above the exact boundary (on the safe side) and within the
// resolution of it; the k must be the exact one.
func TestCalibrateSamplingAlone(t *testing.T) {
	t.Parallel()
	const res = 1e-4
	for _, rec := range testref.Rows(t, "../testdata/accountant/calibrate.csv", 6) {
		d := int(testref.Float(t, rec[1]))
		tg := Target{Eps: testref.Float(t, rec[5]), Delta: testref.Float(t, rec[6]), Steps: int(testref.Float(t, rec[4])), Conversion: rdp.Balle2020}
		want := testref.Float(t, rec[7])
		p := Problem{Target: tg, Curve: infCurve(), Resolution: res, Workers: 2}
		switch rec[0] {
		case "c":
			p.Solve, p.Kernel = SolveC, Kernel{D: d, K: int(testref.Float(t, rec[2]))}
		case "k":
			p.Solve, p.Kernel = SolveK, Kernel{D: d, C: testref.Float(t, rec[3])}
		}
		a, err := Calibrate(context.Background(), p)
		if err != nil {
			t.Fatalf("%v: %v", rec, err)
		}
		if a.Eps > tg.Eps || !(a.FailEps > tg.Eps) {
			t.Errorf("%v: answer eps %v, fail eps %v: the answer must meet the target and Fail miss it", rec, a.Eps, a.FailEps)
		}
		switch rec[0] {
		case "c":
			if !(a.Value >= want && a.Value <= want*(1+2*res) && a.Fail <= want*(1+1e-12)) {
				t.Errorf("%v: c = %v (fail %v), want in [%v, %v]", rec, a.Value, a.Fail, want, want*(1+2*res))
			}
		case "k":
			if a.Value != want || a.Fail != want+1 {
				t.Errorf("%v: k = %v (fail %v), want %v", rec, a.Value, a.Fail, want)
			}
		}
	}
}

// TestCalibrateSigma solves for the Gaussian sigma through the kernel d =
// 1, k = 1, c = 0.1: the answer meets the target by a fresh Guarantee, the
// failing end misses it, the bracket is within the resolution, and the
// answer is below the sigma the mechanism needs without amplification
// (found here by bisection on the conversion alone). A loose target is met
// by the sampling alone (Any).
func TestCalibrateSigma(t *testing.T) {
	t.Parallel()
	const res = 1e-3
	k := Kernel{D: 1, K: 1, C: 0.1}
	tg := Target{Eps: 1, Delta: 1e-5, Steps: 3, Conversion: rdp.Balle2020}
	noise := func(x float64) Curve {
		c, err := rdp.Gaussian(x, calOrders)
		if err != nil {
			return infCurve()
		}
		return FromRDP(c)
	}
	s := &bernamp.Settings{NoCertify: true}
	a, err := Calibrate(context.Background(), Problem{Target: tg, Solve: SolveNoise, Kernel: k, Noise: noise, Resolution: res, Settings: s, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	g, err := Guarantee(context.Background(), noise(a.Value), k, tg, s, 1)
	if err != nil || g.Eps > tg.Eps || g.Eps != a.Eps {
		t.Errorf("sigma %v: guarantee %v (%v), reported %v, target %v", a.Value, g.Eps, err, a.Eps, tg.Eps)
	}
	if f, _ := Guarantee(context.Background(), noise(a.Fail), k, tg, s, 1); !(f.Eps > tg.Eps) || a.Value-a.Fail > res*a.Value || a.Fail >= a.Value {
		t.Errorf("fail %v gives %v; answer %v", a.Fail, f.Eps, a.Value)
	}
	plain := func(x float64) bool {
		ap, _ := rdp.ToApprox(Compose(noise(x), tg.Steps).asRDP(), tg.Delta, tg.Conversion)
		return ap.Eps <= tg.Eps
	}
	lo, hi := 0.1, 100.0
	for hi-lo > 1e-9 {
		if mid := (lo + hi) / 2; plain(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	if !(a.Value < lo) {
		t.Errorf("amplified sigma %v is not below the unamplified %v", a.Value, hi)
	}
	t.Logf("sigma: amplified %v (eps %v at order %v), without amplification %v, %d evaluations", a.Value, a.Eps, a.Order, hi, a.Evals)

	loose := Problem{Target: Target{Eps: 1, Delta: 1e-5, Steps: 1}, Solve: SolveNoise, Kernel: Kernel{D: 1, K: 1, C: 0.45}, Noise: noise, Settings: s}
	if a, err := Calibrate(context.Background(), loose); err != nil || !a.Any || a.Value != 0 || math.IsNaN(a.Eps) {
		t.Errorf("loose target: %+v, %v; want Any with value 0", a, err)
	}
	bad := Problem{Target: Target{Eps: 1e-6, Delta: 1e-5, Steps: 1}, Solve: SolveC, Kernel: Kernel{D: 1, K: 1}, Curve: infCurve(), Settings: s}
	if _, err := Calibrate(context.Background(), bad); err == nil {
		t.Error("a target below the conversion's floor: no error")
	}
}
