package puredp

import (
	"strings"
	"testing"

	"github.com/bernamp/bernamp/bounds"
)

// TestSolveCrossCheck: the points of bernamp pure pass the cross-check, the
// LP agrees with the closed form, and each broken side is caught.
func TestSolveCrossCheck(t *testing.T) {
	for _, tc := range []struct {
		d, k   int
		c, eps float64
		ranges []bounds.Range
		lp     bool
	}{{1, 1, 0.1, 2, nil, true}, {4, 2, 0.3, 0.5, nil, true}, {3, 1, 0.01, 50, nil, false},
		{0, 2, 0, 1, []bounds.Range{{Lo: 0.1, Hi: 0.9}, {Lo: 0.2, Hi: 0.6}}, false}} {
		p, err := Solve(tc.d, tc.k, tc.c, tc.ranges, tc.eps, tc.lp)
		if err != nil {
			t.Fatal(err)
		}
		if msg := p.CrossCheck(); msg != "" {
			t.Errorf("%+v: %s", tc, msg)
		}
		if (p.LP != nil) != tc.lp || (p.UltraMixing != nil) != (tc.ranges == nil) || (tc.ranges != nil && p.D != 2) {
			t.Errorf("%+v: lp %v ultra_mixing %v d %d", tc, p.LP, p.UltraMixing, p.D)
		}
		for name, broken := range map[string]func(q *Point){
			"outside [":    func(q *Point) { q.Level.Lower = q.Level.Eps * 1.001 },
			"the LP gives": func(q *Point) { v := q.Level.Upper * (1 + 1e-6); q.LP = &v },
			"min(eps, asympt": func(q *Point) {
				q.Asymptote = q.Level.Lower / 2
				q.Level.Eps, q.Level.Upper = q.Level.Lower, q.Level.Lower
			},
			"ultra_mixing": func(q *Point) { v := q.Level.Lower / 2; q.UltraMixing = &v },
		} {
			q := p
			broken(&q)
			if msg := q.CrossCheck(); !strings.Contains(msg, name) {
				t.Errorf("%+v, %s broken: cross-check says %q", tc, name, msg)
			}
		}
	}
	if _, err := Solve(1, 1, 0, []bounds.Range{{Lo: 0.1, Hi: 0.9}}, 1, true); err == nil {
		t.Error("lp with ranges: no error")
	}
}
