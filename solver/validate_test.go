package solver

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/bernamp/bernamp/bounds"
	"github.com/bernamp/bernamp/check"
)

// TestEntryPointsReject: One and Maximize return an error wrapping
// ErrInput for NaN, ±Inf, the edges of each domain and d k past 2^53 (which
// used to reach bounds.Lower near alpha = 1 and panic there); MaximizeAt
// panics on the zero ValidPoint.
func TestEntryPointsReject(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	nan, inf := math.NaN(), math.Inf(1)
	type pt struct {
		d, k          int
		c, alpha, eps float64
	}
	for _, p := range []pt{
		{0, 1, 0.1, 5, 1}, {1, 0, 0.1, 5, 1},
		{1, 1, 0, 5, 1}, {1, 1, 0.5, 5, 1}, {1, 1, nan, 5, 1}, {1, 1, inf, 5, 1},
		{1, 1, 0.1, 1, 1}, {1, 1, 0.1, nan, 1}, {1, 1, 0.1, inf, 1},
		{1, 1, 0.1, 5, -1}, {1, 1, 0.1, 5, nan}, {1, 1, 0.1, 5, inf},
		{1 << 27, 1 << 27, 0.1, 1 + 1e-12, 1},
	} {
		if _, _, err := Maximize(ctx, p.d, p.k, p.c, p.alpha, p.eps, 1, nil); !errors.Is(err, ErrInput) {
			t.Errorf("Maximize%v: %v, want ErrInput", p, err)
		}
		if p.d == 1 {
			if _, err := One(ctx, p.k, p.c, p.alpha, p.eps, nil); !errors.Is(err, ErrInput) {
				t.Errorf("One%v: %v, want ErrInput", p, err)
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("MaximizeAt(zero ValidPoint): no panic")
		}
	}()
	MaximizeAt(ctx, check.ValidPoint{}, 1, nil)
}

// TestValidatedOnce: Maximize and One build one ValidPoint and check
// nothing else on the way down (Maximize used to check the point again in
// One, and every bounds call checked it again); MaximizeAt checks nothing.
// Not parallel: the counts are global.
func TestValidatedOnce(t *testing.T) {
	ctx := context.Background()
	pt, err := check.NewValidPoint(2, 2, 0.1, 5, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		points int64
		f      func() error
	}{
		{"Maximize d 1", 1, func() error { _, _, err := Maximize(ctx, 1, 3, 0.1, 5, 1, 1, nil); return err }},
		{"Maximize d 2", 1, func() error { _, _, err := Maximize(ctx, 2, 2, 0.1, 5, 1, 1, nil); return err }},
		{"Maximize near 1", 1, func() error { _, _, err := Maximize(ctx, 2, 2, 0.1, 1+1e-12, 1, 1, nil); return err }},
		{"One", 1, func() error { _, err := One(ctx, 3, 0.1, 5, 1, nil); return err }},
		{"One near 1", 1, func() error { _, err := One(ctx, 3, 0.1, 1+1e-12, 1, nil); return err }},
		{"MaximizeAt", 0, func() error { _, _, err := MaximizeAt(ctx, pt, 1, nil); return err }},
		{"MaximizeRanges", 1, func() error {
			_, _, err := MaximizeRanges(ctx, []bounds.Range{{Lo: 0.1, Hi: 0.9}, {Lo: 0.2, Hi: 0.6}}, 2, 5, 1, 1, nil)
			return err
		}},
	} {
		check.ResetCounts()
		if err := tc.f(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if p, c := check.Counts.Points.Load(), check.Counts.Checks.Load(); p != tc.points || c != 0 {
			t.Errorf("%s: %d points built and %d checks, want %d and 0", tc.name, p, c, tc.points)
		}
	}
}
