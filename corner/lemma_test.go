package corner_test

// Float64 checks of the two lemmas that make the whole-box answer a k = 1
// problem in two variables (shared/design/math.md 3b and 3c; docs/engine.md,
// "Whole-box answers"). Everything here is a small independent
// implementation written from the definitions: no code of package corner is
// used, so a wrong channel there cannot hide a wrong lemma here.

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// g returns u^a v^(1-a) (a > 1) in log space: 0 when u = 0 (also 0^a 0^(1-a),
// the limit along u = v t, t -> 0), +Inf when v = 0 < u.
func g(u, v, a float64) float64 {
	switch {
	case u == 0:
		return 0
	case v == 0:
		return math.Inf(1)
	}
	return math.Exp(a*math.Log(u) + (1-a)*math.Log(v))
}

// renyi returns R_a(u||v) = log(sum_b u_b^a v_b^(1-a)) / (a-1).
func renyi(u, v []float64, a float64) float64 {
	s := 0.0
	for b := range u {
		s += g(u[b], v[b], a)
	}
	return math.Log(s) / (a - 1)
}

// randomMasses returns m positive masses summing to 1, spread over about two
// orders of magnitude.
func randomMasses(rnd *rand.Rand, m int) []float64 {
	w := make([]float64, m)
	s := 0.0
	for i := range w {
		w[i] = math.Exp(2 * rnd.NormFloat64())
		s += w[i]
	}
	for i := range w {
		w[i] /= s
	}
	return w
}

func maxAbsDiff(u, v []float64) float64 {
	m := 0.0
	for i := range u {
		m = max(m, math.Abs(u[i]-v[i]))
	}
	return m
}

// boxRelease returns the law of the k-sample release of the mixture
// sum_i w_i delta_{theta^(i)} over all 2^(d k) bit outcomes x, bit l*k+r of x
// being draw r of coordinate l:
// sum_i w_i prod_{l,r} theta_l^x_lr (1-theta_l)^(1-x_lr).
func boxRelease(d, k int, theta [][]float64, w []float64) []float64 {
	n := d * k
	out := make([]float64, 1<<n)
	for x := range out {
		for i, th := range theta {
			p := w[i]
			for l := range d {
				for r := range k {
					if x>>(l*k+r)&1 == 1 {
						p *= th[l]
					} else {
						p *= 1 - th[l]
					}
				}
			}
			out[x] += p
		}
	}
	return out
}

// lift returns G w on the corners {c, 1-c}^n, n = d k, bit l*k+r of z being
// 0 for z_lr = c and 1 for z_lr = 1-c: theta^(i) goes to the product law with
// P(z_lr = c) = lambda(theta^(i)_l) independently.
func lift(d, k int, theta [][]float64, w []float64, lambda func(float64) float64) []float64 {
	n := d * k
	out := make([]float64, 1<<n)
	for z := range out {
		for i, th := range theta {
			p := w[i]
			for l := range d {
				lam := lambda(th[l])
				for r := range k {
					if z>>(l*k+r)&1 == 0 {
						p *= lam
					} else {
						p *= 1 - lam
					}
				}
			}
			out[z] += p
		}
	}
	return out
}

// cubeRelease returns K[x][z] for the k = 1 release of the corners of the
// n-cube: coordinate j of z (c if bit j is 0, 1-c if 1) emits Bernoulli(z_j).
func cubeRelease(n int, c float64) [][]float64 {
	N := 1 << n
	K := make([][]float64, N)
	for x := range K {
		K[x] = make([]float64, N)
		for z := range K[x] {
			p := 1.0
			for j := range n {
				zj := c
				if z>>j&1 == 1 {
					zj = 1 - c
				}
				if x>>j&1 == 1 {
					p *= zj
				} else {
					p *= 1 - zj
				}
			}
			K[x][z] = p
		}
	}
	return K
}

func apply(K [][]float64, w []float64) []float64 {
	out := make([]float64, len(K))
	for x, row := range K {
		for z, kz := range row {
			out[x] += kz * w[z]
		}
	}
	return out
}

