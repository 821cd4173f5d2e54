package baseline

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/floats/scalar"

	"github.com/bernamp/bernamp/corner"
	"github.com/bernamp/bernamp/internal/testref"
	"github.com/bernamp/bernamp/solver"
)

// The transposed Kronecker product agrees with the dense product K' h,
// with K built column by column from corner.Full's LogColumn.
func TestApplyT(t *testing.T) {
	t.Parallel()
	const tol = 1e-13
	rnd := rand.New(rand.NewPCG(1, 1))
	for _, dk := range [][2]int{{1, 1}, {1, 5}, {2, 1}, {2, 3}, {3, 2}, {5, 1}, {4, 4}} {
		d, k := dk[0], dk[1]
		p := newProgram(d, k, 0.15, 3, 1)
		ch := corner.Full(d, k, 0.15)
		h := make([]float64, p.outs)
		for m := range h {
			h[m] = rnd.Float64()
		}
		got := make([]float64, p.n)
		p.applyT(got, h)
		col := make([]float64, p.outs)
		for z := range p.n {
			ch.LogColumn(col, z)
			var want float64
			for m, l := range col {
				want += math.Exp(l) * h[m]
			}
			if !scalar.EqualWithinRel(got[z], want, tol) {
				t.Errorf("d %d, k %d, corner %d: K'h = %v, dense %v", d, k, z, got[z], want)
			}
		}
	}
}

// The analytic gradient of the augmented Lagrangian agrees with central
// finite differences, with both constraints active.
func TestGradient(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(2, 2))
	for _, pt := range []struct {
		d, k          int
		c, alpha, eps float64
	}{
		{1, 1, 0.1, 5, 0.05}, {2, 2, 0.2, 3, 0.1}, {3, 1, 0.1, 50, 0.2}, {2, 3, 0.3, 1.5, 0.01},
	} {
		p := newProgram(pt.d, pt.k, pt.c, pt.alpha, pt.eps)
		p.rho, p.lam = 7, [2]float64{0.3, 1.1}
		z := make([]float64, 2*p.n)
		for i := range z {
			z[i] = 2 * rnd.NormFloat64()
		}
		g := make([]float64, len(z))
		p.eval(z, g)
		if !(p.cg1[0] > 0 && p.cg1[1] > 0) {
			t.Fatalf("%+v: constraints %v not both active: the test would not cover them", pt, p.cg1)
		}
		want := fd.Gradient(nil, func(z []float64) float64 { return p.eval(z, nil) }, z, &fd.Settings{Formula: fd.Central, Step: 1e-6})
		for i := range g {
			if !scalar.EqualWithinAbsOrRel(g[i], want[i], 1e-6, 1e-5) {
				t.Errorf("%+v: gradient[%d] = %v, finite differences %v", pt, i, g[i], want[i])
			}
		}
	}
}

// renyiPow is R_alpha(x||y) by the textbook formula with math.Pow, for the
// feasibility check (independent of the log-space code).
func renyiPow(alpha float64, x, y []float64) float64 {
	var s float64
	for i := range x {
		s += math.Pow(x[i], alpha) * math.Pow(y[i], 1-alpha)
	}
	return math.Log(s) / (alpha - 1)
}

