package verify

import (
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestBoundsAbovePsi checks every enclosure of psi on random boxes of two
// honest problems against psi at random points inside: monotone, paired,
// the Taylor forms (separate and paired third derivatives) and the
// one-variable forms must each be at least psi there. A third of the boxes
// are tiny and near the tangent point (p*, 1-p*), where the bounds are
// tightest; a third reach far into the edges.
func TestBoundsAbovePsi(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 3))
	for _, name := range []string{"d5-k1-c0.1-alpha5-eps3.json", "d1-k1-c0.3-alpha50-eps1.json", rangesTwo, rangesThree} {
		c, err := parse(honest(t, name))
		if err != nil {
			t.Fatal(err)
		}
		pr := newProblem(c)
		// The tangent point (p*, 1-p*): the maximum of psi(p, 1-p), by a
		// golden-section search in the logit s of p (q has logit -s).
		psiAt := func(x, y float64) float64 {
			px, qy := logistic(end{r: new(big.Rat).SetFloat64(x)}), logistic(end{r: new(big.Rat).SetFloat64(y)})
			v, _ := pr.derivs(px, px, qy, qy, kindsPoint[:1])[0].lo.Float64()
			return v
		}
		lo, hi := -40.0, 0.0
		for range 80 {
			m1, m2 := hi-0.618*(hi-lo), lo+0.618*(hi-lo)
			if psiAt(m1, -m1) < psiAt(m2, -m2) {
				lo = m1
			} else {
				hi = m2
			}
		}
		tangent := [2]float64{lo, -lo}
		fin := func(x float64) end { return end{r: new(big.Rat).SetFloat64(x)} }
		for trial := range 30 {
			var s1, s2, t1, t2 float64
			switch trial % 3 {
			case 0: // tiny, around the tangent point
				w := 1e-3 * rng.Float64()
				s1, t1 = tangent[0]-w*rng.Float64(), tangent[1]-w*rng.Float64()
				s2, t2 = s1+w, t1+w
				if trial%2 == 0 { // the tangent point itself among the sample points
					x, y := fin(tangent[0]), fin(tangent[1])
					px, qy := logistic(x), logistic(y)
					psi := pr.derivs(px, px, qy, qy, kindsPoint[:1])[0]
					ms, mt := logistic(midEnd(fin(s1), fin(s2))), logistic(midEnd(fin(t1), fin(t2)))
					p1, p2, q1, q2 := logistic(fin(s1)), logistic(fin(s2)), logistic(fin(t1)), logistic(fin(t2))
					for _, paired := range []bool{false, true} {
						if ub := pr.taylor(p1, p2, q1, q2, ms, mt, paired); ub == nil || ub.Cmp(psi.lo) < 0 {
							t.Errorf("%s: Taylor bound %v below psi %s at the tangent point", name, ub, psi.lo.Text('g', 20))
						}
					}
				}
			case 1: // moderate
				s1, t1 = -6*rng.Float64(), 12*rng.Float64()-6
				s2, t2 = s1+rng.Float64(), t1+rng.Float64()
			default: // near the edges
				s1, t1 = -30*rng.Float64(), 60*rng.Float64()-30
				s2, t2 = s1+4*rng.Float64(), t1+4*rng.Float64()
			}
			s2 = min(s2, 0)
			if !(s1 < s2) {
				continue
			}
			b := box{fin(s1), fin(s2), fin(t1), fin(t2)}
			p1, p2, q1, q2 := logistic(b.s1), logistic(b.s2), logistic(b.t1), logistic(b.t2)
			ms, mt := logistic(midEnd(b.s1, b.s2)), logistic(midEnd(b.t1, b.t2))
			bounds := map[string]*big.Float{
				"monotone":     pr.monotone(p1, p2, q1, q2),
				"paired":       pr.paired(p1, p2, q1, q2),
				"taylor":       pr.taylor(p1, p2, q1, q2, ms, mt, false),
				"taylorPaired": pr.taylor(p1, p2, q1, q2, ms, mt, true),
				"partialP":     pr.partial(p1, p2, q1, q2, ms, mt, 0),
				"partialQ":     pr.partial(p1, p2, q1, q2, ms, mt, 1),
			}
			for range 4 {
				x := fin(s1 + (s2-s1)*rng.Float64())
				y := fin(t1 + (t2-t1)*rng.Float64())
				px, qy := logistic(x), logistic(y)
				psi := pr.derivs(px, px, qy, qy, kindsPoint[:1])[0]
				for name, ub := range bounds {
					if ub != nil && ub.Cmp(psi.lo) < 0 {
						t.Errorf("%s: box %v: %s bound %s below psi %s at (%v, %v)", name, b, name, ub.Text('g', 12), psi.lo.Text('g', 12), x, y)
					}
				}
			}
		}
	}
}

// TestWeights: the binomial weights B_j of Binomial(n, c) add up to 1
// (their enclosures' sum holds 1 and is narrow), and B'_j = B_(n-j).
func TestWeights(t *testing.T) {
	one := big.NewFloat(1)
	for _, n := range []int{1, 2, 15, 200} {
		c := &cert{n: n, c: big.NewRat(1, 10), alpha: big.NewRat(5, 1), eps: big.NewRat(1, 1),
			l0: new(big.Rat), l1: new(big.Rat), l2: new(big.Rat), tau: new(big.Rat), logU: new(big.Rat)}
		pr := newProblem(c)
		s, sp := constIval(0), constIval(0)
		for j := 0; j <= n; j++ {
			s, sp = s.add(pr.bj[j]), sp.add(pr.bpj[j])
			if pr.bpj[j].lo.Cmp(pr.bj[n-j].lo) != 0 || pr.bpj[j].hi.Cmp(pr.bj[n-j].hi) != 0 {
				t.Errorf("n %d: B'_%d != B_%d", n, j, n-j)
			}
		}
		for _, x := range []ival{s, sp} {
			w := new(big.Float).Sub(x.hi, x.lo)
			if x.lo.Cmp(one) > 0 || x.hi.Cmp(one) < 0 || w.Cmp(big.NewFloat(1e-30)) > 0 {
				t.Errorf("n %d: sum of the weights in [%s, %s]", n, x.lo.Text('g', 40), x.hi.Text('g', 40))
			}
		}
	}
}