// TestLiftingLemma checks math.md 3b on random interior pairs: the k-sample
// release of P on [c, 1-c]^d is the k = 1 release of the lifted P' = G P on
// the corners of the (d k)-cube, and the lift does not increase the Rényi
// divergence either way. A wrong lambda must be caught.
func TestLiftingLemma(t *testing.T) {
	cases := []struct {
		d, k int
		c    float64
	}{
		{1, 2, 0.1}, {2, 2, 0.2}, {1, 3, 0.3}, {2, 3, 0.15}, {3, 2, 0.05}, {2, 4, 0.1}, {4, 2, 0.25},
	}
	alphas := []float64{1.5, 5, 20}
	const draws = 25
	for ci, tc := range cases {
		t.Run(fmt.Sprintf("d=%d,k=%d,c=%g", tc.d, tc.k, tc.c), func(t *testing.T) {
			d, k, c := tc.d, tc.k, tc.c
			n := d * k
			rnd := rand.New(rand.NewPCG(uint64(ci)+101, 0x3b))
			K := cubeRelease(n, c)
			right := func(th float64) float64 { return (1 - c - th) / (1 - 2*c) }
			wrong := func(th float64) float64 { return (th - c) / (1 - 2*c) }
			fails, wrongCaught := 0, 0
			worstLaw, worstDiv := 0.0, math.Inf(-1)
			for draw := range draws {
				m := 2 + rnd.IntN(3)
				theta := make([][]float64, m)
				for i := range theta {
					theta[i] = make([]float64, d)
					for l := range theta[i] {
						theta[i][l] = c + (1-2*c)*rnd.Float64()
					}
				}
				P, Q := randomMasses(rnd, m), randomMasses(rnd, m)
				lifted := map[string][]float64{}
				caught := false
				for _, law := range []struct {
					name string
					w    []float64
				}{{"P", P}, {"Q", Q}} {
					direct := boxRelease(d, k, theta, law.w)
					l := lift(d, k, theta, law.w, right)
					lifted[law.name] = l
					sum := 0.0
					for _, v := range l {
						sum += v
					}
					via := apply(K, l)
					diff := maxAbsDiff(direct, via)
					worstLaw = max(worstLaw, diff)
					if diff > 1e-13 || math.Abs(sum-1) > 1e-13 {
						fails++
						t.Errorf("draw %d, %s: |B_k(%s) - K G %s| = %.3g (> 1e-13), mass of G %s = %.17g",
							draw, law.name, law.name, law.name, diff, law.name, sum)
					}
					if maxAbsDiff(direct, apply(K, lift(d, k, theta, law.w, wrong))) > 1e-3 {
						caught = true
					}
				}
				if caught {
					wrongCaught++
				}
				Pl, Ql := lifted["P"], lifted["Q"]
				BP, BQ := apply(K, Pl), apply(K, Ql)
				for _, a := range alphas {
					for _, dir := range []struct {
						name                 string
						u, v, ul, vl, bu, bv []float64
					}{
						{"P||Q", P, Q, Pl, Ql, BP, BQ},
						{"Q||P", Q, P, Ql, Pl, BQ, BP},
					} {
						rBox := renyi(dir.u, dir.v, a)
						rLift := renyi(dir.ul, dir.vl, a)
						rOut := renyi(dir.bu, dir.bv, a)
						worstDiv = max(worstDiv, rLift-rBox)
						if !(rLift <= rBox+1e-12) || !(rOut <= rLift+1e-12) {
							fails++
							t.Errorf("draw %d, alpha %g, %s: R(release) = %.17g, R(lifted) = %.17g, R(box) = %.17g (lift must not increase it)",
								draw, a, dir.name, rOut, rLift, rBox)
						}
					}
				}
				if fails > 5 {
					t.Fatalf("stopping after %d failures", fails)
				}
			}
			if wrongCaught == 0 {
				t.Errorf("lambda = (theta-c)/(1-2c) was never caught (difference > 1e-3) in %d draws", draws)
			}
			t.Logf("max |B_k P - K G P| = %.3g; max R(G P||G Q) - R(P||Q) = %.3g; wrong lambda caught in %d/%d draws",
				worstLaw, worstDiv, wrongCaught, draws)
		})
	}
}

// TestLiftingLemmaTwoSamples is the counterexample to the paper's Lemma 2
// quoted in docs/engine.md (d = 1, k = 2, c = 0.1): B_2(1/2) puts 1/2 on one
// success, every mixture of B_2(c) and B_2(1-c) puts 2 c (1-c) = 0.18 there,
// while the lift to the 2-cube reproduces B_2(1/2) exactly.
func TestLiftingLemmaTwoSamples(t *testing.T) {
	const c = 0.1
	theta := [][]float64{{0.5}}
	direct := boxRelease(1, 2, theta, []float64{1})
	one := direct[1] + direct[2] // outcomes 01 and 10
	for _, w := range []float64{0, 0.3, 0.5, 1} {
		mix := boxRelease(1, 2, [][]float64{{c}, {1 - c}}, []float64{w, 1 - w})
		if got := mix[1] + mix[2]; math.Abs(got-0.18) > 1e-15 || math.Abs(one-0.5) > 1e-15 {
			t.Errorf("P(one success): B_2(1/2) %.17g (want 0.5), mixture w = %g: %.17g (want 0.18)", one, w, got)
		}
	}
	lifted := lift(1, 2, theta, []float64{1}, func(th float64) float64 { return (1 - c - th) / (1 - 2*c) })
	if diff := maxAbsDiff(direct, apply(cubeRelease(2, c), lifted)); diff > 1e-15 {
		t.Errorf("lift of B_2(1/2): difference %.3g", diff)
	}
}

