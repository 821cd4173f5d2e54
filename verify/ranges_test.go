package verify

import (
	"bufio"
	"context"
	"math/big"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bernamp/bernamp/certfile"
)

// The ranges certificates of testdata/verify were written by CertifyRanges
// (certify/rangefile_test.go, -update-ranges): 2 groups at k 2, alpha 5;
// 2 groups with c 1e-4 at k 3, alpha 1000; 3 groups at k 1, alpha 2, eps 2.
const (
	rangesTwo   = "ranges-d2-k2-c0.09999999999999998x2-c0.3x2-alpha5-eps1.json"
	rangesAlpha = "ranges-d2-k3-c9.999999999998899e-05x3-c0.3x3-alpha1000-eps1.json"
	rangesThree = "ranges-d3-k1-c0.05x1-c0.19999999999999996x1-c0.4x1-alpha2-eps2.json"
)

// rangeRefs reads testdata/verify/ranges_refs.csv (gen_ranges.py, mpmath
// at 50 digits): per file the bound its numbers give and the Theorem 4
// lower bound of its groups.
func rangeRefs(t *testing.T) map[string][2]*big.Rat {
	t.Helper()
	in, err := os.Open("../testdata/verify/ranges_refs.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out := map[string][2]*big.Rat{}
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		f := strings.Split(sc.Text(), ",")
		if len(f) != 3 || f[0] == "file" {
			continue
		}
		b, ok1 := new(big.Rat).SetString(f[1])
		l, ok2 := new(big.Rat).SetString(f[2])
		if !ok1 || !ok2 {
			t.Fatalf("ranges_refs.csv: bad line %q", sc.Text())
		}
		out[f[0]] = [2]*big.Rat{b, l}
	}
	if len(out) != 3 {
		t.Fatalf("ranges_refs.csv: %d references, want 3", len(out))
	}
	return out
}

// ratScale returns r (1 + rel) as an exact decimal with 40 digits after the
// point (rounded to nearest: the tests' margins are far larger).
func ratScale(r *big.Rat, num, den int64) string {
	return new(big.Rat).Mul(r, big.NewRat(num, den)).FloatString(40)
}

// TestRangesReferences: against the mpmath references, a claim 1e-14
// relative above the bound the file's numbers give is accepted, one 1e-14
// below is rejected; the checked bound is within 1e-15 of the reference;
// the file's LB agrees with the reference lower bound to 1e-13; and a
// claim 1e-12 below that lower bound (false: Post is at least it) is
// rejected.
func TestRangesReferences(t *testing.T) {
	refs := rangeRefs(t)
	for name, ref := range refs {
		bound, lb := ref[0], ref[1]
		for _, tc := range []struct {
			claim  string
			accept bool
		}{
			{ratScale(bound, 1e14+1, 1e14), true},
			{ratScale(bound, 1e14-1, 1e14), false},
			{ratScale(lb, 1e12-1, 1e12), false},
		} {
			f := honest(t, name)
			f.Claim = tc.claim
			rep, err := Check(context.Background(), f, nil)
			if err != nil || rep.Accepted != tc.accept {
				t.Errorf("%s: claim %s: accepted %v (%q, %v), want %v", name, tc.claim, rep.Accepted, rep.Failure, err, tc.accept)
			}
			if !tc.accept && !strings.Contains(rep.Failure, "below the checked bound") {
				t.Errorf("%s: claim %s rejected for %q", name, tc.claim, rep.Failure)
			}
			if tc.accept {
				got := new(big.Rat).SetFloat64(rep.Bound)
				if got.Cmp(bound) < 0 || got.Cmp(new(big.Rat).Mul(bound, big.NewRat(1e15+1, 1e15))) > 0 {
					t.Errorf("%s: checked bound %v, reference %s", name, rep.Bound, bound.FloatString(20))
				}
			}
		}
		f := honest(t, name)
		flb, _ := new(big.Rat).SetString(f.LB)
		d := new(big.Rat).Sub(flb, lb)
		if d.Abs(d).Cmp(new(big.Rat).Mul(lb, big.NewRat(1, 1e13))) > 0 {
			t.Errorf("%s: file LB %s, reference %s", name, f.LB, lb.FloatString(20))
		}
	}
}

