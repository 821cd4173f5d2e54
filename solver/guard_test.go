package solver

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/bernamp/bernamp/corner"
)

// TestSearchSizeWork: the closed form of SearchSize's work is the sum over
// every configuration of its outputs, prod_t (k n_t + 1), over 24.
func TestSearchSizeWork(t *testing.T) {
	t.Parallel()
	for _, d := range []int{1, 2, 5, 9} {
		for _, k := range []int{1, 2, 7} {
			sum := 0.0
			for _, cf := range corner.Configs(d) {
				sum += float64(cf.Outputs(k))
			}
			work, bytes := SearchSize(d, k, 1)
			if want := sum / 24; math.Abs(work-want) > 1e-12*want {
				t.Errorf("SearchSize(%d, %d) work %v, want %v", d, k, work, want)
			}
			if want := SearchBytesPerConfig * float64(len(corner.Configs(d))); !(bytes > want) {
				t.Errorf("SearchSize(%d, %d) bytes %v, want above %v", d, k, bytes, want)
			}
		}
	}
	if err := SearchFits(1000, 1, 2, DefaultMaxMemory); !errors.Is(err, ErrTooLarge) {
		t.Errorf("SearchFits(1000, 1) = %v, want ErrTooLarge", err)
	}
	if err := SearchFits(15, 1, 2, DefaultMaxMemory); err != nil {
		t.Errorf("SearchFits(15, 1) = %v, want nil (the paper's grids)", err)
	}
}

// TestOneNearOne: near alpha = 1 One runs no branch and bound (it used to
// fill its box limit, gigabytes) and returns the closed forms, Status
// Bounds, with the Theorem 4 pair as witness.
func TestOneNearOne(t *testing.T) {
	t.Parallel()
	for _, alpha := range []float64{1 + 1e-12, 1.0000001} {
		r, err := One(context.Background(), 1, 0.1, alpha, 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.Stats.Boxes != 0 || r.Status != Bounds || r.Method != MethodClosedForm || r.Upper != 1 {
			t.Errorf("alpha %v: boxes %d status %v method %s upper %v", alpha, r.Stats.Boxes, r.Status, r.Method, r.Upper)
		}
		if !(r.DivPQ <= 1) || r.Lower > r.Upper {
			t.Errorf("alpha %v: div_pq %v lower %v upper %v", alpha, r.DivPQ, r.Lower, r.Upper)
		}
	}
	if NearOne(1.01, DefaultTol) || !NearOne(1.00001, DefaultTol) {
		t.Error("NearOne: want the threshold alpha - 1 = 1e-13/tol = 1e-4")
	}
}