// piece is a balanced two-corner piece of (x, y): P puts s p on corner i and
// s (1-p) on corner j, Q puts s q and s (1-q). A one-corner piece has j = -1
// and p = q = 1. pb and qb are 1-p and 1-q computed from the masses on corner
// j, not by subtraction: 1-p loses relative precision when p is near 1, and
// g(1-p, 1-q) at alpha 20 would carry that error 20 times (1e-11 seen).
type piece struct {
	i, j            int
	s, p, pb, q, qb float64
}

// splitPieces splits (x, y) (vectors over the corners, supported on support)
// by the northwest-corner transport plan from the corners with x > y to the
// corners with x < y, as in the proof of math.md 3c.
func splitPieces(x, y []float64, support []int) []piece {
	var plus, minus, out []piece
	for _, z := range support {
		switch {
		case x[z] > y[z]:
			plus = append(plus, piece{i: z, s: x[z] - y[z]})
		case x[z] < y[z]:
			minus = append(minus, piece{i: z, s: y[z] - x[z]})
		default:
			out = append(out, piece{i: z, j: -1, s: x[z], p: 1, q: 1})
		}
	}
	a, b := 0, 0
	if len(plus) == 0 || len(minus) == 0 {
		return out
	}
	ra, rb := plus[0].s, minus[0].s
	for a < len(plus) && b < len(minus) {
		zi, zj := plus[a].i, minus[b].i
		amt := min(ra, rb)
		fi, fj := amt/plus[a].s, amt/minus[b].s
		if a == len(plus)-1 && b == len(minus)-1 {
			// The last pair takes what is left of both corners: the total
			// excess and the total deficit differ by rounding (1e-16), which
			// would otherwise be left on a corner whose x - y may be tiny.
			fi, fj = ra/plus[a].s, rb/minus[b].s
			amt = max(ra, rb)
		}
		Pi, Qi := fi*x[zi], fi*y[zi]
		Pj, Qj := fj*x[zj], fj*y[zj]
		s := Pi + Pj
		out = append(out, piece{i: zi, j: zj, s: s, p: Pi / s, pb: Pj / s, q: Qi / s, qb: Qj / s})
		ra -= amt
		rb -= amt
		if ra <= 0 {
			if a++; a < len(plus) {
				ra = plus[a].s
			}
		}
		if rb <= 0 {
			if b++; b < len(minus) {
				rb = minus[b].s
			}
		}
	}
	return out
}

// fullF returns F(P, Q) = sum over outputs o in {0,1}^n of g((Kx)_o, (Ky)_o)
// for the k = 1 release on the corners {0,1}^n of the n-cube, each coordinate
// flipped with probability c: K[o][z] = c^|o^z| (1-c)^(n-|o^z|).
func fullF(n int, c, a float64, x, y []float64, support []int) float64 {
	pw := make([]float64, n+1)
	for h := range pw {
		pw[h] = math.Pow(c, float64(h)) * math.Pow(1-c, float64(n-h))
	}
	F := 0.0
	for o := range 1 << n {
		u, v := 0.0, 0.0
		for _, z := range support {
			kz := pw[bits.OnesCount(uint(o^z))]
			u += kz * x[z]
			v += kz * y[z]
		}
		F += g(u, v, a)
	}
	return F
}

// fullG returns G(P, Q) = sum_z g(x_z, y_z).
func fullG(a float64, x, y []float64, support []int) float64 {
	G := 0.0
	for _, z := range support {
		G += g(x[z], y[z], a)
	}
	return G
}

// Fh returns F_h(p, q) = sum_{j=0..h} C(h, j) g(p b_j + pb b'_j, q b_j + qb b'_j),
// b_j = c^j (1-c)^(h-j), b'_j = c^(h-j) (1-c)^j, pb = 1-p, qb = 1-q.
func Fh(h int, c, a, p, pb, q, qb float64) float64 {
	F, binom := 0.0, 1.0
	for j := 0; j <= h; j++ {
		b := math.Pow(c, float64(j)) * math.Pow(1-c, float64(h-j))
		bb := math.Pow(c, float64(h-j)) * math.Pow(1-c, float64(j))
		F += binom * g(p*b+pb*bb, q*b+qb*bb, a)
		binom = binom * float64(h-j) / float64(j+1)
	}
	return F
}

