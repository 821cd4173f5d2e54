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

// TestNewValidPoint: NewValidPoint returns the error of Point, then of N,
// with the same message, and otherwise a point whose accessors give the
// parameters back; only the zero ValidPoint is zero.
func TestNewValidPoint(t *testing.T) {
	t.Parallel()
	nan, inf := math.NaN(), math.Inf(1)
	for _, tc := range []struct {
		d, k          int
		c, alpha, eps float64
	}{
		{2, 3, 0.1, 5, 1},
		{1, 1, 1e-300, math.Nextafter(1, 2), 0},
		{1 << 26, 1 << 27, 0.49, 1e308, math.MaxFloat64}, // d k = 2^53
		{0, 1, 0.1, 5, 1},
		{1, -1, 0.1, 5, 1},
		{1, 1, 0.5, 5, 1},
		{1, 1, nan, 5, 1},
		{1, 1, 0.1, 1, 1},
		{1, 1, 0.1, inf, 1},
		{1, 1, 0.1, 5, -1e-300},
		{1, 1, 0.1, 5, nan},
		{1, 1, 0.1, 5, inf},
		{0, 0, nan, nan, nan},             // the first error is d's
		{1<<26 + 1, 1 << 27, 0.1, 5, 1},   // d k past 2^53
		{1 << 40, 1 << 40, 0.1, 5, 1},     // d k overflows int
		{1 << 40, 1 << 40, 0.1, 5, -1},    // eps comes before N
		{math.MaxInt, 2, 0.1, nan, 1},     // alpha comes before N
		{math.MaxInt, 1, 0.2, 1.5, 1e-10}, // N
	} {
		p, err := NewValidPoint(tc.d, tc.k, tc.c, tc.alpha, tc.eps)
		want := Point(tc.d, tc.k, tc.c, tc.alpha, tc.eps)
		if want == nil {
			want = N(tc.d, tc.k)
		}
		switch {
		case (err == nil) != (want == nil) || err != nil && err.Error() != want.Error():
			t.Errorf("NewValidPoint%v: error %v, want %v", tc, err, want)
		case err != nil && !p.IsZero():
			t.Errorf("NewValidPoint%v: error %v with the point %+v", tc, err, p)
		case err == nil && (p.IsZero() || p.D() != tc.d || p.K() != tc.k || p.N() != tc.d*tc.k ||
			p.C() != tc.c || p.Alpha() != tc.alpha || p.Eps() != tc.eps):
			t.Errorf("NewValidPoint%v = %+v", tc, p)
		}
	}
	if !(ValidPoint{}).IsZero() {
		t.Error("the zero ValidPoint is not zero")
	}
}