// TestRangesMutations changes one item of an honest ranges certificate at
// a time; each change makes the inequality false or the claim unsupported
// or the file inconsistent, and each is rejected for the reason given.
func TestRangesMutations(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(f *certfile.File)
		reason string
	}{
		{"claim lowered to LB", func(f *certfile.File) { f.Claim = f.LB }, "below the checked bound"},
		{"claim lowered by 1e-14", func(f *certfile.File) { f.Claim = scale(f.Claim, 1e14-1, 1e14) }, "below the checked bound"},
		{"l0 lowered by 2 tau", func(f *certfile.File) {
			l0, _ := new(big.Rat).SetString(f.L0)
			tau, _ := new(big.Rat).SetString(f.Tau)
			f.L0 = l0.Sub(l0, tau).Sub(l0, tau).FloatString(30)
		}, "psi"},
		{"l0 raised 1%", func(f *certfile.File) { f.L0 = scale(f.L0, 101, 100) }, "below the checked bound"},
		{"l1 lowered 1%", func(f *certfile.File) { f.L1 = scale(f.L1, 99, 100) }, "psi"},
		{"l1 raised 1%", func(f *certfile.File) { f.L1 = scale(f.L1, 101, 100) }, "below the checked bound"},
		{"l1 sign flipped", func(f *certfile.File) { f.L1 = "-" + f.L1 }, "l1 = -"},
		{"l2 set to 0", func(f *certfile.File) { f.L2 = "0" }, "psi"},
		{"l2 sign flipped", func(f *certfile.File) { f.L2 = "-" + f.L2 }, "l2 = -"},
		{"tau negated", func(f *certfile.File) { f.Tau = "-" + f.Tau }, "psi"},
		{"log U lowered 1e-6", func(f *certfile.File) { f.LogU = scale(f.LogU, 999999, 1000000) }, "psi"},
		{"log U raised 1e-6", func(f *certfile.File) { f.LogU = scale(f.LogU, 1000001, 1000000) }, "below the checked bound"},
		{"group 1 c lowered 10%", func(f *certfile.File) { f.Groups[0].C = scale(f.Groups[0].C, 9, 10) }, "psi"},
		{"group 2 c lowered 10%", func(f *certfile.File) { f.Groups[1].C = scale(f.Groups[1].C, 9, 10) }, "psi"},
		{"group 1 n raised by k (d raised)", func(f *certfile.File) { f.Groups[0].N += f.K; f.D++; f.N += f.K }, "psi"},
		{"group 1 n raised alone", func(f *certfile.File) { f.Groups[0].N += f.K }, "sum to"},
		{"group n not a multiple of k", func(f *certfile.File) {
			if f.K == 1 {
				f.K, f.D = f.N, 1 // n_g = 1 is not a multiple of k = n
				return
			}
			f.Groups[0].N--
			f.Groups[1].N++
		}, "multiple of k"},
		{"groups swapped", func(f *certfile.File) { f.Groups[0], f.Groups[1] = f.Groups[1], f.Groups[0] }, "not above the previous"},
		{"groups merged into one c", func(f *certfile.File) { f.Groups[1].C = f.Groups[0].C }, "not above the previous"},
		{"group c out of range", func(f *certfile.File) { f.Groups[len(f.Groups)-1].C = "0.5" }, "not in (0, 1/2)"},
		{"alpha raised 1%", func(f *certfile.File) { f.Alpha = scale(f.Alpha, 101, 100) }, "psi"},
		{"alpha lowered 1%", func(f *certfile.File) { f.Alpha = scale(f.Alpha, 99, 100) }, "below the checked bound"},
		{"eps raised 1%", func(f *certfile.File) { f.Eps = scale(f.Eps, 101, 100) }, "psi"},
		{"tile removed", func(f *certfile.File) { f.Tiles = slices.Delete(f.Tiles, 7, 8) }, "tiling"},
		{"tile duplicated", func(f *certfile.File) { f.Tiles = append(f.Tiles, f.Tiles[3]) }, "tiling"},
		{"tile shrunk", func(f *certfile.File) {
			for i, tl := range f.Tiles {
				if tl[1] != "0" && tl[1] != "-inf" {
					f.Tiles[i][1] = scale(tl[1], 999, 1000)
					return
				}
			}
		}, "tiling"},
		{"n alone raised", func(f *certfile.File) { f.N++ }, "not d k"},
	}
	for _, name := range []string{rangesTwo, rangesAlpha, rangesThree} {
		if rep, err := Check(context.Background(), honest(t, name), nil); err != nil || !rep.Accepted {
			t.Fatalf("%s: the honest file is rejected: %q, %v", name, rep.Failure, err)
		}
		for _, c := range cases {
			f := honest(t, name)
			c.mutate(f)
			start := time.Now()
			// Post's budget of big.Float boxes (bernamp.CheckFallback):
			// a file that fails is rejected sooner.
			wantRejectedWith(t, name+": "+c.name, f, c.reason, &Options{MaxExtra: 2000, MaxFallback: 16})
			if s := time.Since(start).Seconds(); s > 0.5 {
				t.Logf("%s: %s: %.1fs", name, c.name, s)
			}
		}
	}
}