// On d = 1 the baseline never exceeds the certified upper bound of
// solver.One nor the independent reference maximum, ends feasible, and
// reaches the maximum on these points (from testdata/ref/post_d1.csv, every
// 17th row: all k, c, alpha and several eps).
func TestD1(t *testing.T) {
	t.Parallel()
	rows, _ := testref.Floats(t, "../testdata/ref/post_d1.csv", 5, 200)
	for i := 0; i < len(rows); i += 17 {
		r := rows[i]
		k, c, alpha, eps, post := int(r[0]), r[1], r[2], r[3], r[4]
		res, err := Solve(context.Background(), 1, k, c, alpha, eps, &Settings{Starts: 8})
		if err != nil {
			t.Fatal(err)
		}
		one, err := solver.One(context.Background(), k, c, alpha, eps, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Feasible {
			t.Errorf("k %d c %v alpha %v eps %v: no feasible start", k, c, alpha, eps)
			continue
		}
		const slack = 1e-12 // rounding of the float64 evaluation, relative
		if res.Value > one.Upper*(1+slack) || res.Value > post*(1+slack) {
			t.Errorf("k %d c %v alpha %v eps %v: baseline %v above One's upper bound %v or the reference %v", k, c, alpha, eps, res.Value, one.Upper, post)
		}
		if !res.Reached(post) {
			t.Errorf("k %d c %v alpha %v eps %v: baseline %v, reference %v: not reached", k, c, alpha, eps, res.Value, post)
		}
	}
}

// A result reported feasible is feasible by the textbook formula, within
// FeasTol, and every start of every point is accounted for.
func TestFeasibleIsFeasible(t *testing.T) {
	t.Parallel()
	for _, pt := range []struct {
		d, k          int
		c, alpha, eps float64
	}{
		{1, 2, 0.1, 5, 1}, {2, 1, 0.2, 4, 0.3}, {2, 2, 0.3, 2, 2}, {3, 1, 0.1, 10, 0.5},
	} {
		res, err := Solve(context.Background(), pt.d, pt.k, pt.c, pt.alpha, pt.eps, &Settings{Starts: 4})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Values) != 4 {
			t.Errorf("%+v: %d values, want 4", pt, len(res.Values))
		}
		if !res.Feasible {
			t.Errorf("%+v: no feasible start", pt)
			continue
		}
		lim := pt.eps * (1 + FeasTol) * (1 + 1e-12) // plus the rounding of renyiPow
		if a, b := renyiPow(pt.alpha, res.P, res.Q), renyiPow(pt.alpha, res.Q, res.P); a > lim || b > lim {
			t.Errorf("%+v: reported feasible, but R(P||Q) = %v, R(Q||P) = %v", pt, a, b)
		}
	}
}

// verify rejects pairs whose divergence exceeds eps by more than FeasTol,
// and accepts them just below.
func TestVerifyRejects(t *testing.T) {
	t.Parallel()
	const alpha = 5.0
	x, y := []float64{0.3, 0.7}, []float64{0.7, 0.3} // R(x||y) = R(y||x)
	r := renyiPow(alpha, x, y)
	for _, tc := range []struct {
		eps  float64
		want bool
	}{
		{r * (1 - 1e-6), false},
		{r / (1 + 2*FeasTol), false},
		{r / (1 + FeasTol/2), true},
		{r * 2, true},
	} {
		p := newProgram(1, 1, 0.1, alpha, tc.eps)
		if _, ok := p.verify(x, y); ok != tc.want {
			t.Errorf("R = %v, eps = %v: feasible %v, want %v", r, tc.eps, ok, tc.want)
		}
	}
}

// With eps = 0 only P = Q is feasible: the baseline reports either no
// feasible start or a pair with both divergences exactly 0.
func TestEpsZero(t *testing.T) {
	t.Parallel()
	res, err := Solve(context.Background(), 2, 1, 0.1, 5, 0, &Settings{Starts: 3})
	if err != nil {
		t.Fatal(err)
	}
	if res.Feasible && (res.DivPQ > 0 || res.DivQP > 0 || res.Value > 1e-15) {
		t.Errorf("eps = 0: feasible with R(P||Q) = %v, R(Q||P) = %v, value %v", res.DivPQ, res.DivQP, res.Value)
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name          string
		d, k          int
		c, alpha, eps float64
		s             *Settings
		tooLarge      bool
	}{
		{"d", 0, 1, 0.1, 5, 1, nil, false},
		{"c", 1, 1, 0.5, 5, 1, nil, false},
		{"alpha", 1, 1, 0.1, 1, 1, nil, false},
		{"eps", 1, 1, 0.1, 5, math.NaN(), nil, false},
		{"starts", 1, 1, 0.1, 5, 1, &Settings{Starts: -1}, false},
		{"size", 21, 1, 0.1, 5, 1, nil, true},
		{"size k", 5, 31, 0.1, 5, 1, nil, true},
	} {
		_, err := Solve(context.Background(), tc.d, tc.k, tc.c, tc.alpha, tc.eps, tc.s)
		if err == nil {
			t.Errorf("%s: no error", tc.name)
		} else if errors.Is(err, ErrTooLarge) != tc.tooLarge {
			t.Errorf("%s: %v, ErrTooLarge %v", tc.name, err, tc.tooLarge)
		}
	}
}

// A cancelled context runs no start.
func TestCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Solve(ctx, 2, 1, 0.1, 5, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Feasible || len(res.Values) != 0 {
		t.Errorf("cancelled: %d starts run", len(res.Values))
	}
}
