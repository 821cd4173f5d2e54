package accountant

import (
	"context"
	"math"
	"strings"
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
	noise, err := NoiseCurve("gaussian", calOrders)
	if err != nil {
		t.Fatal(err)
	}
	s := &bernamp.Settings{}
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

// checkAnswer recomputes the guarantee at the answer and at the reported
// failing neighbour with a fresh Guarantee (one worker, so the check does
// not share the search's parallel path): the answer must meet the target
// with the eps reported, the neighbour must miss it, and they must be on
// the sides the unknown's monotonicity says (larger c and noise are more
// private, larger k less).
func checkAnswer(t *testing.T, name string, p Problem, a Answer) {
	t.Helper()
	ctx := context.Background()
	at := func(v float64) (Curve, Kernel) {
		k, c := p.Kernel, p.Curve
		switch p.Solve {
		case SolveC:
			k.C = v
		case SolveK:
			k.K = int(v)
		case SolveNoise:
			c = p.Noise(v)
		}
		return c, k
	}
	c, k := at(a.Value)
	g, err := Guarantee(ctx, c, k, p.Target, p.Settings, 1)
	if err != nil || g.Eps > p.Target.Eps || g.Eps != a.Eps || g.Order != a.Order {
		t.Errorf("%s: answer %v: recomputed eps %v at order %v (%v), reported %v at %v, target %v", name, a.Value, g.Eps, g.Order, err, a.Eps, a.Order, p.Target.Eps)
	}
	if math.IsNaN(a.Fail) {
		return
	}
	c, k = at(a.Fail)
	f, err := Guarantee(ctx, c, k, p.Target, p.Settings, 1)
	if err != nil || !(f.Eps > p.Target.Eps) || f.Eps != a.FailEps {
		t.Errorf("%s: neighbour %v: recomputed eps %v (%v), reported %v: want it to miss %v", name, a.Fail, f.Eps, err, a.FailEps, p.Target.Eps)
	}
	if wrongSide := (p.Solve == SolveK) != (a.Fail > a.Value); wrongSide {
		t.Errorf("%s: neighbour %v on the wrong side of the answer %v", name, a.Fail, a.Value)
	}
}

// TestCalibrateLaplace solves for the Laplace scale b through the kernel
// B_k on [c, 1-c]^d: the answer meets the target when recomputed, the
// neighbour misses it within the resolution, and the answer is below the b
// the Laplace mechanism needs alone (found by bisection on the conversion
// of its own curve).
func TestCalibrateLaplace(t *testing.T) {
	t.Parallel()
	const res = 1e-3
	noise, err := NoiseCurve("laplace", calOrders)
	if err != nil {
		t.Fatal(err)
	}
	s := &bernamp.Settings{}
	for _, tc := range []struct {
		name string
		k    Kernel
		tg   Target
	}{
		{"b d=1 k=1 c=0.3 T=10", Kernel{D: 1, K: 1, C: 0.3}, Target{Eps: 2, Delta: 1e-5, Steps: 10, Conversion: rdp.Balle2020}},
		{"b d=1 k=1 c=0.2 T=10 dp_accounting", Kernel{D: 1, K: 1, C: 0.2}, Target{Eps: 2, Delta: 1e-6, Steps: 10, Conversion: rdp.DPAccounting}},
	} {
		p := Problem{Target: tc.tg, Solve: SolveNoise, Kernel: tc.k, Noise: noise, Resolution: res, Settings: s, Workers: 2}
		a, err := Calibrate(context.Background(), p)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if a.Any || math.IsNaN(a.Fail) || a.Value-a.Fail > res*a.Value {
			t.Errorf("%s: %+v: want a bracket within %v", tc.name, a, res)
		}
		checkAnswer(t, tc.name, p, a)
		plain := func(x float64) bool {
			ap, err := rdp.ToApprox(Compose(noise(x), tc.tg.Steps).asRDP(), tc.tg.Delta, tc.tg.Conversion)
			return err == nil && ap.Eps <= tc.tg.Eps
		}
		lo, hi := 1e-3, 1e3
		for hi-lo > 1e-9*hi {
			if mid := math.Sqrt(lo * hi); plain(mid) {
				hi = mid
			} else {
				lo = mid
			}
		}
		// The amplified curve is at most the mechanism's at every order, so
		// every b the mechanism alone meets is met: the failing neighbour
		// must be below the unamplified threshold.
		if !(a.Fail < lo) {
			t.Errorf("%s: b = %v misses the target, but the unamplified %v meets it", tc.name, a.Fail, hi)
		}
		if !(a.Value < lo) {
			t.Errorf("%s: amplified b %v is not below the unamplified %v", tc.name, a.Value, hi)
		}
		t.Logf("%s: amplified %v (eps %v at order %v), without amplification %v, %d evaluations", tc.name, a.Value, a.Eps, a.Order, hi, a.Evals)
	}
}

// TestCalibrateReadCurve calibrates c and k on a curve as given to
// calibrate --in: the Gaussian with sigma = 2 written by hand (eps =
// alpha/(2 sigma^2) = alpha/8, Mironov 2017, Proposition 7) with no
// guarantee at the largest order, read as CSV and as the same curve in
// accountant JSON (Python's Infinity). Both readings must give the same
// answers, each meeting the target when recomputed and its neighbour
// missing it; the inf order must not make the amplified curve infinite.
func TestCalibrateReadCurve(t *testing.T) {
	t.Parallel()
	const (
		csvIn  = "alpha,eps\n2,0.25\n4,0.5\n8,1\n16,2\n32,inf\n"
		jsonIn = `{"orders": [2, 4, 8, 16, 32], "rdp": [0.25, 0.5, 1.0, 2.0, Infinity]}`
	)
	s := &bernamp.Settings{}
	tg := Target{Eps: 2, Delta: 1e-5, Steps: 4, Conversion: rdp.Balle2020}
	for _, tc := range []struct {
		name  string
		solve Unknown
		k     Kernel
	}{
		{"c", SolveC, Kernel{D: 1, K: 1}},
		{"k", SolveK, Kernel{D: 1, C: 0.45}},
	} {
		var answers []Answer
		for _, in := range []string{csvIn, jsonIn} {
			c, w, err := Read(strings.NewReader(in))
			if err != nil || len(w) > 0 || !math.IsInf(c.Eps[4], 1) {
				t.Fatalf("Read(%q) = %v, %q, %v", in, c, w, err)
			}
			p := Problem{Target: tg, Solve: tc.solve, Kernel: tc.k, Curve: c, Resolution: 1e-3, Settings: s, Workers: 2}
			a, err := Calibrate(context.Background(), p)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if a.Any || math.IsNaN(a.Fail) || math.IsInf(a.Eps, 0) {
				t.Errorf("%s: %+v: want an answer and a failing neighbour", tc.name, a)
			}
			checkAnswer(t, tc.name, p, a)
			answers = append(answers, a)
		}
		if answers[0] != answers[1] {
			t.Errorf("%s: CSV gives %+v, JSON %+v", tc.name, answers[0], answers[1])
		}
		t.Logf("%s: %+v", tc.name, answers[0])
	}
}

// TestCalibrateMaxK checks the cap of the k search: with no cap the
// answer k* meets the target and k*+1 misses it; a cap at or above k*
// (including one that is not a power of two, where the doubling stops at
// the cap) gives k* again; a cap below k* gives the cap itself with no
// failing neighbour (none was tried), which still meets the target; and a
// target the mechanism meets alone gives Any with Value = MaxK.
func TestCalibrateMaxK(t *testing.T) {
	t.Parallel()
	s := &bernamp.Settings{}
	tg := Target{Eps: 1, Delta: 1e-5, Steps: 1, Conversion: rdp.Balle2020}
	// The sampling alone (eps = inf at every order): the amplified curve is
	// d k r_alpha(c), the answer of TestCalibrateSamplingAlone's
	// calibrate.csv rows scaled to this target; found here uncapped.
	base := Problem{Target: tg, Solve: SolveK, Kernel: Kernel{D: 1, C: 0.45}, Curve: infCurve(), Settings: s, Workers: 2}
	a, err := Calibrate(context.Background(), base)
	if err != nil {
		t.Fatal(err)
	}
	kStar := int(a.Value)
	if kStar < 3 || a.Fail != a.Value+1 {
		t.Fatalf("uncapped: %+v; want k* >= 3 and the neighbour k*+1", a)
	}
	checkAnswer(t, "uncapped", base, a)
	for _, tc := range []struct {
		maxK     int
		want     int
		failNaN  bool
		describe string
	}{
		{kStar, kStar, true, "cap at k*: k*+1 is never tried"},
		{kStar + 1, kStar, false, "cap at k*+1"},
		{2*kStar + 1, kStar, false, "cap above k*, not a power of two"},
		{kStar - 1, kStar - 1, true, "cap below k*"},
		{1, 1, true, "cap 1"},
	} {
		p := base
		p.MaxK = tc.maxK
		a, err := Calibrate(context.Background(), p)
		if err != nil {
			t.Errorf("%s: %v", tc.describe, err)
			continue
		}
		if int(a.Value) != tc.want || a.Value != math.Trunc(a.Value) || math.IsNaN(a.Fail) != tc.failNaN || a.Any || a.Value > float64(tc.maxK) {
			t.Errorf("%s (MaxK %d): %+v; want k = %d, fail NaN %v", tc.describe, tc.maxK, a, tc.want, tc.failNaN)
		}
		checkAnswer(t, tc.describe, p, a)
	}
	// Met by the mechanism alone: Any, with Value the cap.
	loose := base
	loose.Curve = Curve{Orders: calOrders, Eps: []float64{0.01, 0.01, 0.01, 0.01, 0.01, 0.01}}
	loose.MaxK = 37
	if a, err := Calibrate(context.Background(), loose); err != nil || !a.Any || a.Value != 37 || a.Evals != 0 {
		t.Errorf("loose target: %+v, %v; want Any with k = MaxK = 37 and no curve computed", a, err)
	}
}
