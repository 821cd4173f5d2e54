package floatbits

import (
	"math"
	"testing"
)

func TestBisect(t *testing.T) {
	t.Parallel()
	for _, root := range []float64{1e-300, 1e-22, 0.1, 0.5, 1, 3e10} {
		a, b := Bisect(0, 1e300, func(x float64) bool { return x >= root })
		if b != root || a != math.Nextafter(root, 0) {
			t.Errorf("root %v: got (%v, %v)", root, a, b)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("no panic for lo >= hi")
		}
	}()
	Bisect(1, 1, func(float64) bool { return true })
}

func TestUp(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		x    float64
		n    int
		want float64
	}{
		{1, 2, 1 + 2*0x1p-52}, {1, 0, 1}, {0, 1, 5e-324}, {-1, 1, -1 + 0x1p-53}, {math.MaxFloat64, 1, math.Inf(1)},
	} {
		if got := Up(tc.x, tc.n); got != tc.want {
			t.Errorf("Up(%v, %d) = %v, want %v", tc.x, tc.n, got, tc.want)
		}
	}
}
