package pld

import (
	"context"
	"math"
	"testing"

	"github.com/bernamp/bernamp/internal/testref"
)

// refRow is a row of testdata/ref/compose_ref.csv: values computed with
// mpmath and Google's dp_accounting 0.6.0, independently of this package
// (testdata/ref/README_compose_ref.md).
type refRow struct {
	kind          string
	param, c      float64
	n, steps      int
	delta, h, eps float64
}

func refRows(t *testing.T) []refRow {
	t.Helper()
	var rows []refRow
	for _, r := range testref.Rows(t, "../testdata/ref/compose_ref.csv", 200) {
		row := refRow{kind: r[0], param: testref.Float(t, r[1]), steps: int(testref.Float(t, r[4])),
			delta: testref.Float(t, r[5]), eps: testref.Float(t, r[7])}
		if r[2] != "" {
			row.c, row.n = testref.Float(t, r[2]), int(testref.Float(t, r[3]))
		}
		row.h = 1e-4 // gaussian_pld rows leave h empty: they are at 1e-4 (the README)
		if r[6] != "" {
			row.h = testref.Float(t, r[6])
		}
		rows = append(rows, row)
	}
	return rows
}

func refProfile(t *testing.T, r refRow) Profile {
	t.Helper()
	var p Profile
	var err error
	switch r.kind {
	case "exact_root_laplace":
		p, err = Laplace(1, r.param)
	case "exact_root_rr":
		p, err = RandomizedResponse(r.param)
	default:
		p, err = Gaussian(1, r.param)
	}
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestExactRoot: at one step, eps_upper is the root of the amplified
// profile, within 1e-9 relative above mpmath's root of the formula (the
// issue asks 1e-6), and eps_lower (the attaining mechanism) within 1e-9
// relative below it.
func TestExactRoot(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	count := 0
	for _, r := range refRows(t) {
		if r.kind != "exact_root" && r.kind != "exact_root_laplace" && r.kind != "exact_root_rr" {
			continue
		}
		count++
		a, err := NewAccount(ctx, []Step{{Mechanism: refProfile(t, r), N: r.n, C: r.c, Steps: 1}}, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		up := a.EpsUpper(r.delta)
		lo, err := a.EpsLower(ctx, r.delta)
		if err != nil {
			t.Fatal(err)
		}
		if !(up >= r.eps*(1-1e-12)) || up > r.eps*(1+1e-9)+1e-15 {
			t.Errorf("%+v: eps_upper %v, root %v (rel %.2g)", r, up, r.eps, (up-r.eps)/r.eps)
		}
		if !(lo <= r.eps*(1+1e-12)+1e-15) || lo < r.eps*(1-1e-9) {
			t.Errorf("%+v: eps_lower %v, root %v (rel %.2g)", r, lo, r.eps, (lo-r.eps)/r.eps)
		}
	}
	if count < 50 {
		t.Errorf("%d exact_root rows", count)
	}
}

// TestGaussianPLDMatchesDPAccounting: bernamp's pessimistic PLD of the
// Gaussian, composed T times, gives dp_accounting's eps (from_gaussian_mechanism,
// connect-the-dots, self_compose) to 1e-6 relative at the same
// discretization.
func TestGaussianPLDMatchesDPAccounting(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	count := 0
	for _, r := range refRows(t) {
		if r.kind != "gaussian_pld" {
			continue
		}
		count++
		g, _ := Gaussian(1, r.param)
		opt := DefaultOptions()
		opt.H = r.h
		a, err := NewAccount(ctx, []Step{{Mechanism: g, Steps: r.steps}}, opt)
		if err != nil {
			t.Fatal(err)
		}
		// The PLD route, also at T = 1 (NewAccount answers one step from
		// the profile itself).
		fwd, _ := a.PLDs()
		got := fwd.Eps(r.delta)
		if math.Abs(got-r.eps) > 1e-6*r.eps {
			t.Errorf("sigma %v T %d: eps %v, dp_accounting %v (rel %.2g)", r.param, r.steps, got, r.eps, (got-r.eps)/r.eps)
		}
	}
	if count != 12 {
		t.Errorf("%d gaussian_pld rows, want 12", count)
	}
}

// TestExactPLDMatchesDPAccounting: the composed exact amplified profile
// (eps_upper) agrees with dp_accounting's composition of the same profile
// (the target: 0.5%; measured 7.9e-9 for T > 1, held to 1e-7).
func TestExactPLDMatchesDPAccounting(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("composes 144 profiles up to T = 1000 (about a minute); -short skips it")
	}
	ctx := context.Background()
	var worst, worstComposed float64 // all points; T > 1 only
	for _, r := range refRows(t) {
		if r.kind != "exact_pld" {
			continue
		}
		g, _ := Gaussian(1, r.param)
		opt := DefaultOptions()
		opt.H = r.h
		a, err := NewAccount(ctx, []Step{{Mechanism: g, N: r.n, C: r.c, Steps: r.steps}}, opt)
		if err != nil {
			t.Fatal(err)
		}
		got := a.EpsUpper(r.delta)
		rel := (got - r.eps) / r.eps
		worst = math.Max(worst, math.Abs(rel))
		if r.steps > 1 {
			worstComposed = math.Max(worstComposed, math.Abs(rel))
		}
		// The target is 0.5%; composed (T > 1) the two agree to
		// 7.9e-9, held to 1e-7. At T = 1 bernamp's root of the profile is
		// at or below dp_accounting's discretized PLD, by at most the grid.
		switch {
		case r.steps > 1 && math.Abs(rel) > 1e-7:
			t.Errorf("%+v: eps_upper %v, dp_accounting %v (rel %.2g)", r, got, r.eps, rel)
		case r.steps == 1 && (got > r.eps*(1+1e-12) || got < r.eps-r.h):
			t.Errorf("%+v: eps_upper %v at one step, dp_accounting %v: want at or below it, within the grid %v", r, got, r.eps, r.h)
		}
	}
	// At T = 1 bernamp answers from the profile itself, dp_accounting from
	// its discretized PLD: the difference there is dp_accounting's.
	t.Logf("largest relative difference from dp_accounting: %.3g (T > 1: %.3g)", worst, worstComposed)
}