// TestRangesHostile: caps and shapes. Too many terms is rejected before
// any work; a ranges file without groups, or with a c beside its groups,
// is malformed; a pieces file with groups is malformed.
func TestRangesHostile(t *testing.T) {
	f := honest(t, rangesTwo)
	f.Groups = []certfile.Group{{N: 300, C: f.Groups[0].C}, {N: 300, C: f.Groups[1].C}}
	f.D, f.K, f.N = 300, 2, 600
	wantRejected(t, "90,601 terms", f, "more than")
	for name, mutate := range map[string]func(f *certfile.File){
		"no groups":        func(f *certfile.File) { f.Groups = nil },
		"c beside groups":  func(f *certfile.File) { f.C = "0.1" },
		"17 groups":        func(f *certfile.File) { f.Groups = slices.Repeat(f.Groups[:1], 17) },
		"group n 0":        func(f *certfile.File) { f.Groups[0].N = 0 },
		"group c not num":  func(f *certfile.File) { f.Groups[0].C = "x" },
		"pieces kind":      func(f *certfile.File) { f.Kind = certfile.KindPieces; f.C = "0.1" },
		"closed-form kind": func(f *certfile.File) { f.Kind = certfile.KindClosedForm; f.C = "0.1" },
	} {
		f := honest(t, rangesTwo)
		mutate(f)
		if _, err := Check(context.Background(), f, nil); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestRangeTerms: F built from the groups' terms (weights, mirrors and
// sides, in big.Float and in float64) encloses F computed exactly, in
// big.Rat, as the plain sum over every output bit vector of g(p A_x + (1-p)
// B_x, q A_x + (1-q) B_x), bit i being 1 with probability c_i under A and
// 1-c_i under B (alpha = 3: g(u, v) = u^3 / v^2 is rational). With l1 = l2
// = 0 and log U = 0, psi is F.
func TestRangeTerms(t *testing.T) {
	type grp struct {
		n int
		c *big.Rat
	}
	var unknown, mid bool
	for _, gs := range [][]grp{
		{{2, big.NewRat(1, 10)}, {1, big.NewRat(3, 10)}},
		{{3, big.NewRat(1, 20)}, {2, big.NewRat(1, 5)}, {1, big.NewRat(2, 5)}},
		{{2, big.NewRat(1, 5)}, {4, big.NewRat(1, 3)}},  // odds 4 = 2^2: mirror pairs of equal weight
		{{2, big.NewRat(1, 4)}, {2, big.NewRat(9, 20)}}, // a self-mirror term
		{{5, big.NewRat(1, 10)}},
	} {
		ce := &cert{alpha: big.NewRat(3, 1), eps: big.NewRat(1, 1), l0: new(big.Rat), l1: new(big.Rat), l2: new(big.Rat),
			tau: new(big.Rat), logU: new(big.Rat)}
		var cs []*big.Rat
		for _, g := range gs {
			ce.groups = append(ce.groups, group{g.n, g.c})
			ce.n += g.n
			for range g.n {
				cs = append(cs, g.c)
			}
		}
		ce.c = ce.groups[0].c
		pb := newProblem(ce)
		p64 := newProblem64(ce, new(big.Float), true)
		unknown = unknown || slices.Contains(p64.side, sideUnknown) && !pb.pairThird
		mid = mid || slices.Contains(pb.side, sideMid)
		for _, pq := range [][2]*big.Rat{{big.NewRat(1, 4), big.NewRat(5, 8)}, {big.NewRat(1, 2), big.NewRat(1, 2)}, {big.NewRat(1, 64), big.NewRat(63, 64)}} {
			p, q := pq[0], pq[1]
			want := new(big.Rat)
			one := big.NewRat(1, 1)
			for x := 0; x < 1<<len(cs); x++ {
				a, b := big.NewRat(1, 1), big.NewRat(1, 1)
				for i, c := range cs {
					cb := new(big.Rat).Sub(one, c)
					if x>>i&1 == 1 {
						a.Mul(a, c)
						b.Mul(b, cb)
					} else {
						a.Mul(a, cb)
						b.Mul(b, c)
					}
				}
				pb1 := new(big.Rat).Sub(one, p)
				qb1 := new(big.Rat).Sub(one, q)
				u := new(big.Rat).Add(new(big.Rat).Mul(p, a), new(big.Rat).Mul(pb1, b))
				v := new(big.Rat).Add(new(big.Rat).Mul(q, a), new(big.Rat).Mul(qb1, b))
				g := new(big.Rat).Mul(u, u)
				g.Mul(g, u).Quo(g, new(big.Rat).Mul(v, v))
				want.Add(want, g)
			}
			bp, bq := pointIval(newUp(prec).SetRat(p)), pointIval(newUp(prec).SetRat(q))
			cp := coord{bp, constIval(1).sub(bp)}
			cq := coord{bq, constIval(1).sub(bq)}
			got := pb.derivs(cp, cp, cq, cq, kindsPoint[:1])[0]
			w := new(big.Float).SetPrec(prec).SetRat(want)
			if got.lo.Cmp(w) > 0 || got.hi.Cmp(w) < 0 {
				t.Errorf("%v at (%v, %v): big.Float F in [%s, %s], exact %s", gs, p, q, got.lo.Text('g', 20), got.hi.Text('g', 20), w.Text('g', 20))
			}
			pf, _ := p.Float64()
			qf, _ := q.Float64()
			c64p, c64q := coordOf(pt64(pf), pt64(1-pf)), coordOf(pt64(qf), pt64(1-qf))
			g64 := p64.derivs(c64p, c64p, c64q, c64q, kindsPoint[:1])[0]
			wf, _ := want.Float64()
			if g64.lo > wf*(1+1e-15) || g64.hi < wf*(1-1e-15) || g64.hi-g64.lo > 1e-12*wf {
				t.Errorf("%v at (%v, %v): float64 F in [%v, %v], exact %v", gs, p, q, g64.lo, g64.hi, wf)
			}
			// The paired bound on the point box is at least F too.
			if ub := pb.paired(cp, cp, cq, cq); ub == nil || ub.Cmp(w) < 0 {
				t.Errorf("%v at (%v, %v): paired bound %v below F %s", gs, p, q, ub, w.Text('g', 20))
			}
			if ub := p64.paired(c64p, c64p, c64q, c64q); ub < wf*(1-1e-15) {
				t.Errorf("%v at (%v, %v): float64 paired bound %v below F %v", gs, p, q, ub, wf)
			}
			// The same from the coordinates' kept terms (endTerms, built
			// over the groups' terms and their sides).
			kp, kq := c64p, c64q
			p64.keepTerms(&kp)
			p64.keepTerms(&kq)
			if kp.et == nil || kq.et == nil {
				t.Fatalf("%v: no terms kept", gs)
			}
			if g := p64.derivs(kp, kp, kq, kq, kindsPoint[:1])[0]; g.lo > wf*(1+1e-15) || g.hi < wf*(1-1e-15) {
				t.Errorf("%v at (%v, %v): float64 F from the kept terms in [%v, %v], exact %v", gs, p, q, g.lo, g.hi, wf)
			}
			if ub := p64.paired(kp, kp, kq, kq); ub < wf*(1-1e-15) {
				t.Errorf("%v at (%v, %v): float64 paired bound from the kept terms %v below F %v", gs, p, q, ub, wf)
			}
		}
	}
	if !unknown || !mid {
		t.Errorf("no case had a term of unknown side (%v) or a self-mirror term (%v)", unknown, mid)
	}
}
