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
