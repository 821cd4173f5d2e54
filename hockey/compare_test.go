package hockey

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/bernamp/bernamp/mixing"
)

// TestCompare: the rows of bernamp delta pass the cross-check; each is
// Delta at its eps' bit for bit; an item of Theorem 1 is present exactly
// where its eps' is at most eps' (the comparators of Balle et al., computed
// independently by mixing); and each broken side is caught.
func TestCompare(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, p := range []Params{{D: 1, K: 1, C: 0.1, Eps: 1, Delta: 1e-3}, {D: 2, K: 3, C: 0.3, Eps: 2, Delta: 1e-6}, {D: 3, K: 1, C: 0.01, Eps: 0.5, Delta: 0}} {
		epsOuts := []float64{0, p.Eps / 4, p.Eps / 2, p.Eps}
		rows, err := Compare(ctx, p, epsOuts)
		if err != nil {
			t.Fatal(err)
		}
		b, err := mixing.New(mixing.Kernel{D: p.D, K: p.K, C: p.C})
		if err != nil {
			t.Fatal(err)
		}
		present := 0
		for j, r := range rows {
			if msg := r.CrossCheck(); msg != "" {
				t.Errorf("%+v at %v: %s", p, epsOuts[j], msg)
			}
			q := p
			q.EpsOut = epsOuts[j]
			d, err := Delta(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if r.EpsOut != epsOuts[j] || r.Lower != d.Lower || r.Upper != d.Upper {
				t.Errorf("%+v at %v: row (%v, %v, %v), Delta (%v, %v)", p, epsOuts[j], r.EpsOut, r.Lower, r.Upper, d.Lower, d.Upper)
			}
			for i, it := range mixing.Items {
				e, dl := b.Theorem1(it, p.Eps, p.Delta)
				switch v := r.Theorem1[i]; {
				case (v != nil) != (e <= epsOuts[j]):
					t.Errorf("%+v at %v: %s present %v, its eps' %v", p, epsOuts[j], it, v != nil, e)
				case v != nil && *v != dl:
					t.Errorf("%+v at %v: %s %v, Theorem1 %v", p, epsOuts[j], it, *v, dl)
				case v != nil:
					present++
				}
			}
		}
		if present == 0 {
			t.Errorf("%+v: no comparator at any eps': the cross-check against them is not exercised", p)
		}
		r := rows[0] // eps' = 0: delta' > 0
		for name, broken := range map[string]func(c *Comparison){
			"delta_out_upper": func(c *Comparison) { c.Upper = c.Lower / 2 },
			"dobrushin=":      func(c *Comparison) { v := c.Lower / 2; c.Theorem1[0] = &v },
		} {
			res := *r.Result
			c := Comparison{Result: &res, Theorem1: r.Theorem1}
			if !(c.Lower > 0) {
				t.Fatalf("%+v: delta' at 0 is %v", p, c.Lower)
			}
			broken(&c)
			if msg := c.CrossCheck(); !strings.Contains(msg, name) {
				t.Errorf("%+v, %s broken: cross-check says %q", p, name, msg)
			}
		}
	}
	if _, err := Compare(ctx, Params{D: 1 << 12, K: 1 << 12, C: 0.1, Eps: 1}, []float64{0}); err == nil {
		t.Error("d k past mixing.MaxFlips: no error")
	}
}

// TestProfileGrid: the grid is i step for |i| <= ceil(max/step), its upper
// bounds are Profile's on the whole grid at once, the PLD's excess is the
// mass over 1, and the result does not depend on the workers.
func TestProfileGrid(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := Params{D: 2, K: 2, C: 0.2, Eps: 1, Delta: 1e-4}
	g1, err := ProfileGrid(ctx, p, 1e-3, 5.0005, 1)
	if err != nil {
		t.Fatal(err)
	}
	if g1.Hi != 5001 || g1.Lo != -5001 || len(g1.Epsilons) != 10003 || g1.Epsilons[0] != -5001*1e-3 {
		t.Fatalf("grid %d..%d, %d points, first %v", g1.Lo, g1.Hi, len(g1.Epsilons), g1.Epsilons[0])
	}
	whole, err := Profile(ctx, p, g1.Epsilons)
	if err != nil {
		t.Fatal(err)
	}
	env := Envelope(g1.Epsilons, whole.Upper)
	for i := range env {
		if g1.Deltas[i] != env[i] {
			t.Fatalf("delta at %v: %v, Envelope of Profile %v", g1.Epsilons[i], g1.Deltas[i], env[i])
		}
	}
	sum := g1.InfinityMass
	for _, q := range g1.Probs {
		sum += q
	}
	if math.Abs(g1.Excess-(sum-1)) > 1e-12 || g1.Method != whole.Method {
		t.Errorf("excess %v, mass %v; method %s, Profile's %s", g1.Excess, sum, g1.Method, whole.Method)
	}
	g3, err := ProfileGrid(ctx, p, 1e-3, 5.0005, 3)
	if err != nil {
		t.Fatal(err)
	}
	for i := range g1.Deltas {
		if g1.Deltas[i] != g3.Deltas[i] || g1.Probs[i] != g3.Probs[i] {
			t.Fatalf("workers 1 and 3 differ at %v", g1.Epsilons[i])
		}
	}
	if _, err := ProfileGrid(ctx, p, 0, 1, 1); err == nil {
		t.Error("step 0: no error")
	}
}
