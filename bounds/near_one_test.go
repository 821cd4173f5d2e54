package bounds

import (
	"math"
	"testing"

	"github.com/bernamp/bernamp/internal/testref"
)

// TestNearOne: at orders alpha = 1 + 1e-12 to 1.01 the closed forms agree
// with 80-digit references (testdata/ref/near_one.csv, gen_near_one.py)
// within 1e-12 relative, and at alpha = 1 + 1e-12 LB and UB are within
// 1e-10 relative of their Kullback-Leibler limits (lb_kl, ub_kl).
func TestNearOne(t *testing.T) {
	t.Parallel()
	vals, _ := testref.Floats(t, "../testdata/ref/near_one.csv", 11, 48)
	rel := func(got, want float64) float64 {
		if got == want {
			return 0
		}
		return math.Abs(got-want) / math.Abs(want)
	}
	for _, v := range vals {
		d, k, c, alpha, eps := int(v[0]), int(v[1]), v[2], v[3], v[4]
		rc, p, lb, ub, lbKL, ubKL := v[5], v[6], v[7], v[8], v[9], v[10]
		u := UpperBound(d, k, c, alpha, eps)
		for _, x := range []struct {
			name      string
			got, want float64
		}{
			{"Renyi(alpha, c)", Renyi(alpha, c), rc},
			{"P", P(alpha, eps), p},
			{"Lower", Lower(d, k, c, alpha, eps), lb},
			{"UpperBound", u.Value(), ub},
		} {
			if e := rel(x.got, x.want); !(e <= 1e-12) {
				t.Errorf("%s at d=%d k=%d c=%v alpha=%v eps=%v: %.17g, want %.17g (rel %.2g)", x.name, d, k, c, alpha, eps, x.got, x.want, e)
			}
		}
		if alpha-1 > 2e-12 {
			continue
		}
		if e := rel(Lower(d, k, c, alpha, eps), lbKL); !(e <= 1e-10) {
			t.Errorf("Lower at alpha=%v d=%d k=%d c=%v eps=%v is %.2g relative from its KL limit %.17g", alpha, d, k, c, eps, e, lbKL)
		}
		if e := rel(u.Value(), ubKL); !(e <= 1e-10) {
			t.Errorf("UpperBound at alpha=%v d=%d k=%d c=%v eps=%v is %.2g relative from its KL limit %.17g", alpha, d, k, c, eps, e, ubKL)
		}
	}
}
