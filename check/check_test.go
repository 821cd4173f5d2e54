package check

import (
	"math"
	"testing"
)

func TestPoint(t *testing.T) {
	t.Parallel()
	nan, inf := math.NaN(), math.Inf(1)
	for _, tc := range []struct {
		desc          string
		d, k          int
		c, alpha, eps float64
		wantErr       bool
	}{
		{"ordinary", 2, 3, 0.1, 5, 1, false},
		{"eps zero", 1, 1, 0.1, 5, 0, false},
		{"c tiny", 1, 1, 1e-300, 5, 1, false},
		{"alpha just above 1", 1, 1, 0.1, math.Nextafter(1, 2), 1, false},
		{"d zero", 0, 1, 0.1, 5, 1, true},
		{"k negative", 1, -1, 0.1, 5, 1, true},
		{"c zero", 1, 1, 0, 5, 1, true},
		{"c half", 1, 1, 0.5, 5, 1, true},
		{"c NaN", 1, 1, nan, 5, 1, true},
		{"alpha one", 1, 1, 0.1, 1, 1, true},
		{"alpha Inf", 1, 1, 0.1, inf, 1, true},
		{"alpha NaN", 1, 1, 0.1, nan, 1, true},
		{"eps negative", 1, 1, 0.1, 5, -1e-300, true},
		{"eps Inf", 1, 1, 0.1, 5, inf, true},
		{"eps NaN", 1, 1, 0.1, 5, nan, true},
	} {
		err := Point(tc.d, tc.k, tc.c, tc.alpha, tc.eps)
		if (err != nil) != tc.wantErr {
			t.Errorf("%s: Point(%d, %d, %v, %v, %v) = %v, want error %t", tc.desc, tc.d, tc.k, tc.c, tc.alpha, tc.eps, err, tc.wantErr)
		}
	}
}

func TestN(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		d, k    int
		wantErr bool
	}{
		{1, 1, false},
		{1 << 26, 1 << 27, false}, // 2^53
		{1<<26 + 1, 1 << 27, true},
		{1 << 40, 1 << 40, true}, // overflows int
		{math.MaxInt, 1, true},
	} {
		if err := N(tc.d, tc.k); (err != nil) != tc.wantErr {
			t.Errorf("N(%d, %d) = %v, want error %t", tc.d, tc.k, err, tc.wantErr)
		}
	}
}