// G2 returns G(p, q) = g(p, q) + g(pb, qb), pb = 1-p, qb = 1-q.
func G2(a, p, pb, q, qb float64) float64 { return g(p, q, a) + g(pb, qb, a) }

func relDiff(u, v float64) float64 {
	if u == v {
		return 0
	}
	return math.Abs(u-v) / math.Max(math.Abs(u), math.Abs(v))
}

// TestPiecesLemma checks math.md 3c on random pairs on the corners of the
// n-cube: the northwest-corner split into balanced pieces adds up to (x, y),
// G and G^T add up exactly over the pieces, F is at most the sum of the
// pieces' s_k F_h (with equality for two-corner supports), F_h <= F_n, and a
// one-corner piece contributes F = G = s_k.
func TestPiecesLemma(t *testing.T) {
	alphas := []float64{1.5, 5, 20}
	cs := []float64{0.05, 0.2, 0.4}
	const pairs = 300
	for n := 3; n <= 6; n++ {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			rnd := rand.New(rand.NewPCG(uint64(n), 0x3c))
			N := 1 << n
			fails := 0
			fail := func(format string, args ...any) {
				fails++
				t.Errorf(format, args...)
				if fails > 8 {
					t.Fatalf("stopping after %d failures", fails)
				}
			}
			var worstSplit, worstG, worstStep4, worstRatio, worstFhFn, worstC0 float64
			minRatio := math.Inf(1)
			tight, ones := 0, 0
			for pair := range pairs {
				m := 2 + rnd.IntN(5)
				support := rnd.Perm(N)[:m]
				x, y := make([]float64, N), make([]float64, N)
				xs := randomMasses(rnd, m)
				// Some corners get x_z = y_z (one-corner pieces); at least two do not.
				tied := make([]bool, m)
				nTied, tiedMass := 0, 0.0
				for i := range m {
					if m-nTied > 2 && rnd.Float64() < 0.25 {
						tied[i] = true
						nTied++
						tiedMass += xs[i]
					}
				}
				ys := randomMasses(rnd, m-nTied)
				for i, z := range support {
					x[z] = xs[i]
					if tied[i] {
						y[z] = xs[i]
					} else {
						y[z], ys = ys[0]*(1-tiedMass), ys[1:]
					}
				}
				pieces := splitPieces(x, y, support)

				// (i) the pieces add up to (x, y), and each is balanced.
				px, py := make([]float64, N), make([]float64, N)
				for _, pc := range pieces {
					px[pc.i] += pc.s * pc.p
					py[pc.i] += pc.s * pc.q
					if pc.j < 0 {
						continue
					}
					px[pc.j] += pc.s * pc.pb
					py[pc.j] += pc.s * pc.qb
				}
				split := max(maxAbsDiff(px, x), maxAbsDiff(py, y))
				worstSplit = max(worstSplit, split)
				if split > 1e-14 {
					fail("pair %d: pieces add up to (x, y) only to %.3g (> 1e-14)", pair, split)
				}

				for _, a := range alphas {
					// (ii) G and G^T add up exactly.
					GPQ, GQP := fullG(a, x, y, support), fullG(a, y, x, support)
					sPQ, sQP := 0.0, 0.0
					for _, pc := range pieces {
						sPQ += pc.s * G2(a, pc.p, pc.pb, pc.q, pc.qb)
						sQP += pc.s * G2(a, pc.q, pc.qb, pc.p, pc.pb)
					}
					e := max(relDiff(GPQ, sPQ), relDiff(GQP, sQP))
					worstG = max(worstG, e)
					if e > 1e-12 {
						fail("pair %d, alpha %g: G(P,Q) = %.17g vs sum s G(p,q) = %.17g; G(Q,P) = %.17g vs %.17g",
							pair, a, GPQ, sPQ, GQP, sQP)
					}

					// Sanity of F: with flip probability 0 the release is the identity, F = G.
					if e := relDiff(fullF(n, 0, a, x, y, support), GPQ); e > 1e-12 {
						fail("pair %d, alpha %g: F with c = 0 is %.17g, G(P,Q) = %.17g",
							pair, a, fullF(n, 0, a, x, y, support), GPQ)
					} else {
						worstC0 = max(worstC0, e)
					}

					for _, c := range cs {
						F := fullF(n, c, a, x, y, support)
						sum := 0.0
						for _, pc := range pieces {
							h := 0
							if pc.j >= 0 {
								h = bits.OnesCount(uint(pc.i ^ pc.j))
							}
							fh := Fh(h, c, a, pc.p, pc.pb, pc.q, pc.qb)
							sum += pc.s * fh
							// Step (4): the piece's own F (full channel) is s F_h; (v) for one corner it is s = G.
							pxk, pyk := make([]float64, N), make([]float64, N)
							sup := []int{pc.i}
							pxk[pc.i], pyk[pc.i] = pc.s*pc.p, pc.s*pc.q
							if pc.j >= 0 {
								sup = append(sup, pc.j)
								pxk[pc.j], pyk[pc.j] = pc.s*pc.pb, pc.s*pc.qb
							}
							Fk := fullF(n, c, a, pxk, pyk, sup)
							e := relDiff(Fk, pc.s*fh)
							worstStep4 = max(worstStep4, e)
							if e > 1e-12 {
								fail("pair %d, alpha %g, c %g: piece %v at distance %d: F(piece) = %.17g, s F_h = %.17g",
									pair, a, c, pc, h, Fk, pc.s*fh)
							}
							if pc.j < 0 {
								ones++
								Gk := fullG(a, pxk, pyk, sup)
								if relDiff(Fk, pc.s) > 1e-13 || relDiff(Gk, pc.s) > 1e-13 {
									fail("pair %d: one-corner piece s = %.17g has F = %.17g, G = %.17g", pair, pc.s, Fk, Gk)
								}
							}
							// (iv) F_h <= F_n.
							if h < n {
								fn := Fh(n, c, a, pc.p, pc.pb, pc.q, pc.qb)
								worstFhFn = max(worstFhFn, fh/fn-1)
								if !(fh <= fn*(1+1e-12)) {
									fail("pair %d, alpha %g, c %g: F_%d(%.17g, %.17g) = %.17g > F_%d = %.17g",
										pair, a, c, h, pc.p, pc.q, fh, n, fn)
								}
							}
						}
						// (iii) F <= sum s F_h, with equality on two-corner supports.
						// F >= 1 (Hölder) catches an F that returns 0. The sum is not
						// within a fixed factor of F: subadditivity is loose when the
						// pieces' ratios differ (alpha 20: F = 1.06, sum = 106).
						ratio := F / sum
						worstRatio = max(worstRatio, ratio-1)
						minRatio = min(minRatio, ratio)
						if !(F <= sum*(1+1e-12)) || !(F >= 1-1e-12) {
							fail("pair %d, alpha %g, c %g, %d corners: F(P,Q) = %.17g, sum s_k F_h(p_k,q_k) = %.17g",
								pair, a, c, m, F, sum)
						}
						if m == 2 {
							tight++
							if relDiff(F, sum) > 1e-12 {
								fail("pair %d, alpha %g, c %g: two-corner support, F = %.17g != s F_h = %.17g", pair, a, c, F, sum)
							}
						}
					}
				}
			}
			// F_h <= F_n on random (p, q) too, not only at the pieces' ratios.
			for range 200 {
				p, q := rnd.Float64(), rnd.Float64()
				for _, a := range alphas {
					for _, c := range cs {
						fn := Fh(n, c, a, p, 1-p, q, 1-q)
						for h := range n {
							if fh := Fh(h, c, a, p, 1-p, q, 1-q); !(fh <= fn*(1+1e-12)) {
								fail("alpha %g, c %g: F_%d(%.17g, %.17g) = %.17g > F_%d = %.17g", a, c, h, p, q, fh, n, fn)
							}
						}
						f0, g0 := Fh(n, 0, a, p, 1-p, q, 1-q), G2(a, p, 1-p, q, 1-q)
						if e := relDiff(f0, g0); e > 1e-13 {
							fail("alpha %g: F_%d with c = 0 is %.17g, G(p,q) = %.17g", a, n, f0, g0)
						}
					}
				}
			}
			if tight == 0 || ones == 0 {
				t.Errorf("no two-corner support (%d) or no one-corner piece (%d) was drawn", tight, ones)
			}
			t.Logf("split error %.2g; G additivity %.2g; step 4 %.2g; c = 0 F vs G %.2g; max F/sum - 1 = %.2g, min F/sum = %.3g; max F_h/F_n - 1 = %.2g; %d tight checks, %d one-corner pieces",
				worstSplit, worstG, worstStep4, worstC0, worstRatio, minRatio, worstFhFn, tight, ones/(len(alphas)*len(cs)))
		})
	}
}
